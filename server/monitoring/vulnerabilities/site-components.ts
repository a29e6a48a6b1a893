/**
 * site_components: the components (core, themes, plugins, with their versions) of each site's
 * latest completed report — what a new advisory is matched against, without a crawl. Kept by
 * a listener on the reports' outcomes (reports/report-outcomes.ts), so the rows change in the
 * transaction that stores the report. Migration 0016 filled it from the reports before it.
 *
 * A site is an account's normalised site key and environment ("" for none), as the portfolio
 * groups reports (portfolio.store.ts); its id is platform/ids.ts `siteId`.
 */
import type { Queryable } from "../../platform/db/database.ts";
import { componentsOf } from "../../portfolio/components.ts";
import type { ReportOutcome } from "../../reports/report-outcomes.ts";

export interface SiteComponentRow {
  component_type: "core" | "plugin" | "theme";
  /** Lower case: advisories name components by lower-case slug, as the reports' lookups do. */
  slug: string;
  name: string | null;
  version: string | null;
  /** Advisory ids and CVEs the report already listed for it: not news to the site. */
  known_advisories: string[];
}

/** A report's components as site_components holds them: core, themes, plugins, each once. */
export function siteComponentsOf(report: ReportOutcome["report"]): SiteComponentRow[] {
  const rows = new Map<string, SiteComponentRow>();
  for (const component of componentsOf(report)) {
    const slug = component.slug.toLowerCase();
    const key = `${component.type}:${slug}`;
    if (rows.has(key)) continue;
    const known = new Set<string>();
    for (const vulnerability of component.vulnerabilities) {
      known.add(vulnerability.id);
      for (const cve of vulnerability.cve) known.add(cve);
    }
    rows.set(key, {
      component_type: component.type,
      slug,
      name: component.name,
      version: component.version,
      known_advisories: [...known],
    });
  }
  return [...rows.values()];
}

/** The reports' outcome listener: a completed report becomes its site's components, unless a newer one already is. */
export function siteComponentsListener() {
  return async (tx: Queryable, outcome: ReportOutcome): Promise<void> => {
    const { accountId, report, monitorId } = outcome;
    if (report.status !== "completed") return;
    const [stored] = await tx<{ site_key: string; env: string; created_at: Date }[]>`
      select site_key, coalesce(environment, '') as env, created_at from reports where id = ${report.id}`;
    if (!stored) return;
    // Two reports of one site finishing at once (an Action matrix, a monitor's run beside an API
    // call) take turns here: without it the second's delete misses the first's fresh rows and its
    // insert collides with them. Held to the end of the storing transaction.
    await tx`select pg_advisory_xact_lock(hashtext(${`wpreport:site-components:${accountId}:${stored.site_key}:${stored.env}`}))`;
    // Reports may finish out of order: the newest completed one describes the site.
    const [newer] = await tx`
      select 1 from reports
      where account_id = ${accountId} and site_key = ${stored.site_key}
        and coalesce(environment, '') = ${stored.env} and status = 'completed'
        and (created_at, id) > (${stored.created_at}::timestamptz, ${report.id})
      limit 1`;
    if (newer) return;
    await tx`
      delete from site_components
      where account_id = ${accountId} and site_key = ${stored.site_key} and environment = ${stored.env}`;
    const rows = siteComponentsOf(report).map((component) => ({
      account_id: accountId,
      site_key: stored.site_key,
      environment: stored.env,
      url: report.url,
      report_id: report.id,
      report_created_at: stored.created_at,
      monitor_id: monitorId,
      ...component,
    }));
    if (rows.length > 0) await tx`insert into site_components ${tx(rows as never[])}`;
  };
}
