/**
 * "At most N at once" across every worker process, counted in the database: a claim takes a
 * numbered slot row (key, 0…limit-1); the primary key makes two workers' claims of the same
 * slot exclusive, so no interleaving of processes can put N+1 holders on one key. Slots carry
 * a short lease that the worker renews while it analyses (AnalysisWorker's tick), so that a
 * SIGKILLed worker's slots free themselves within one lease.
 *
 * Keys name what is limited (migration 0006): `account:<id>` (a plan's analyses at once),
 * `host:<canonical host>` and `addr:<address>` (politeness towards one target).
 */
import type { Sql } from "../platform/db/database.ts";

export class Slots {
  constructor(
    private readonly sql: Sql,
    /** The lease of a slot: how long it outlives its worker's last renewal. */
    private readonly holdMs: number,
  ) {}

  /** Takes a free slot of `key` for the report, or returns false when all `limit` are taken. */
  async acquire(key: string, limit: number, reportId: string): Promise<boolean> {
    await this.sql`delete from host_slots where host = ${key} and (expires_at < now() or report_id = ${reportId})`;
    const rows = await this.sql`
      insert into host_slots (host, slot, report_id, expires_at)
      select ${key}, s, ${reportId}, now() + ${this.holdMs} * interval '1 millisecond'
      from generate_series(0, ${limit - 1}) s
      where not exists (select 1 from host_slots h where h.host = ${key} and h.slot = s)
      order by s
      limit 1
      on conflict do nothing
      returning slot`;
    return rows.length > 0;
  }

  /**
   * Takes one slot of every key, or none: on the first key that is full, the slots already
   * taken are given back. No waiting while holding, so no deadlock between two claimers.
   */
  async acquireAll(
    keys: readonly string[],
    limitOf: (key: string) => number,
    reportId: string,
  ): Promise<string | undefined> {
    const taken: string[] = [];
    for (const key of keys) {
      if (await this.acquire(key, limitOf(key), reportId)) {
        taken.push(key);
        continue;
      }
      await this.releaseAll(taken, reportId);
      return key;
    }
    return undefined;
  }

  /** Extends the leases of the slots these reports hold. */
  async renew(reportIds: string[]): Promise<void> {
    if (reportIds.length === 0) return;
    await this.sql`
      update host_slots set expires_at = greatest(expires_at, now() + ${this.holdMs} * interval '1 millisecond')
      where report_id in ${this.sql(reportIds)}`;
  }

  async release(key: string, reportId: string): Promise<void> {
    await this.sql`delete from host_slots where host = ${key} and report_id = ${reportId}`;
  }

  /**
   * Keeps the slots of `keys` taken `ms` longer, then frees them (the next claim removes
   * expired slots): the per-target pace's refill time (target-limits.ts).
   */
  async releaseAfter(keys: readonly string[], reportId: string, ms: number): Promise<void> {
    if (keys.length === 0) return;
    if (ms <= 0) return this.releaseAll(keys, reportId);
    await this.sql`
      update host_slots set expires_at = now() + ${ms} * interval '1 millisecond'
      where host in ${this.sql(keys as string[])} and report_id = ${reportId}`;
  }

  async releaseAll(keys: readonly string[], reportId: string): Promise<void> {
    if (keys.length === 0) return;
    await this.sql`delete from host_slots where host in ${this.sql(keys as string[])} and report_id = ${reportId}`;
  }
}
