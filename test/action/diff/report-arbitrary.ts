/** fast-check generators of reports for the diff engine's property tests. */
import fc from "fast-check";
import {
  CHECK_CATEGORIES,
  type Check,
  type PluginInfo,
  type Report,
  SEVERITIES,
  type Vulnerability,
} from "../../../shared/report.ts";

const CHECK_IDS = [
  "security.https",
  "security.hsts",
  "security.xmlrpc_enabled",
  "performance.ttfb",
  "seo.title",
  "components.core_outdated",
];
const STATUSES = ["pass", "fail", "warn", "skip", "error"] as const;

export const checkArbitrary: fc.Arbitrary<Check> = fc.record({
  id: fc.constantFrom(...CHECK_IDS),
  category: fc.constantFrom(...CHECK_CATEGORIES),
  severity: fc.constantFrom(...SEVERITIES),
  status: fc.constantFrom(...STATUSES),
  title: fc.constant("A check"),
  message: fc.string({ maxLength: 20 }),
  evidence: fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 }),
  remediation: fc.constant("Fix it."),
});

const versionArbitrary = fc.option(fc.constantFrom("1.0", "1.2.3", "2.0", "5.0.2", "6.1.9"), { nil: null });

/** Advisories by id; a severity drawn per report, as a re-scored advisory would be. */
const vulnerabilitiesArbitrary = (ids: string[]): fc.Arbitrary<Vulnerability[]> =>
  fc
    .uniqueArray(fc.record({ id: fc.constantFrom(...ids), severity: fc.constantFrom(...SEVERITIES) }), {
      selector: (v) => v.id,
      maxLength: ids.length,
    })
    .map((list) =>
      list.map(({ id, severity }) => ({
        id,
        title: id,
        severity,
        cvss: null,
        cve: [],
        fixed_in: id.endsWith("1") ? "9.9" : null,
        references: [],
      })),
    );

export const reportArbitrary: fc.Arbitrary<Report> = fc
  .record({
    id: fc.constantFrom("rep_a", "rep_b", "rep_c"),
    checks: fc.uniqueArray(checkArbitrary, { selector: (check) => check.id, maxLength: CHECK_IDS.length }),
    score: fc.integer({ min: 0, max: 100 }),
    ttfb: fc.integer({ min: 1, max: 3000 }),
    html: fc.integer({ min: 0, max: 3_000_000 }),
    core: versionArbitrary,
    plugins: fc.uniqueArray(
      fc.record({
        slug: fc.constantFrom("akismet", "jetpack", "woocommerce"),
        version: versionArbitrary,
        vulns: vulnerabilitiesArbitrary(["P1", "P2"]),
      }),
      {
        selector: (plugin) => plugin.slug,
        maxLength: 3,
      },
    ),
    vulns: fc.uniqueArray(fc.constantFrom("V1", "V2", "V3"), { maxLength: 3 }),
    theme: fc.option(
      fc.record({
        version: versionArbitrary,
        vulns: vulnerabilitiesArbitrary(["T1", "T2"]),
        parent: fc.option(fc.record({ version: versionArbitrary, vulns: vulnerabilitiesArbitrary(["T1", "T3"]) }), {
          nil: null,
        }),
      }),
      { nil: null },
    ),
  })
  .map(({ id, checks, score, ttfb, html, core, plugins, vulns, theme }) => {
    const report = baseReport(id);
    report.checks = checks;
    report.summary = {
      score,
      grade: score >= 90 ? "A" : score >= 80 ? "B" : "F",
      categories: { performance: score, seo: null, security: score, components: null },
      failed: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
    };
    if (report.performance) {
      report.performance.ttfb_ms = ttfb;
      report.performance.html_bytes = html;
    }
    if (report.wordpress) {
      report.wordpress.version = core;
      report.wordpress.vulnerabilities = vulns.map((v) => ({
        id: v,
        title: v,
        severity: "high",
        cvss: null,
        cve: [],
        fixed_in: null,
        references: [],
      }));
    }
    report.plugins = plugins.map((plugin) => ({
      slug: plugin.slug,
      name: plugin.slug,
      version: plugin.version,
      version_confidence: 100,
      confidence: 100,
      evidence: [],
      latest_version: null,
      outdated: null,
      vulnerabilities: plugin.vulns,
      category: null,
    }));
    const component = (slug: string, version: string | null, vulnerabilities: Vulnerability[]) => ({
      slug,
      name: slug,
      version,
      version_confidence: 100,
      confidence: 100,
      evidence: [],
      latest_version: null,
      outdated: null,
      vulnerabilities,
    });
    report.theme = theme
      ? {
          ...component("child-theme", theme.version, theme.vulns),
          author: null,
          parent: theme.parent ? component("parent-theme", theme.parent.version, theme.parent.vulns) : null,
        }
      : null;
    return report;
  });

