/**
 * When a report costs a credit (docs/plans.md, "What is charged"): once, when it has completed,
 * is complete enough to be graded (`billable`), and its client could learn of it
 * (`delivered_at`: a 201, a 202 it can poll, a read by id). Two events bring those together —
 * the worker storing the result, and the API delivering the report — and whichever comes
 * last takes the credit, inside its own transaction. The `charged_at is null` condition on one
 * row makes it once, however the two race or repeat.
 */

import type { QuotaService } from "../billing/quota.service.ts";
import type { Queryable, Sql } from "../platform/db/database.ts";

/** Takes the report's credit if it is due and not taken yet; true when this call took it. Run inside a transaction. */
export async function settleCharge(tx: Queryable, quota: QuotaService, reportId: string): Promise<boolean> {
  const [row] = await tx<{ reservation_id: string | null; account_id: string }[]>`
    update reports set charged_at = now()
    where id = ${reportId} and status = 'completed' and billable
      and delivered_at is not null and charged_at is null
    returning reservation_id, account_id`;
  if (!row) return false;
  // The reservation is normally still held; a report delivered after the sweeper returned it
  // is charged without one.
  const committed = row.reservation_id ? await quota.commit(tx, row.reservation_id) : false;
  if (!committed) await quota.chargeLate(tx, row.account_id);
  return true;
}

/**
 * The client learns of the report now (its 201 or 202 is about to be sent, or it read the
 * report by id): mark it delivered, and charge it if it is completed. Idempotent.
 */
export async function deliverReport(sql: Sql, quota: QuotaService, accountId: string, reportId: string): Promise<void> {
  await sql.begin(async (tx) => {
    const marked = await tx`
      update reports set delivered_at = now()
      where id = ${reportId} and account_id = ${accountId} and delivered_at is null
      returning id`;
    if (marked.length > 0) await settleCharge(tx, quota, reportId);
  });
}
