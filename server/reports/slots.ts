/**
 * "At most N at once" across every worker process, counted in the database: a claim takes a
 * numbered slot row (key, 0…limit-1); the primary key makes two workers' claims of the same
 * slot exclusive, so no interleaving of processes can put N+1 holders on one key. Slots carry
 * a short lease that the worker renews while it analyses (AnalysisWorker's tick), so that a
 * SIGKILLed worker's slots free themselves within one lease.
 *
 * Keys name what is limited (migration 0006): `account:<id>` (a plan's analyses at once),
 * `host:<canonical host>` and `addr:<address>` (politeness towards one target).
 *
 * An account key is claimed first come, first served (`acquire`). Target keys are handed out
 * in a fair order (`claimTargets`, fair-order.ts, migration 0017): a job that finds its target
 * busy is written down as waiting, and each claim — by whichever worker process — hands the
 * free slots of the targets it touches to the waiting jobs in that order, under one advisory
 * lock. A waiting job holds no worker: its job is offered again shortly and finds its slots
 * granted, or waits on.
 */
import type { Sql, Transaction } from "../platform/db/database.ts";
import { startNow } from "../platform/queue.ts";
import { ANALYSIS_QUEUE } from "./analysis-queue.ts";
import { fairGrants, type HeldSlot, type Waiter } from "./fair-order.ts";

/** The advisory lock every fair claim of target slots takes: one order across processes. */
const TARGET_SLOTS_LOCK = "wpreport:target-slots";

/** A job claiming its target's slots. */
export interface TargetClaimant {
  reportId: string;
  accountId: string;
  /** The report's creation: ties in the fair order go to the oldest job. */
  since: Date;
  /**
   * The id of the job that will offer it again if it must wait: a claim that grants it slots
   * starts that job at once instead of after its delay.
   */
  nextJobId?: string;
}

export class Slots {
  constructor(
    private readonly sql: Sql,
    /** The lease of a slot: how long it outlives its worker's last renewal. */
    private readonly holdMs: number,
    /**
     * How long a waiting job's place lasts without being renewed: longer than the time between
     * two offers of its job, with room for a busy queue. A place whose report is no longer
     * queued or running is ignored at once.
     */
    private readonly waitMs: number = holdMs * 4,
  ) {}