/** A plugin as detected, for examples: found with confidence, no latest version known. */
export function pluginInfo(slug: string, version: string | null, vulnerabilities: Vulnerability[] = []): PluginInfo {
  return {
    slug,
    name: slug,
    version,
    version_confidence: 90,
    confidence: 100,
    evidence: [],
    latest_version: null,
    outdated: null,
    vulnerabilities,
    category: null,
  };
}

/** A completed report with nothing in it, to build examples from. */
export function baseReport(id: string): Report {
  return {
    id,
    schema_version: "1.0.0",
    status: "completed",
    url: "https://example.com/",
    final_url: "https://example.com/",
    redirects: [],
    created_at: "2026-11-01T00:00:00.000Z",
    completed_at: "2026-11-01T00:00:01.000Z",
    duration_ms: 1000,
    metadata: {},
    summary: {
      score: 90,
      grade: "A",
      categories: { performance: 90, seo: null, security: 90, components: null },
      failed: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
    },
    wordpress: {
      detected: true,
      confidence: 100,
      version: "6.1.9",
      version_confidence: 100,
      evidence: [],
      rest_api_url: null,
      rest_namespaces: [],
      content_path: null,
      install_path: "/",
      multisite: null,
      latest_version: null,
      outdated: null,
      vulnerabilities: [],
    },
    theme: null,
    plugins: [],
    hosting: null,
    performance: {
      ttfb_ms: 100,
      ttfb_samples_ms: [100],
      html_download_ms: 120,
      html_bytes: 30_000,
      html_transfer_bytes: null,
      compression: "gzip",
      http_version: "1.1",
      caching: {
        cache_control: null,
        expires: null,
        etag: false,
        last_modified: false,
        age: null,
        page_cache: null,
        page_cache_hit: null,
      },
      resources: {
        scripts: { count: 1, bytes: 0, sized: 0 },
        styles: { count: 1, bytes: 0, sized: 0 },
        images: { count: 0, bytes: 0, sized: 0 },
        fonts: { count: 0, bytes: 0, sized: 0 },
      },
      render_blocking: [],
      third_party_hosts: [],
      images: { total: 0, lazy: 0, without_dimensions: 0, without_alt: 0 },
      assets: [],
      requests: [],
    },
    seo: null,
    security: null,
    checks: [],
    errors: [],
  };
}

/** An example check: `${id} title`, `${id} <status>` as its message; `extra` adds or replaces fields (a fail_title). */
export function exampleCheck(
  id: string,
  status: Check["status"],
  severity: Check["severity"] = "high",
  extra: Partial<Check> = {},
): Check {
  return {
    id,
    category: id.split(".")[0] as Check["category"],
    severity,
    status,
    title: `${id} title`,
    message: `${id} ${status}`,
    evidence: [],
    remediation: "Do the thing.",
    ...extra,
  };
}

/** baseReport(id) with `checks`, then `change` applied to it. */
export function exampleReport(id: string, checks: Check[], change: (r: Report) => void = () => {}): Report {
  const r = baseReport(id);
  r.checks = checks;
  change(r);
  return r;
}
