/**
 * Report credits (docs/plans.md). A credit is *reserved* atomically before an analysis, then
 * *committed* in the same transaction that stores the report, or *released* if the
 * analysis fails. Reservations carry an expiry past the analysis deadline; the sweeper
 * releases the ones a crashed process left behind, so a crash never costs a credit.
 *
 * Atomicity comes from one conditional UPDATE (`used + reserved < quota`): PostgreSQL
 * serialises concurrent updates of the account's usage row and re-checks the condition on
 * the newest version, so k credits left means exactly k successful reservations.
 */
import type { Queryable, Sql } from "../platform/db/database.ts";
import { newId } from "../platform/ids.ts";
import { type QuotaPeriod, quotaPeriod } from "../platform/quota-period.ts";

export interface Reservation {
  id: string;
  period: QuotaPeriod;
}

export interface UsageSnapshot {
  period: QuotaPeriod;
  quota: number;
  used: number;
  reserved: number;
  remaining: number;
}

/**
 * Extra time a reservation outlives the analysis deadline before the sweeper may free it.
 * The analysis itself is aborted at the deadline; this only covers storing the report.
 */
export const RESERVATION_GRACE_MS = 5_000;

export class QuotaService {
  constructor(private readonly sql: Sql) {}

  /**
   * Holds one credit, or returns undefined when the quota is used up. The hold lasts `holdMs`
   * before the sweeper may release it: the deadlines of the report it pays for (reports/deadlines.ts).
   */
  async reserve(accountId: string, holdMs: number, now = new Date()): Promise<Reservation | undefined> {
    const period = quotaPeriod(now);
    const id = newId("res");
    await this.sql`
      insert into usage_periods (account_id, period_start) values (${accountId}, ${period.key})
      on conflict do nothing`;
    const rows = await this.sql`
      with held as (
        update usage_periods u set reserved = u.reserved + 1
        from accounts a join plans p on p.id = a.plan_id
        where u.account_id = ${accountId} and u.period_start = ${period.key}
          and a.id = u.account_id
          and u.used + u.reserved < p.monthly_quota
        returning u.account_id, u.period_start
      )
      insert into credit_reservations (id, account_id, period_start, expires_at)
      select ${id}, account_id, period_start, now() + ${holdMs} * interval '1 millisecond' from held
      returning id`;
    return rows.length > 0 ? { id, period } : undefined;
  }

  /**
   * Turns the reservation into a used credit. Call inside the transaction that stores the
   * report. Returns false if the reservation had already been swept (then nothing is charged).
   */
  async commit(tx: Queryable, reservationId: string): Promise<boolean> {
    const rows = await tx`
      with released as (
        delete from credit_reservations where id = ${reservationId}
        returning account_id, period_start
      )
      update usage_periods u set reserved = u.reserved - 1, used = u.used + 1
      from released r
      where u.account_id = r.account_id and u.period_start = r.period_start
      returning u.used`;
    return rows.length > 0;
  }

  /**
   * Charges one credit without a reservation, inside the transaction that marks a report
   * charged: for a report delivered after its reservation was swept (a client that learnt of
   * it late, e.g. by retrying with its Idempotency-Key). The report was admitted within quota
   * when it was made, so this may pass the month's quota by the few reports delivered late.
   */
  async chargeLate(tx: Queryable, accountId: string, now = new Date()): Promise<void> {
    const period = quotaPeriod(now);
    await tx`
      insert into usage_periods (account_id, period_start, used) values (${accountId}, ${period.key}, 1)
      on conflict (account_id, period_start) do update set used = usage_periods.used + 1`;
  }

  /**
   * Gives the credit back (analysis failed, was rejected or cancelled). Idempotent. In `tx`
   * when the report's end is written in the same transaction.
   */
  async release(reservationId: string, tx: Queryable = this.sql): Promise<void> {
    await tx`
      with released as (
        delete from credit_reservations where id = ${reservationId}
        returning account_id, period_start
      )
      update usage_periods u set reserved = u.reserved - 1
      from released r
      where u.account_id = r.account_id and u.period_start = r.period_start`;
  }

  /** Releases every reservation past its expiry (crashed or stuck analyses). */
  async sweepExpired(): Promise<number> {
    const rows = await this.sql<{ n: number }[]>`
      with released as (
        delete from credit_reservations where expires_at < now()
        returning account_id, period_start
      ), counted as (
        select account_id, period_start, count(*)::int as n from released group by 1, 2
      )
      update usage_periods u set reserved = greatest(0, u.reserved - c.n)
      from counted c
      where u.account_id = c.account_id and u.period_start = c.period_start
      returning c.n`;
    return rows.reduce((sum, row) => sum + row.n, 0);
  }

  async usage(accountId: string, monthlyQuota: number, now = new Date()): Promise<UsageSnapshot> {
    const period = quotaPeriod(now);
    const [row] = await this.sql<{ used: number; reserved: number }[]>`
      select used, reserved from usage_periods
      where account_id = ${accountId} and period_start = ${period.key}`;
    return snapshot(period, monthlyQuota, row?.used ?? 0, row?.reserved ?? 0);
  }
}

/** Usage figures from counts already read (e.g. with the token, see Principal.usage). */
export function snapshot(period: QuotaPeriod, quota: number, used: number, reserved: number): UsageSnapshot {
  return { period, quota, used, reserved, remaining: Math.max(0, quota - used - reserved) };
}
