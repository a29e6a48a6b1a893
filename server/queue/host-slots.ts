/**
 * Politeness across the whole service: at most `limit` analyses of one host at a time, so 30
 * CI runs aimed at one client site do not hammer it. A worker takes a numbered slot row
 * (host, 0…limit-1) in the database; the primary key makes two workers' claims of the same
 * slot exclusive. Slots carry a short lease that the worker renews while it analyses
 * (AnalysisWorker's tick), so that a SIGKILLed worker's slots free themselves within one lease.
 */
import type { Sql } from "../db/database.ts";

export class HostSlots {
  constructor(
    private readonly sql: Sql,
    private readonly limit: number,
    /** The lease of a slot: how long it outlives its worker's last renewal. */
    private readonly holdMs: number,
  ) {}

  /** Takes a free slot of `host` for the report, or returns false when all are taken. */
  async acquire(host: string, reportId: string): Promise<boolean> {
    await this.sql`delete from host_slots where host = ${host} and (expires_at < now() or report_id = ${reportId})`;
    const rows = await this.sql`
      insert into host_slots (host, slot, report_id, expires_at)
      select ${host}, s, ${reportId}, now() + ${this.holdMs} * interval '1 millisecond'
      from generate_series(0, ${this.limit - 1}) s
      where not exists (select 1 from host_slots h where h.host = ${host} and h.slot = s)
      order by s
      limit 1
      on conflict do nothing
      returning slot`;
    return rows.length > 0;
  }

  /** Extends the leases of the slots these reports hold. */
  async renew(reportIds: string[]): Promise<void> {
    await this.sql`
      update host_slots set expires_at = now() + ${this.holdMs} * interval '1 millisecond'
      where report_id in ${this.sql(reportIds)}`;
  }

  async release(host: string, reportId: string): Promise<void> {
    await this.sql`delete from host_slots where host = ${host} and report_id = ${reportId}`;
  }
}
