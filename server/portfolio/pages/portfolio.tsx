/**
 * The portfolio page: every site with its grade badge, a sparkline of its last 10 scores
 * (server-rendered SVG, no JavaScript), its open vulnerabilities and its monitor; a search by
 * site and a search by component ("which of my sites run plugin X"); the CSV download.
 */
import type { ComponentSites, SiteList, SiteSummary } from "../../../shared/portfolio-api.ts";
import {
  checksNotRunText,
  NOT_CHECKED_INCOMPLETE,
  NOT_CHECKED_NO_DATA,
  NOT_CHECKED_NO_REPORT,
  vulnerabilityCountText,
} from "../../../shared/report-coverage.ts";
import { formatDate, GradeBadge, Table } from "../../web/pages/common.tsx";
import { Sparkline, trendLabel } from "../charts.tsx";

export interface ComponentSearch {
  slug: string;
  type: "" | "plugin" | "theme" | "core";
}

/**
 * The open vulnerabilities of the newest completed report: "none" only when a source checked
 * every component; otherwise what was not checked, in the words every view uses.
 */
function Vulnerabilities({ site }: { site: SiteSummary }) {
  const counts = site.vulnerabilities;
  if (!site.latest) {
    return (
      <span class="not-checked">{site.last_report.incomplete ? NOT_CHECKED_INCOMPLETE : NOT_CHECKED_NO_REPORT}</span>
    );
  }
  const coverage = { status: site.vulnerability_data, unchecked: site.vulnerabilities_unchecked };
  const gap =
    site.vulnerability_data === "complete" ? null : (
      <span class="small not-checked" data-vulnerability-data={site.vulnerability_data}>
        {vulnerabilityCountText(0, coverage)}
      </span>
    );
  if (counts.total === 0) return gap ?? <span class="muted">none</span>;
  const worst = counts.critical > 0 ? "critical" : counts.high > 0 ? "high" : counts.medium > 0 ? "medium" : "low";
  return (
    <span>
      <span class={`badge sev-${worst}`}>
        {counts.total}
        {counts.critical + counts.high > 0 ? ` · ${counts.critical + counts.high} critical or high` : ""}
      </span>
      {gap ? <div>{gap}</div> : null}
    </span>
  );
}

/** The grade, or why there is none; and the checks of the newest report that could not run. */
function Grade({ site }: { site: SiteSummary }) {
  const notRun = checksNotRunText(site.latest?.not_checked ?? 0);
  const newerIncomplete = site.last_report.incomplete && site.last_report.id !== site.latest?.report_id;
  return (
    <span>
      {site.latest ? (
        <GradeBadge grade={site.latest.grade} score={site.latest.score} />
      ) : site.last_report.incomplete ? (
        <span class="not-checked">incomplete: not graded</span>
      ) : (
        site.last_report.status
      )}
      {notRun ? <div class="small not-checked">{notRun}</div> : null}
      {site.latest && newerIncomplete ? (
        <div class="small not-checked">newest report incomplete: not graded</div>
      ) : null}
    </span>
  );
}

function Monitor({ site }: { site: SiteSummary }) {
  if (!site.monitor) return <span class="muted">not monitored</span>;
  return (
    <span>
      {site.monitor.paused ? "paused" : site.monitor.schedule}
      {site.monitor.next_run_at && !site.monitor.paused ? (
        <span class="small muted"> · next {formatDate(site.monitor.next_run_at)}</span>
      ) : null}
    </span>
  );
}

function SiteName({ site }: { site: { id: string; site: string; environment: string | null } }) {
  return (
    <span>
      <a href={`/sites/${site.id}`} class="mono">
        {site.site}
      </a>
      {site.environment ? <span class="badge env">{site.environment}</span> : null}
    </span>
  );
}

function SiteRows({ sites }: { sites: SiteSummary[] }) {
  return (
    <>
      {sites.map((site) => (
        <tr key={site.id}>
          <td data-label="Site">
            <div>
              <SiteName site={site} />
              {site.title ? <div class="small muted">{site.title}</div> : null}
            </div>
          </td>
          <td data-label="Grade">
            <Grade site={site} />
          </td>
          <td data-label="Trend">
            <Sparkline points={site.trend} label={`${site.site}: ${trendLabel(site.trend)}`} />
          </td>
          <td data-label="Vulnerabilities">
            <Vulnerabilities site={site} />
          </td>
          <td data-label="Last report" class="hide-sm">
            <a href={`/reports/${site.last_report.id}`}>{formatDate(site.last_report.created_at)}</a>
          </td>
          <td data-label="Monitor">
            <Monitor site={site} />
          </td>
        </tr>
      ))}
    </>
  );
}

