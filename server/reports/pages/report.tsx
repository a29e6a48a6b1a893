/**
 * One report, as a person reads it: grade and scores, what failed (by category, most severe
 * first, each with its fix), the components with their evidence, then the performance, SEO
 * and security facts. Everything here is the report JSON the API returns — nothing else.
 * All site text is rendered as text (Preact escapes it).
 */

import type { ReportListItem } from "../../../shared/api.ts";
import type { Check, Component, Report, Severity, SiteLayout, StackCategory } from "../../../shared/report.ts";
import { CHECK_CATEGORIES, SEVERITIES } from "../../../shared/report.ts";
import {
  checksNotRun,
  checksNotRunText,
  isIncompleteReport,
  NOT_CHECKED_INCOMPLETE,
  NOT_CHECKED_NO_DATA,
  notAllChecked,
  vulnerabilityCoverage,
} from "../../../shared/report-coverage.ts";
import { vulnerabilitiesChecked, vulnerabilityDataNotice } from "../../../shared/vulnerability-data.ts";
import { formatDate, Table } from "../../web/pages/common.tsx";
import { LabSection } from "./lab.tsx";

const CATEGORY_NAMES: Record<string, string> = {
  security: "Security",
  performance: "Performance",
  seo: "SEO",
  components: "Components",
};
const severityOrder = (severity: Severity) => SEVERITIES.indexOf(severity);

function CheckItem({ check }: { check: Check }) {
  return (
    <div class={`check sev-${check.severity}`} id={`check-${check.id}`}>
      <h4>
        <span class={`badge st-${check.status}`}>{check.status}</span>{" "}
        <span class={`badge sev-${check.severity}`}>{check.severity}</span> {check.title}
      </h4>
      <p>{check.message}</p>
      {check.evidence.length > 0 ? (
        <ul class="small">
          {check.evidence.map((line, index) => (
            <li class="mono" key={index}>
              {line}
            </li>
          ))}
        </ul>
      ) : null}
      {check.status === "fail" || check.status === "warn" ? (
        <p class="small">
          <strong>Fix:</strong> {check.remediation}
        </p>
      ) : null}
      <p class="small muted mono">{check.id}</p>
    </div>
  );
}

