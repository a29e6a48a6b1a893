/**
 * The client report as one self-contained HTML document: its stylesheet inline, the agency's
 * logo as a data: URL in an <img> (an SVG logo is never inlined as markup: in an <img> it
 * runs no script and loads nothing), charts as SVG of our own. It loads nothing, so it can be
 * saved, mailed or printed as is, and Chromium turns it into the PDF with the network cut.
 *
 * Its Content-Security-Policy allows exactly its own stylesheet (by hash) and data: images:
 * no script, no request. Every text from a site (title, plugin names, messages) goes through
 * Preact, which escapes it, after shared/untrusted-text.ts removed its control and bidi
 * characters (client-report.ts).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { renderToString } from "preact-render-to-string";
import { componentLabel, metricChangeText } from "../../shared/diff-text.ts";
import { LAB_LEVEL_WORDS, labRows } from "../../shared/lab.ts";
import type { Severity } from "../../shared/report.ts";
import {
  checksNotRunText,
  notAllChecked,
  vulnerabilityCountText,
  vulnerabilityCoverageSentence,
} from "../../shared/report-coverage.ts";
import { ScoreChart, trendLabel } from "./charts.tsx";
import type { ClientReportModel } from "./client-report.ts";

const STYLESHEET = readFileSync(new URL("./assets/client-report.css", import.meta.url), "utf8");
const DEFAULT_BRAND_COLOR = "#1f5fd6";

const dateOf = (iso: string | Date) => (typeof iso === "string" ? iso : iso.toISOString()).slice(0, 10);

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

const CHANGE_WORDS: Record<string, string> = {
  added: "added",
  removed: "removed",
  updated: "updated",
  downgraded: "downgraded",
  version_changed: "version changed",
};

function SeverityTag({ severity }: { severity: Severity }) {
  return <span class={`tag sev-${severity}`}>{severity}</span>;
}

function Summary({ model }: { model: ClientReportModel }) {
  const last = model.points.at(-1);
  const reference = model.previous ?? (model.points.length > 1 ? model.points[0] : undefined);
  const change = last && reference ? last.score - reference.score : null;
  const since = model.previous ? "since last month" : "since the start of the month";
  return (
    <section class="summary" aria-label="Summary">
      <div class="grade-box">
        <span class={`grade grade-${last?.grade ?? "none"}`} id="grade">
          {last?.grade ?? "—"}
        </span>
        <span class="grade-caption">Grade</span>
      </div>
      <dl class="facts">
        <div>
          <dt>Score</dt>
          <dd id="score">{last ? `${last.score} / 100` : "—"}</dd>
        </div>
        <div>
          <dt>Change {since}</dt>
          <dd>
            {change === null ? "—" : change === 0 ? "no change" : `${change > 0 ? "+" : "−"}${Math.abs(change)} points`}
            {reference && last && reference.grade !== last.grade ? ` (grade ${reference.grade} → ${last.grade})` : ""}
          </dd>
        </div>
        <div>
          <dt>Checks this month</dt>
          <dd>{model.points.length}</dd>
        </div>
        <div>
          <dt>Open issues</dt>
          <dd id="open-issues-summary">
            {plural(model.openChecks.length, "check")},{" "}
            {vulnerabilityCountText(model.openVulnerabilities.length, model.vulnerabilityCoverage)}
            {checksNotRunText(model.checksNotRun) ? `; ${checksNotRunText(model.checksNotRun)}` : ""}
          </dd>
        </div>
      </dl>
    </section>
  );
}

function Trend({ model }: { model: ClientReportModel }) {
  const points = model.previous ? [model.previous, ...model.points] : model.points;
  return (
    <section aria-labelledby="trend-heading">
      <h2 id="trend-heading">Grade trend</h2>
      <ScoreChart
        points={points}
        id="trend-chart"
        width={680}
        height={200}
        label={`${trendLabel(points, "checks")}${model.previous ? ", the first from the month before" : ""}`}
      />
      <table class="compact">
        <caption>Every check of the site in {model.period.label}</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Score</th>
            <th scope="col">Grade</th>
          </tr>
        </thead>
        <tbody>
          {model.points.map((point) => (
            <tr key={point.report_id}>
              <td>{dateOf(point.created_at)}</td>
              <td>{point.score}</td>
              <td>{point.grade}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/**
 * Core Web Vitals, when the month's last report had a lab run (performance.lab): what a
 * visitor's browser saw, in plain words, with web.dev's levels. Nothing when it had none.
 */