function ComponentResults({ search, results }: { search: ComponentSearch; results: ComponentSites }) {
  const what = search.type ? `${search.type} ${search.slug}` : search.slug;
  return (
    <section aria-labelledby="component-results-heading" class="stack">
      <h2 id="component-results-heading">Sites running {what}</h2>
      {results.data.length === 0 ? (
        <p class="muted" id="component-none">
          No site's newest report found {what}.
        </p>
      ) : (
        <Table caption={`Sites running ${what}`} head={["Site", "Component", "Version", "Latest", "Vulnerable"]} stack>
          {results.data.map((row) => (
            <tr key={`${row.site.id}:${row.type}`}>
              <td data-label="Site">
                <SiteName site={row.site} />
              </td>
              <td data-label="Component">
                <span>
                  {row.name ?? row.slug} <span class="small muted">({row.type})</span>
                </span>
              </td>
              <td data-label="Version">{row.version ?? "unknown"}</td>
              <td data-label="Latest">
                <span>
                  {row.latest_version ?? "—"}
                  {row.outdated ? <span class="small muted"> (outdated)</span> : null}
                </span>
              </td>
              <td data-label="Vulnerable">
                {row.vulnerable ? (
                  <span class="badge sev-high">{`yes · ${row.vulnerabilities.length}`}</span>
                ) : row.vulnerabilities_checked ? (
                  <span class="badge st-pass">no</span>
                ) : (
                  <span class="not-checked">{NOT_CHECKED_NO_DATA}</span>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

export function PortfolioPage({
  sites,
  search,
  component,
  componentResults,
  nextHref,
}: {
  sites: SiteList;
  search: string;
  component: ComponentSearch;
  componentResults: ComponentSites | undefined;
  nextHref: string | undefined;
}) {
  return (
    <div class="stack">
      <h1>Portfolio</h1>
      <p>
        Every site you have reports of, by site and environment. <a href="/portfolio.csv">Download as CSV</a> ·{" "}
        <a href="/settings/branding">Client report branding</a>
      </p>
      <div class="grid">
        <search aria-label="Find a site">
          <form method="get" action="/portfolio" class="card">
            <div class="row">
              <div class="field">
                <label for="q">Site</label>
                <input id="q" name="q" type="search" value={search} placeholder="example.com" />
              </div>
              <div>
                <button type="submit">Filter</button>
              </div>
            </div>
          </form>
        </search>
        <search aria-label="Find sites by component">
          <form method="get" action="/portfolio" class="card">
            <div class="row">
              <div class="field">
                <label for="component">Plugin, theme or core</label>
                <input
                  id="component"
                  name="component"
                  type="search"
                  value={component.slug}
                  placeholder="akismet"
                  maxLength={200}
                />
              </div>
              <div class="field narrow-field">
                <label for="component-type">Type</label>
                <select id="component-type" name="type">
                  {(["", "plugin", "theme", "core"] as const).map((value) => (
                    <option value={value} selected={component.type === value} key={value}>
                      {value === "" ? "Any" : value}
                    </option>
                  ))}
                </select>
              </div>
              <div>
                <button type="submit">Find sites</button>
              </div>
            </div>
          </form>
        </search>
      </div>
      {componentResults ? <ComponentResults search={component} results={componentResults} /> : null}
      <section aria-labelledby="sites-heading" class="stack">
        <h2 id="sites-heading">Sites</h2>
        {sites.data.length === 0 ? (
          <p class="muted">
            {search ? "No site matches." : "No sites yet: analyze a site from the dashboard or with the API."}
          </p>
        ) : (
          <Table
            caption="Sites"
            head={["Site", "Grade", "Trend", "Vulnerabilities", { label: "Last report", class: "hide-sm" }, "Monitor"]}
            stack
          >
            <SiteRows sites={sites.data} />
          </Table>
        )}
        {nextHref ? (
          <p>
            <a href={nextHref}>More sites →</a>
          </p>
        ) : null}
      </section>
    </div>
  );
}