function Evidence({ component }: { component: Pick<Component, "evidence"> }) {
  if (component.evidence.length === 0) return null;
  return (
    <details>
      <summary class="small">Evidence ({component.evidence.length})</summary>
      <ul class="small">
        {component.evidence.map((item, index) => (
          <li key={index}>
            <span class="muted">{item.source}:</span> <span class="mono">{item.value}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

const SOURCE_NAMES: Record<string, string> = {
  wordfence: "Wordfence Intelligence",
  wpvulnerability: "WPVulnerability",
  file: "the imported intel file",
};
const sourceName = (id: string) => SOURCE_NAMES[id] ?? id;

/** Each known vulnerability with what to do about it: "update akismet to 5.0.3". */
function Vulnerabilities({
  component,
  slug,
  checked = true,
}: {
  component: Pick<Component, "vulnerabilities">;
  slug: string;
  /** False when no vulnerability source checked it: its empty list means unknown. */
  checked?: boolean;
}) {
  const unchecked = checked ? null : (
    <div class="small not-checked" data-not-checked={slug}>
      Vulnerabilities {NOT_CHECKED_NO_DATA}
    </div>
  );
  if (component.vulnerabilities.length === 0) return unchecked;
  return (
    <ul class="small vulnerabilities">
      {component.vulnerabilities.map((vulnerability) => (
        <li key={vulnerability.id} data-vulnerability={vulnerability.id}>
          <span class={`badge sev-${vulnerability.severity}`}>{vulnerability.severity}</span> {vulnerability.title}
          <span class="muted">
            {vulnerability.cvss !== null ? ` · CVSS ${vulnerability.cvss}` : ""}
            {vulnerability.cve.length > 0 ? ` · ${vulnerability.cve.join(", ")}` : ""}
            {vulnerability.affected ? ` · affects ${vulnerability.affected}` : ""}
          </span>{" "}
          <strong class="fix">
            {vulnerability.fixed_in
              ? `Update ${slug} to ${vulnerability.fixed_in}`
              : vulnerability.unfixed === false
                ? `Update ${slug} to its latest release (the source names no fixed version)`
                : "No fix available: remove or replace it"}
          </strong>
          {(vulnerability.sources ?? []).length > 0 ? (
            <span class="muted" data-reported-by={(vulnerability.sources ?? []).join(" ")}>
              {" "}
              · reported by {(vulnerability.sources ?? []).map(sourceName).join(" and ")}
            </span>
          ) : null}
          {vulnerability.references[0] ? (
            <>
              {" "}
              <a href={vulnerability.references[0]} rel="noopener noreferrer nofollow">
                advisory
              </a>
            </>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

const REASONS: Record<string, string> = {
  not_in_directory: "not on WordPress.org",
  closed: "closed on WordPress.org",
  lookup_failed: "latest version not available now",
  no_data: "",
};

function versionCell(component: Pick<Component, "version" | "latest_version" | "latest_version_reason" | "outdated">) {
  const { version, latest_version: latest, outdated } = component;
  const reason = component.latest_version_reason ? REASONS[component.latest_version_reason] : "";
  return (
    <>
      {version ?? <span class="muted">unknown</span>}
      {outdated ? <span class="badge sev-medium"> outdated{latest ? ` (${latest})` : ""}</span> : null}
      {reason ? <div class="small muted">{reason}</div> : null}
    </>
  );
}

/**
 * When no vulnerability source answered (or not for every component), said where it cannot
 * be missed: an empty vulnerability list would otherwise read as "no known vulnerabilities".
 */
function VulnerabilityDataAlert({ report }: { report: Report }) {
  const notice = vulnerabilityDataNotice(report);
  if (!notice) return null;
  const unchecked = report.intel?.vulnerability_data?.unchecked ?? [];
  return (
    <div class="alert warning" role="status" id="vulnerability-data" data-status={notice.status}>
      <strong>{notice.title}.</strong> {notice.message}
      {notice.status === "partial" && unchecked.length > 0 ? (
        <ul class="small">
          {unchecked.map((gap) => (
            <li key={`${gap.type}:${gap.slug}`} data-unchecked={`${gap.type}:${gap.slug}`}>
              {gap.type === "core" ? "WordPress" : `${gap.type} ${gap.slug}`}: {gap.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** Where the versions and vulnerabilities came from, with the notices the sources require. */
function DataSources({ report }: { report: Report }) {
  const sources = report.intel?.sources ?? [];
  if (sources.length === 0) return null;
  return (
    <details class="card small" id="data-sources">
      <summary>Data sources</summary>
      <ul>
        {sources.map((source) => (
          <li key={source.id}>
            <strong>
              {source.url ? (
                <a href={source.url} rel="noopener noreferrer">
                  {source.name}
                </a>
              ) : (
                source.name
              )}
            </strong>
            {source.as_of ? <span class="muted"> · as of {formatDate(source.as_of)}</span> : null}
            {source.attribution ? <pre class="attribution">{source.attribution}</pre> : null}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** Marks what only the opt-in aggressive enumeration found: installed, maybe not active. */
function FoundByEnumeration() {
  return <div class="small muted">found by aggressive enumeration (installed; may be inactive)</div>;
}

/** Where WordPress lives on the site, as the analyzer found it (docs/detection.md, "The install's shape"). */
function Layout({ layout }: { layout: SiteLayout }) {
  const unknown = <span class="muted">not found</span>;
  return (
    <p class="small layout">
      Home <span class="mono">{layout.home_url}</span> · core{" "}
      {layout.core_path ? <span class="mono">{layout.core_path}</span> : unknown} · content{" "}
      {layout.content_path ? <span class="mono">{layout.content_path}</span> : unknown}
      {layout.asset_origins.length > 0 ? (
        <>
          {" "}
          · plugin and theme files also served from <span class="mono">{layout.asset_origins.join(", ")}</span>
        </>
      ) : null}
    </p>
  );
}

function Components({ report }: { report: Report }) {
  const { wordpress, theme, plugins } = report;
  return (
    <section aria-labelledby="components-heading">
      <h2 id="components-heading">WordPress, theme and plugins</h2>
      {wordpress?.detected && wordpress.layout ? <Layout layout={wordpress.layout} /> : null}
      {!wordpress?.detected ? (
        <p>WordPress was not detected on this site{wordpress ? ` (confidence ${wordpress.confidence}%)` : ""}.</p>
      ) : (
        <Table caption="Components" stack head={["Component", "Version", "Confidence", "Details"]}>
          <tr data-component="wordpress">
            <td>
              <strong>WordPress</strong>
            </td>
            <td data-label="Version" class="version">
              {versionCell(wordpress)}
            </td>
            <td data-label="Confidence">{wordpress.confidence}%</td>
            <td data-label="Details">
              <Evidence component={wordpress} />
              <Vulnerabilities
                component={wordpress}
                slug="WordPress"
                checked={vulnerabilitiesChecked(report, "core", "wordpress")}
              />
            </td>
          </tr>
          {theme ? (
            <tr data-component="theme">
              <td>
                <div>
                  <strong>Theme</strong> <span class="name">{theme.name ?? theme.slug}</span>
                </div>
                <div class="mono small muted slug">{theme.slug}</div>
                {theme.parent ? <div class="small">child of {theme.parent.name ?? theme.parent.slug}</div> : null}
              </td>
              <td data-label="Version" class="version">
                {versionCell(theme)}
              </td>
              <td data-label="Confidence">{theme.confidence}%</td>
              <td data-label="Details">
                <Evidence component={theme} />
                <Vulnerabilities
                  component={theme}
                  slug={theme.slug}
                  checked={vulnerabilitiesChecked(report, "theme", theme.slug)}
                />
              </td>
            </tr>
          ) : null}
          {plugins.map((plugin) => (
            <tr key={plugin.slug} data-component="plugin" data-plugin={plugin.slug}>
              <td>
                <div>
                  <strong>Plugin</strong> <span class="name">{plugin.name ?? plugin.slug}</span>
                </div>
                <div class="mono small muted slug">{plugin.slug}</div>
                {plugin.found_by === "aggressive" ? <FoundByEnumeration /> : null}
              </td>
              <td data-label="Version" class="version">
                {versionCell(plugin)}
              </td>
              <td data-label="Confidence">{plugin.confidence}%</td>
              <td data-label="Details">
                <Evidence component={plugin} />
                <Vulnerabilities
                  component={plugin}
                  slug={plugin.slug}
                  checked={vulnerabilitiesChecked(report, "plugin", plugin.slug)}
                />
              </td>
            </tr>
          ))}
          {(report.installed_themes ?? []).map((installed) => (
            <tr key={installed.slug} data-component="installed-theme" data-theme={installed.slug}>
              <td>
                <div>
                  <strong>Installed theme</strong> <span class="name">{installed.name ?? installed.slug}</span>
                </div>
                <div class="mono small muted slug">{installed.slug}</div>
                <FoundByEnumeration />
              </td>
              <td data-label="Version" class="version">
                {versionCell(installed)}
              </td>
              <td data-label="Confidence">{installed.confidence}%</td>
              <td data-label="Details">
                <Evidence component={installed} />
                <Vulnerabilities
                  component={installed}
                  slug={installed.slug}
                  checked={vulnerabilitiesChecked(report, "theme", installed.slug)}
                />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

const STACK_CATEGORY_NAMES: Record<StackCategory, string> = {
  web_server: "Web server",
  cdn: "CDN",
  hosting: "Hosting",
  language: "Language",
  framework: "Framework",
  cms: "CMS",
  site_builder: "Site builder",
  static_site_generator: "Static site generator",
};

/**
 * A site that is not WordPress: said plainly, with the stack it runs on and the evidence,
 * in place of an empty WordPress section.
 */
function NotWordPress({ report }: { report: Report }) {
  const confidence = report.wordpress?.confidence ?? 0;
  const stack = report.hosting?.stack ?? [];
  const runsOn = stack.map((item) => (item.version ? `${item.name} ${item.version}` : item.name)).join(", ");
  return (
    <section class="card" id="not-wordpress" aria-labelledby="not-wordpress-heading">
      <h2 id="not-wordpress-heading">Not WordPress{runsOn ? ` — runs on ${runsOn}` : ""}</h2>
      <p>
        This site does not look like WordPress (confidence {confidence}%). The performance, SEO and security checks that
        apply to any site ran and are scored; the WordPress-specific ones (core, theme and plugins, XML-RPC, user
        enumeration, the login page, WordPress's own files) were skipped.
      </p>
      {stack.length === 0 ? (
        <p class="muted">What it runs on could not be identified from its headers and homepage.</p>
      ) : (
        <Table caption="Software the site runs on" stack head={["Software", "Version", "Kind", "Details"]}>
          {stack.map((item) => (
            <tr key={`${item.category}:${item.name}`} data-stack={item.name}>
              <td>
                <strong>{item.name}</strong>
              </td>
              <td data-label="Version">{item.version ?? <span class="muted">unknown</span>}</td>
              <td data-label="Kind">{STACK_CATEGORY_NAMES[item.category] ?? item.category}</td>
              <td data-label="Details">
                <Evidence component={item} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

/** A two-column table of measures and their values. */
function FactsTable({ caption, rows }: { caption: string; rows: [string, string][] }) {
  return (
    <Table caption={caption} head={["Measure", "Value"]}>
      {rows.map(([label, value]) => (
        <tr key={label}>
          <td>{label}</td>
          <td>{value}</td>
        </tr>
      ))}
    </Table>
  );
}

function Performance({ report }: { report: Report }) {
  const performance = report.performance;
  if (!performance) return null;
  const rows: [string, string][] = [
    [
      "Time to first byte (median)",
      performance.ttfb_ms !== null ? `${performance.ttfb_ms} ms (${performance.ttfb_samples_ms.join(", ")})` : "—",
    ],
    ["HTML download", performance.html_download_ms !== null ? `${performance.html_download_ms} ms` : "—"],
    ["HTML size", performance.html_bytes !== null ? `${Math.round(performance.html_bytes / 102.4) / 10} kB` : "—"],
    ["Compression", performance.compression ?? "none"],
    [
      "Page cache",
      performance.caching.page_cache
        ? `${performance.caching.page_cache}${performance.caching.page_cache_hit === true ? " (hit)" : performance.caching.page_cache_hit === false ? " (miss)" : ""}`
        : "none detected",
    ],
    [
      "Scripts / stylesheets / images",
      `${performance.resources.scripts.count} / ${performance.resources.styles.count} / ${performance.resources.images.count}`,
    ],
    ["Render-blocking resources", String(performance.render_blocking.length)],
    ["Third-party hosts", performance.third_party_hosts.join(", ") || "none"],
    [
      "Images without dimensions / lazy-loaded",
      `${performance.images.without_dimensions} / ${performance.images.lazy} of ${performance.images.total}`,
    ],
  ];
  return (
    <section aria-labelledby="performance-heading">
      <h2 id="performance-heading">Performance</h2>
      <FactsTable caption="Performance facts" rows={rows} />
      {performance.lab ? <LabSection lab={performance.lab} /> : null}
      <details>
        <summary>Requests the analyzer made ({performance.requests.length})</summary>
        <Table caption="Requests" head={["URL", "Status", "Bytes", "TTFB", "Total"]}>
          {performance.requests.map((row, index) => (
            <tr key={index}>
              <td class="mono small">
                {row.method === "GET" ? "" : `${row.method} `}
                {row.url}
              </td>
              <td>{row.status ?? row.error ?? "—"}</td>
              <td>{row.bytes}</td>
              <td>{row.ttfb_ms ?? "—"} ms</td>
              <td>{row.ms} ms</td>
            </tr>
          ))}
        </Table>
      </details>
    </section>
  );
}

function Seo({ report }: { report: Report }) {
  const seo = report.seo;
  if (!seo) return null;
  const rows: [string, string][] = [
    ["Title", seo.title ?? "missing"],
    ["Meta description", seo.meta_description ?? "missing"],
    ["Canonical", seo.canonical ?? "missing"],
    ["Indexable", seo.noindex ? "no (noindex)" : "yes"],
    [
      "robots.txt",
      seo.robots_txt.present ? (seo.robots_txt.disallows_all ? "present — blocks everything" : "present") : "missing",
    ],
    [
      "Sitemaps",
      seo.sitemaps
        .filter((sitemap) => sitemap.valid)
        .map((sitemap) => `${sitemap.url} (${sitemap.entries})`)
        .join(", ") || "none found",
    ],
    ["H1", seo.headings.h1.join(" · ") || "none"],
    ["Language", seo.lang ?? "not declared"],
    ["Structured data", seo.structured_data_types.join(", ") || "none"],
    ["SEO plugin", seo.seo_plugin ?? "none detected"],
  ];
  return (
    <section aria-labelledby="seo-heading">
      <h2 id="seo-heading">SEO</h2>
      <FactsTable caption="SEO facts" rows={rows} />
    </section>
  );
}

function Security({ report }: { report: Report }) {
  const security = report.security;
  if (!security) return null;
  return (
    <section aria-labelledby="security-heading">
      <h2 id="security-heading">Security</h2>
      <Table caption="Security headers" head={["Header", "Value"]}>
        {security.headers.map((header) => (
          <tr key={header.name}>
            <td class="mono">{header.name}</td>
            <td>
              {header.value === null ? (
                <span class="badge st-fail">missing</span>
              ) : (
                <span class="mono small">{header.value}</span>
              )}
            </td>
          </tr>
        ))}
      </Table>
      <h3>Exposure</h3>
      <ul>
        <li>HTTPS: {security.https ? "yes" : "no"}</li>
        <li>
          XML-RPC:{" "}
          {security.xmlrpc.enabled
            ? `enabled${security.xmlrpc.methods ? ` (${security.xmlrpc.methods} methods)` : ""}`
            : "not reachable"}
        </li>
        <li>
          Users disclosed:{" "}
          {security.users.length === 0
            ? "none"
            : security.users.map((user) => user.username ?? user.display_name).join(", ")}
        </li>
        <li>
          Exposed files:{" "}
          {security.exposed_files.length === 0
            ? "none found"
            : security.exposed_files.map((file) => file.path).join(", ")}
        </li>
        <li>
          Directory listing:{" "}
          {security.directory_listing.length === 0 ? "none found" : security.directory_listing.join(", ")}
        </li>
      </ul>
    </section>
  );
}

export function ReportPage({ report, siblings }: { report: Report; siblings: ReportListItem[] }) {
  const failing = report.checks.filter((check) => check.status === "fail" || check.status === "warn");
  const others = report.checks.filter((check) => check.status !== "fail" && check.status !== "warn");
  const summary = report.summary;
  const notWordPress = report.wordpress?.detected === false && !report.hosting?.blocked_by_waf;
  // The not-WordPress notice has its own block below.
  const shownErrors = notWordPress ? report.errors.filter((error) => error.kind !== "not_wordpress") : report.errors;
  // "Nothing failed" is true only of what was checked: what was not is said instead.
  const notRun = checksNotRun(report);
  const gaps = report.status === "completed" ? notAllChecked(vulnerabilityCoverage(report), notRun) : null;
  return (
    <div class="stack">
      <p class="small">
        <a href="/reports">← Reports</a>
      </p>
      <h1>
        Report for <span class="mono">{report.final_url ?? report.url}</span>
      </h1>
      <p class="muted small">
        {formatDate(report.created_at)} · status {report.status}
        {report.duration_ms !== null ? ` · ${report.duration_ms} ms` : ""} · <span class="mono">{report.id}</span>
        {report.metadata.environment ? ` · ${report.metadata.environment}` : ""}
        {report.metadata.git_sha ? ` · ${report.metadata.git_sha.slice(0, 12)}` : ""}
        {report.mode === "aggressive" && report.enumeration
          ? ` · aggressive enumeration: ${report.enumeration.plugins.probed + report.enumeration.themes.probed} slugs probed in ${report.enumeration.requests} requests (${report.enumeration.stopped_by.replace("_", " ")})`
          : ""}
      </p>
      <p>
        <a class="button secondary" href={`/reports/${report.id}/report.json`} download>
          Download JSON
        </a>{" "}
        <a class="button secondary" href={`/reports/${report.id}/report.sarif`} download>
          Download SARIF
        </a>
      </p>
      {report.hosting?.blocked_by_waf ? (
        <div class="alert warning" role="status">
          The site answered with a {report.hosting.waf ?? "firewall"} challenge page instead of its homepage, so it
          could not be analyzed.
        </div>
      ) : null}
      {report.status === "completed" && isIncompleteReport(report) ? (
        <div class="alert warning" role="status" id="report-incomplete">
          <strong>Incomplete: not graded.</strong> {report.errors.find((error) => error.kind === "incomplete")?.message}{" "}
          Its checks and its vulnerabilities were not checked on the site itself: {NOT_CHECKED_INCOMPLETE}.
        </div>
      ) : null}
      <VulnerabilityDataAlert report={report} />
      {shownErrors.length > 0 ? (
        <details class="card">
          <summary>Parts that could not be checked ({shownErrors.length})</summary>
          <ul class="small">
            {shownErrors.map((error, index) => (
              <li key={index}>
                <span class="mono">{error.stage}</span>: {error.message}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {summary ? (
        <section class="card score-card" aria-label="Score">
          <div class={`grade grade-${summary.grade}`} id="grade">
            {summary.grade}
          </div>
          <div>
            <div>
              Score <strong id="score">{summary.score}</strong> / 100
            </div>
            <div class="small muted">
              {CHECK_CATEGORIES.map(
                (category) => `${CATEGORY_NAMES[category]} ${summary.categories[category] ?? "—"}`,
              ).join(" · ")}
            </div>
            {checksNotRunText(notRun) ? (
              <div class="small not-checked" id="checks-not-run">
                {checksNotRunText(notRun)}: not counted in the score
              </div>
            ) : null}
            {(summary.grade_caps ?? []).map((cap) => (
              <div class="small" key={cap.grade} data-grade-cap={cap.grade}>
                Grade capped at {cap.grade}: {cap.reason}
              </div>
            ))}
          </div>
        </section>
      ) : null}
      {siblings.length > 0 ? (
        <form method="get" action={`/reports/${report.id}/compare`} class="card row">
          <div class="field">
            <label for="base">Compare with an earlier report of this site</label>
            <select id="base" name="base">
              {siblings.map((sibling) => (
                <option value={sibling.id} key={sibling.id}>
                  {formatDate(sibling.created_at)} — {sibling.grade ?? sibling.status}
                  {sibling.score !== null ? ` (${sibling.score})` : ""}
                </option>
              ))}
            </select>
          </div>
          <div>
            <button type="submit">Compare</button>
          </div>
        </form>
      ) : null}
      {notWordPress ? <NotWordPress report={report} /> : <Components report={report} />}
      <DataSources report={report} />
      <section aria-labelledby="findings-heading">
        <h2 id="findings-heading">Findings ({failing.length})</h2>
        {failing.length === 0 && !gaps ? <p>Nothing failed. 🎉</p> : null}
        {failing.length === 0 && gaps ? (
          <div id="not-all-checked">
            <p>No check that ran failed, but not everything was checked:</p>
            <ul class="small not-checked">
              {gaps.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </div>
        ) : null}
        {(report.not_checked ?? []).length > 0 ? (
          <details class="card" id="not-checked" open>
            <summary>Checks that could not run ({(report.not_checked ?? []).length})</summary>
            <ul class="small">
              {(report.not_checked ?? []).map((entry) => (
                <li key={entry.check}>
                  <span class="mono">{entry.check}</span>: {entry.reason}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
        {CHECK_CATEGORIES.map((category) => {
          const checks = failing
            .filter((check) => check.category === category)
            .sort((a, b) => severityOrder(a.severity) - severityOrder(b.severity));
          if (checks.length === 0) return null;
          return (
            <div key={category}>
              <h3>{CATEGORY_NAMES[category]}</h3>
              {checks.map((check) => (
                <CheckItem check={check} key={check.id} />
              ))}
            </div>
          );
        })}
        {others.length > 0 ? (
          <details>
            <summary>Passed and skipped checks ({others.length})</summary>
            {others.map((check) => (
              <CheckItem check={check} key={check.id} />
            ))}
          </details>
        ) : null}
      </section>
      <Performance report={report} />
      <Seo report={report} />
      <Security report={report} />
    </div>
  );
}
