/**
 * One site: its grade now, the score history as a chart (SVG, with the same numbers in a
 * table), the client report of a month, the open vulnerabilities with their fixes, the
 * components of its newest report and its reports.
 */
import type { SiteDetail } from "../../../shared/portfolio-api.ts";
import {
  checksNotRunText,
  NOT_CHECKED_NO_DATA,
  vulnerabilityCountText,
  vulnerabilityCoverageSentence,
} from "../../../shared/report-coverage.ts";
import { REPORT_HEAD, ReportRows } from "../../reports/pages/dashboard.tsx";
import { formatDate, Table } from "../../web/pages/common.tsx";
import {
  LAB_CHART_METRICS,
  LabChart,
  type LabChartMetric,
  labSeries,
  labValueText,
  ScoreChart,
  trendLabel,
} from "../charts.tsx";

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

function ClientReportForm({ site, pdf }: { site: SiteDetail; pdf: boolean }) {
  if (site.client_report_periods.length === 0) {
    return <p class="muted">A client report covers a month with a completed report; this site has none yet.</p>;
  }
  return (
    <form method="get" action={`/sites/${site.id}/client-report`} class="card">
      <div class="row">
        <div class="field">
          <label for="period">Month</label>
          <select id="period" name="period">
            {site.client_report_periods.map((period) => (
              <option value={period} key={period}>
                {period}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit" name="format" value="html">
            View report
          </button>
        </div>
        {pdf ? (
          <div>
            <button type="submit" name="format" value="pdf" class="secondary">
              Download PDF
            </button>
          </div>
        ) : null}
      </div>
      <p class="small muted">
        White-label: it shows your agency's name and logo (<a href="/settings/branding">branding settings</a>), not
        ours.{pdf ? "" : " To get a PDF, print the report from your browser."}
      </p>
    </form>
  );
}

export function SitePage({ site, pdf }: { site: SiteDetail; pdf: boolean }) {
  const history = site.history;
  // What the newest completed report did not check, said beside what it found.
  const coverage = { status: site.vulnerability_data, unchecked: site.vulnerabilities_unchecked };
  const coverageSentence = site.latest ? vulnerabilityCoverageSentence(coverage) : null;
  const notRun = checksNotRunText(site.latest?.not_checked ?? 0);
  return (
    <div class="stack">
      <p class="small">
        <a href="/portfolio">← Portfolio</a>
      </p>
      <h1>
        <span class="mono">{site.site}</span>
        {site.environment ? <span class="badge env">{site.environment}</span> : null}
      </h1>
      <p class="muted">
        <span class="mono">{site.url}</span>
        {site.title ? ` · ${site.title}` : ""}
      </p>
      <section class="card score-card" aria-label="Now">
        {site.latest ? (
          <>
            <span class={`grade grade-${site.latest.grade}`} id="site-grade">
              {site.latest.grade}
            </span>
            <div>
              <p>
                Score <strong>{site.latest.score}</strong>
                {site.score_change !== null
                  ? ` (${site.score_change >= 0 ? "+" : "−"}${Math.abs(site.score_change)} over the last ${site.trend.length} reports)`
                  : ""}
                , {plural(site.latest.failed_checks.total, "failing check")}
                {notRun ? <span class="not-checked">, {notRun}</span> : null},{" "}
                <span
                  id="site-vulnerabilities"
                  class={site.vulnerability_data === "complete" ? undefined : "not-checked"}
                  data-vulnerability-data={site.vulnerability_data}
                >
                  {vulnerabilityCountText(site.vulnerabilities.total, coverage)}
                </span>
                .
              </p>
              <p class="small muted">
                Newest completed report:{" "}
                <a href={`/reports/${site.latest.report_id}`}>{formatDate(site.latest.completed_at)}</a>
                {" · "}
                {site.monitor
                  ? `monitored (${site.monitor.paused ? "paused" : site.monitor.schedule})`
                  : "not monitored"}
              </p>
            </div>
          </>
        ) : (
          <p>No report of this site has completed yet.</p>
        )}
      </section>
      <section aria-labelledby="history-heading" class="stack">
        <h2 id="history-heading">Score history</h2>
        <div class="card chart-card">
          <ScoreChart points={history} label={`Score history: ${trendLabel(history)}`} />
        </div>
        {history.length > 0 ? (
          <details>
            <summary>The scores as a table</summary>
            <Table caption="Score history" head={["Date", "Score", "Grade"]}>
              {[...history].reverse().map((point) => (
                <tr key={point.report_id}>
                  <td>
                    <a href={`/reports/${point.report_id}`}>{formatDate(point.created_at)}</a>
                  </td>
                  <td>{point.score}</td>
                  <td>{point.grade}</td>
                </tr>
              ))}
            </Table>
          </details>
        ) : null}
      </section>
      <LabHistory history={history} />
      <section aria-labelledby="client-report-heading" class="stack">
        <h2 id="client-report-heading">Client report</h2>
        <ClientReportForm site={site} pdf={pdf} />
      </section>
      <section aria-labelledby="vulnerabilities-heading" class="stack">
        <h2 id="vulnerabilities-heading">Open vulnerabilities</h2>
        {coverageSentence ? (
          <p class="alert warning" role="status" id="vulnerability-coverage" data-status={site.vulnerability_data}>
            {coverageSentence}
          </p>
        ) : null}
        {site.open_vulnerabilities.length === 0 ? (
          coverageSentence ? null : (
            <p class="muted">None known in the newest completed report.</p>
          )
        ) : (
          <Table caption="Open vulnerabilities" head={["Severity", "Component", "Vulnerability", "Fix"]} stack>
            {site.open_vulnerabilities.map((open) => (
              <tr key={`${open.component.type}:${open.component.slug}#${open.vulnerability.id}`}>
                <td data-label="Severity">
                  <span class={`badge sev-${open.vulnerability.severity}`}>{open.vulnerability.severity}</span>
                </td>
                <td data-label="Component">
                  <span>
                    {open.component.name ?? open.component.slug} {open.component.version ?? ""}
                  </span>
                </td>
                <td data-label="Vulnerability">{open.vulnerability.title}</td>
                <td data-label="Fix">{open.fix}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      <section aria-labelledby="components-heading" class="stack">
        <h2 id="components-heading">Components</h2>
        {site.components.length === 0 ? (
          <p class="muted">None found in the newest completed report.</p>
        ) : (
          <Table caption="Components" head={["Component", "Type", "Version", "Latest"]} stack>
            {site.components.map((component) => (
              <tr key={`${component.type}:${component.slug}`}>
                <td data-label="Component">
                  <span>
                    <a href={`/portfolio?component=${encodeURIComponent(component.slug)}&type=${component.type}`}>
                      {component.name ?? component.slug}
                    </a>{" "}
                    <span class="small muted mono">{component.slug}</span>
                    {component.vulnerabilities_checked ? null : (
                      <span class="small not-checked" data-not-checked={`${component.type}:${component.slug}`}>
                        {" "}
                        · vulnerabilities {NOT_CHECKED_NO_DATA}
                      </span>
                    )}
                  </span>
                </td>
                <td data-label="Type">{component.type}</td>
                <td data-label="Version">{component.version ?? "unknown"}</td>
                <td data-label="Latest">
                  <span>
                    {component.latest_version ?? "—"}
                    {component.outdated ? <span class="small muted"> (outdated)</span> : null}
                  </span>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      <section aria-labelledby="reports-heading" class="stack">
        <h2 id="reports-heading">Reports</h2>
        <Table caption="Reports of this site" head={REPORT_HEAD}>
          <ReportRows reports={site.reports} />
        </Table>
        {site.report_count > site.reports.length ? (
          <p class="small muted">
            The {site.reports.length} newest of {site.report_count}.
          </p>
        ) : null}
      </section>
    </div>
  );
}

/**
 * Core Web Vitals over time, beside the score: LCP, CLS and TBT of the site's lab reports
 * ("lab": true), each against web.dev's thresholds, with the numbers as a table. Shown once the
 * history has a lab report; reports without one are left out of these charts, not drawn as 0.
 */
function LabHistory({ history }: { history: SiteDetail["history"] }) {
  const withLab = history.filter((point) => point.lab);
  if (withLab.length === 0) return null;
  const cell = (point: SiteDetail["history"][number], metric: LabChartMetric) => {
    const value = labSeries([point], metric)[0]?.value;
    return value === undefined ? "—" : labValueText(metric, value);
  };
  return (
    <section aria-labelledby="lab-history-heading" class="stack">
      <h2 id="lab-history-heading">Core Web Vitals over time (lab)</h2>
      <p class="muted">
        From the {withLab.length} lab report{withLab.length === 1 ? "" : "s"} among the last {history.length}: the page
        loaded in a browser. The lines mark web.dev's thresholds, good and poor.
      </p>
      {LAB_CHART_METRICS.map(({ key, label }) => (
        <div class="card chart-card" key={key}>
          <h3>{label}</h3>
          <LabChart points={history} metric={key} />
        </div>
      ))}
      <details>
        <summary>The lab metrics as a table</summary>
        <Table caption="Core Web Vitals over time (lab)" head={["Date", "LCP", "CLS", "TBT"]}>
          {[...withLab].reverse().map((point) => (
            <tr key={point.report_id}>
              <td>
                <a href={`/reports/${point.report_id}`}>{formatDate(point.created_at)}</a>
              </td>
              <td>{cell(point, "lcp_ms")}</td>
              <td>{cell(point, "cls")}</td>
              <td>{cell(point, "tbt_ms")}</td>
            </tr>
          ))}
        </Table>
      </details>
    </section>
  );
}
