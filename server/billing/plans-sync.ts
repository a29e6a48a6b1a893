import type { Sql } from "../platform/db/database.ts";
import { PLANS } from "./plans.ts";

/** Writes the catalogue into the `plans` table (idempotent; safe from several instances). */
export async function syncPlans(sql: Sql): Promise<void> {
  const rows = PLANS.map((plan, index) => ({
    id: plan.id,
    name: plan.name,
    price_eur_cents: plan.priceEurCents,
    monthly_quota: plan.monthlyQuota,
    requests_per_minute: plan.requestsPerMinute,
    sort_order: index,
  }));
  await sql`
    insert into plans ${sql(rows)}
    on conflict (id) do update set
      name = excluded.name,
      price_eur_cents = excluded.price_eur_cents,
      monthly_quota = excluded.monthly_quota,
      requests_per_minute = excluded.requests_per_minute,
      sort_order = excluded.sort_order
    where (plans.name, plans.price_eur_cents, plans.monthly_quota, plans.requests_per_minute, plans.sort_order)
      is distinct from
      (excluded.name, excluded.price_eur_cents, excluded.monthly_quota, excluded.requests_per_minute, excluded.sort_order)`;
}