  /**
   * Claims one slot of every key for the report, in the fair order (fair-order.ts): the report
   * is written down as waiting for its keys, then the free slots of every target its keys
   * share with other waiting jobs are granted in that order — to this report or to others,
   * which find them granted when their job is offered again (a grant unused for one lease
   * lapses). Returns true when the report holds a slot of every key.
   */
  async claimTargets(
    keys: readonly string[],
    limitOf: (key: string) => number,
    claimant: TargetClaimant,
  ): Promise<boolean> {
    if (keys.length === 0) return true;
    return this.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext(${TARGET_SLOTS_LOCK}))`;
      const taken = await tx<{ host: string; n: number; mine: boolean }[]>`
        select host, count(*)::int as n, bool_or(report_id = ${claimant.reportId}) as mine from host_slots
        where host in ${tx(keys as string[])} and expires_at >= now() group by host`;
      const mine = taken.filter((row) => row.mine).length;
      if (mine === keys.length) {
        await tx`delete from target_waits where report_id = ${claimant.reportId}`;
        return true;
      }
      // A partial hold (a lapsed grant) is given back: all keys or none.
      if (mine > 0)
        await tx`delete from host_slots where report_id = ${claimant.reportId} and host in ${tx(keys as string[])}`;
      // A key with no free slot: nothing can be granted to this job now; it only keeps its place
      // (others are served by their own claims, or by the next claim that finds a slot free).
      const full = taken.some((row) => row.n - (row.mine ? 1 : 0) >= limitOf(row.host));
      for (const key of keys) {
        await tx`
          insert into target_waits (target, report_id, account_id, since, expires_at, job_id)
          values (${key}, ${claimant.reportId}, ${claimant.accountId}, ${claimant.since},
            now() + ${this.waitMs} * interval '1 millisecond', ${claimant.nextJobId ?? null})
          on conflict (target, report_id) do update set expires_at = excluded.expires_at, job_id = excluded.job_id`;
      }
      if (full) return false;
      const granted = await this.grantWaiting(tx, keys, limitOf);
      // The other jobs granted slots are offered at once, not at the end of their delay.
      const others = [...granted].filter(([reportId, jobId]) => reportId !== claimant.reportId && jobId);
      await startNow(
        tx,
        ANALYSIS_QUEUE,
        others.map(([, jobId]) => jobId as string),
      );
      return granted.has(claimant.reportId);
    });
  }

  /**
   * Hands the free slots of `keys` (and of the other keys their waiting jobs need) to the
   * waiting jobs in the fair order. Runs under the target-slots lock. Returns the reports
   * granted, with the job that will offer each of them again.
   */
  private async grantWaiting(
    tx: Transaction,
    keys: readonly string[],
    limitOf: (key: string) => number,
  ): Promise<Map<string, string | null>> {
    await tx`delete from target_waits where expires_at < now()`;
    // The jobs waiting for any of these keys, and the jobs waiting for any key those need, each
    // with every key it needs: the grant sees every job that competes for those slots.
    const waiting = async (targets: readonly string[]) => {
      const rows = await tx<
        { target: string; report_id: string; account_id: string; since: Date; job_id: string | null }[]
      >`
        select target, report_id, account_id, since, job_id from target_waits
        where report_id in (select report_id from target_waits where target in ${tx(targets as string[])})`;
      return { rows, keys: [...new Set([...targets, ...rows.map((row) => row.target)])].sort() };
    };
    const { rows } = await waiting((await waiting(keys)).keys);
    if (rows.length === 0) return new Map();
    // A place whose report ended (cancelled, failed in the queue, finished by another attempt)
    // is dropped; one whose report row is gone (a failed synchronous call's) lapses on its own.
    const ids = [...new Set(rows.map((row) => row.report_id))];
    const ended = new Set(
      (
        await tx<{ id: string }[]>`
          select id from reports where id in ${tx(ids)} and status not in ('queued', 'running')`
      ).map((row) => row.id),
    );
    const live = new Set(ids.filter((id) => !ended.has(id)));
    const gone = [...ended];
    if (gone.length > 0) await tx`delete from target_waits where report_id in ${tx(gone)}`;
    const waiters = new Map<string, Waiter & { keys: string[] }>();
    for (const row of rows) {
      if (!live.has(row.report_id)) continue;
      const waiter = waiters.get(row.report_id) ?? {
        reportId: row.report_id,
        accountId: row.account_id,
        since: row.since,
        keys: [],
      };
      waiter.keys.push(row.target);
      waiters.set(row.report_id, waiter);
    }
    if (waiters.size === 0) return new Map();
    const allKeys = [...new Set([...waiters.values()].flatMap((waiter) => waiter.keys))].sort();
    await tx`delete from host_slots where host in ${tx(allKeys)} and expires_at < now()`;
    const held = await tx<{ host: string; slot: number; account_id: string | null }[]>`
      select host, slot, account_id from host_slots where host in ${tx(allKeys)}`;
    const grants = fairGrants(
      [...waiters.values()],
      held.map((row): HeldSlot => ({ key: row.host, slot: row.slot, accountId: row.account_id })),
      limitOf,
    );
    for (const grant of grants) {
      for (const { key, slot } of grant.slots) {
        await tx`
          insert into host_slots (host, slot, report_id, account_id, expires_at)
          values (${key}, ${slot}, ${grant.reportId}, ${grant.accountId}, now() + ${this.holdMs} * interval '1 millisecond')`;
      }
    }
    if (grants.length > 0)
      await tx`delete from target_waits where report_id in ${tx(grants.map((grant) => grant.reportId))}`;
    const jobOf = new Map(rows.map((row) => [row.report_id, row.job_id]));
    return new Map(grants.map((grant) => [grant.reportId, jobOf.get(grant.reportId) ?? null]));
  }

  /**
   * The number of the slot the report holds of each of `keys`: each number carries a share of
   * the target's requests per second (pace-shares.ts).
   */
  async slotNumbers(keys: readonly string[], reportId: string): Promise<Map<string, number>> {
    if (keys.length === 0) return new Map();
    const rows = await this.sql<{ host: string; slot: number }[]>`
      select host, slot from host_slots where host in ${this.sql(keys as string[])} and report_id = ${reportId}`;
    return new Map(rows.map((row) => [row.host, row.slot]));
  }

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
   * expired slots): the per-target pace's window (target-limits.ts).
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
