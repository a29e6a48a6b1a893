/**
 * The one definition of a *monitored* site for vulnerability.found (docs/monitoring.md): a
 * monitor of the account watches it — same site key and environment —, active or paused (a
 * paused monitor stops the scans, which cost credits, not the alerts, which cost nothing). A
 * monitored site is always told; another only when its account subscribed to the event.
 */
import type { Queryable } from "../../platform/db/database.ts";

/** A boolean SQL expression over `sc`, a site_components row. */
export function monitoredSite(q: Queryable) {
  return q`exists (
    select 1 from monitors m
    where m.account_id = sc.account_id and m.site_key = sc.site_key
      and coalesce(m.environment, '') = sc.environment)`;
}