function CoreWebVitals({ model }: { model: ClientReportModel }) {
  const lab = model.last.performance?.lab;
  if (!lab) return null;
  if (lab.status !== "complete" || !lab.metrics) {
    return (
      <section aria-labelledby="cwv-heading">
        <h2 id="cwv-heading">Core Web Vitals</h2>
        <p class="muted">The page could not be measured in a browser on the last check ({lab.reason ?? lab.status}).</p>
      </section>
    );
  }
  const rows = labRows(lab.metrics).filter((row) => row.level !== null);
  return (
    <section aria-labelledby="cwv-heading">
      <h2 id="cwv-heading">Core Web Vitals</h2>
      <p class="muted">
        The homepage loaded in a browser on {dateOf(model.last.created_at)}, as a{" "}
        {lab.device === "mobile" ? "mid-range phone on a slow mobile network" : "desktop computer"} sees it.
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Measure</th>
            <th scope="col">Value</th>
            <th scope="col">Rating</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <td>{row.label}</td>
              <td>{row.value}</td>
              <td>{row.level ? LAB_LEVEL_WORDS[row.level] : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Changes({ model }: { model: ClientReportModel }) {
  if (!model.diff) {
    return (
      <section aria-labelledby="changes-heading">
        <h2 id="changes-heading">What changed</h2>
        <p class="muted">The site was checked once this month: there is nothing to compare it with.</p>
      </section>
    );
  }
  const nothing =
    model.componentChanges.length === 0 && model.metricChanges.length === 0 && model.regressions.length === 0;
  return (
    <section aria-labelledby="changes-heading">
      <h2 id="changes-heading">What changed</h2>
      <p class="muted">
        Between the first check of the month ({dateOf(model.first.created_at)}) and the last (
        {dateOf(model.last.created_at)}).
      </p>
      {nothing ? <p>Nothing that we measure changed.</p> : null}
      {model.componentChanges.length > 0 ? (
        <>
          <h3>Software</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">Component</th>
                <th scope="col">Change</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {model.componentChanges.map((change) => (
                <tr key={`${change.type}:${change.slug}`}>
                  <td>
                    {change.type === "core" ? "WordPress" : (change.name ?? change.slug)}{" "}
                    <span class="muted">({change.type === "core" ? "core" : `${change.type} ${change.slug}`})</span>
                  </td>
                  <td>{CHANGE_WORDS[change.change] ?? change.change}</td>
                  <td>{change.before ?? "—"}</td>
                  <td>{change.after ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {model.metricChanges.length > 0 ? (
        <>
          <h3>Measurements</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">Measure</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {model.metricChanges.map((metric) => {
                const text = metricChangeText(metric);
                return (
                  <tr key={metric.metric}>
                    <td>{metric.label}</td>
                    <td>{text.before}</td>
                    <td>{text.after}</td>
                    <td class={metric.direction === "better" ? "better" : "worse"}>
                      {text.change} ({metric.direction})
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      ) : null}
      {model.regressions.length > 0 ? (
        <>
          <h3>Got worse</h3>
          <ul class="issues">
            {model.regressions.map((change) => (
              <li key={change.id} class="issue">
                <SeverityTag severity={change.severity} /> <strong>{change.title}</strong>
                <p>{change.message}</p>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function Fixed({ model }: { model: ClientReportModel }) {
  const none = model.fixedChecks.length === 0 && model.fixedVulnerabilities.length === 0;
  return (
    <section aria-labelledby="fixed-heading">
      <h2 id="fixed-heading">What was fixed</h2>
      {none ? (
        <p class="muted">
          {model.diff ? "No issue was fixed this month." : "One check this month: fixes show from the second on."}
        </p>
      ) : null}
      {model.fixedChecks.length > 0 ? (
        <ul class="issues">
          {model.fixedChecks.map((change) => (
            <li key={change.id} class="issue fixed">
              <SeverityTag severity={change.severity} /> <strong>{change.title}</strong>
            </li>
          ))}
        </ul>
      ) : null}
      {model.fixedVulnerabilities.length > 0 ? (
        <>
          <h3>Vulnerabilities no longer present</h3>
          <ul class="issues">
            {model.fixedVulnerabilities.map((change) => (
              <li key={`${change.component}#${change.vulnerability.id}`} class="issue fixed">
                <SeverityTag severity={change.vulnerability.severity} />{" "}
                <strong>
                  {componentLabel(change.component_type, change.slug)} {change.version ?? ""}
                </strong>
                : {change.vulnerability.title}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

/** Low and info findings are listed compactly, after the ones that matter. */
const MINOR: readonly Severity[] = ["low", "info"];

function Open({ model }: { model: ClientReportModel }) {
  const major = model.openChecks.filter((check) => !MINOR.includes(check.severity));
  const minor = model.openChecks.filter((check) => MINOR.includes(check.severity));
  // "Nothing is open" is true only of what was checked: say what was not.
  const gaps = notAllChecked(model.vulnerabilityCoverage, model.checksNotRun);
  const coverageSentence = vulnerabilityCoverageSentence(model.vulnerabilityCoverage);
  return (
    <section class="page-break" aria-labelledby="open-heading" id="open-issues">
      <h2 id="open-heading">Open issues and how to fix them</h2>
      <p class="muted">As of the last check of the month, {dateOf(model.last.created_at)}, most important first.</p>
      {model.openVulnerabilities.length === 0 && model.openChecks.length === 0 && !gaps ? (
        <p>Nothing is open: every check passes.</p>
      ) : null}
      {model.openVulnerabilities.length === 0 && model.openChecks.length === 0 && gaps ? (
        <p>No check that ran found an issue, but not everything could be checked (below).</p>
      ) : null}
      {coverageSentence ? (
        <p class="not-checked" id="vulnerability-coverage">
          <strong>{coverageSentence}</strong>
        </p>
      ) : null}
      {model.notChecked.length > 0 || model.checksNotRun > 0 ? (
        <>
          <h3>Checks that could not run</h3>
          <p class="muted">
            {checksNotRunText(Math.max(model.checksNotRun, model.notChecked.length))}: the site did not let them see
            what they check, so they are neither passes nor failures.
          </p>
          {model.notChecked.length > 0 ? (
            <ul class="issues" id="not-checked">
              {model.notChecked.map((entry) => (
                <li key={entry.check} class="issue">
                  <strong>{entry.title}</strong>: {entry.reason}
                </li>
              ))}
            </ul>
          ) : null}
        </>
      ) : null}
      {model.openVulnerabilities.length > 0 ? (
        <>
          <h3>Known vulnerabilities</h3>
          <ul class="issues">
            {model.openVulnerabilities.map((open) => (
              <li key={`${open.component.type}:${open.component.slug}#${open.vulnerability.id}`} class="issue">
                <SeverityTag severity={open.vulnerability.severity} />{" "}
                <strong>
                  {open.component.type === "core" ? "WordPress" : (open.component.name ?? open.component.slug)}{" "}
                  {open.component.version ?? ""}
                </strong>
                : {open.vulnerability.title}
                {open.vulnerability.cve.length > 0 ? ` (${open.vulnerability.cve.join(", ")})` : ""}
                <p class="fix">
                  <span class="fix-label">Fix:</span> {open.fix}.
                </p>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {major.length > 0 ? (
        <>
          <h3>Checks that do not pass</h3>
          <ul class="issues">
            {major.map((check) => (
              <li key={check.id} class="issue">
                <SeverityTag severity={check.severity} /> <strong>{check.fail_title ?? check.title}</strong>
                <p>{check.message}</p>
                <p class="fix">
                  <span class="fix-label">Fix:</span> {check.remediation}
                </p>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {minor.length > 0 ? (
        <>
          <h3>Minor points</h3>
          <table class="minor">
            <thead>
              <tr>
                <th scope="col">Issue</th>
                <th scope="col">Fix</th>
              </tr>
            </thead>
            <tbody>
              {minor.map((check) => (
                <tr key={check.id}>
                  <td>
                    <SeverityTag severity={check.severity} /> {check.fail_title ?? check.title}
                  </td>
                  <td>{check.remediation}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}

function ClientReportDocument({ model, css }: { model: ClientReportModel; css: string }) {
  const { branding, site, period } = model;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light" />
        <meta name="robots" content="noindex" />
        <title>{`Website report — ${site.site} — ${period.label}`}</title>
        {/* Ours, verbatim (Preact would escape a text child): the CSP names its exact hash. */}
        <style dangerouslySetInnerHTML={{ __html: css }} />
      </head>
      <body>
        <header class="cover">
          <div class="brand">
            {branding.logo ? (
              <img class="logo" src={branding.logo} alt={branding.name ? `${branding.name} logo` : "Logo"} />
            ) : null}
            {branding.name ? (
              <p class="agency" id="agency">
                {branding.name}
              </p>
            ) : null}
          </div>
          <h1>
            Website report <span class="site-name">{site.site}</span>
          </h1>
          <p class="subtitle">
            {period.label}
            {site.environment ? ` · ${site.environment}` : ""} · <span class="url">{site.url}</span>
          </p>
          {site.title ? <p class="site-title">{site.title}</p> : null}
        </header>
        <main>
          <Summary model={model} />
          <CoreWebVitals model={model} />
          <Trend model={model} />
          <Changes model={model} />
          <Fixed model={model} />
          <Open model={model} />
        </main>
        <footer>
          <p>
            Prepared {dateOf(model.generatedAt)}
            {branding.name ? ` by ${branding.name}` : ""} from automated checks of the public site.
          </p>
          {model.sources.map((source) => (
            <p key={source.id} class="attribution">
              {source.name}: {source.attribution}
            </p>
          ))}
        </footer>
      </body>
    </html>
  );
}

/** The CSP source of an inline stylesheet: its SHA-256, base64. */
function styleHash(css: string): string {
  return `'sha256-${createHash("sha256").update(css, "utf8").digest("base64")}'`;
}

/**
 * The document and the Content-Security-Policy to send it with. The brand colour (checked
 * to be #rrggbb by the branding service) is the one value of the stylesheet that varies, so
 * the hash is computed per document.
 */
export function renderClientReport(model: ClientReportModel): { html: string; csp: string } {
  const color = /^#[0-9a-f]{6}$/i.test(model.branding.color ?? "") ? model.branding.color : DEFAULT_BRAND_COLOR;
  const css = `:root{--brand:${color};}\n${STYLESHEET}`;
  // A "</style" would end the element early; the stylesheet is ours and has none.
  if (/<\/style/i.test(css)) throw new Error("the client report stylesheet must not contain </style");
  const html = `<!doctype html>${renderToString(<ClientReportDocument model={model} css={css} />)}`;
  const csp = [
    "default-src 'none'",
    `style-src ${styleHash(css)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return { html, csp };
}
