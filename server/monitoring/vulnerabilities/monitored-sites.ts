/**
 * The one definition of a *monitored* site for vulnerability.found (docs/monitoring.md): the
 * site's latest report, or any of its reports of the last 30 days, was made by a monitor's run
 * (reports.monitor_id). A monitored site is always told; another only when its account
 * subscribed to the event. When monitors have their own table, this fragment becomes a join
 * on it, and nothing else changes.
 */
import type { Queryable } from "../../platform/db/database.ts";

/** How recent a monitor's report must be for its site to count as monitored. */
export const MONITORED_WITHIN_DAYS = 30;

/** A boolean SQL expression over `sc`, a site_components row. */
export function monitoredSite(q: Queryable) {
  return q`(
    sc.monitor_id is not null or exists (
      select 1 from reports r
      where r.account_id = sc.account_id and r.site_key = sc.site_key
        and coalesce(r.environment, '') = sc.environment and r.monitor_id is not null
        and r.created_at > now() - ${MONITORED_WITHIN_DAYS} * interval '1 day'))`;
}
