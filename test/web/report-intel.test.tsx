/**
 * The report page shows each vulnerability with its fix ("Update akismet to 5.0.3"), why a
 * latest version is missing, and the data sources with their required attribution — all
 * escaped, since titles come from feeds and slugs from the analyzed site.
 */
import { describe, expect, test } from "bun:test";
import { renderToString } from "preact-render-to-string";
import { buildResult } from "../../server/analyzer/analyze.ts";
import { parseIntel } from "../../server/analyzer/intel/index.ts";
import { ReportPage } from "../../server/reports/pages/report.tsx";
import type { Report } from "../../shared/report.ts";
import { loadArtifacts, WP_FIXTURE } from "../analyzer/artifacts.ts";

const intel = parseIntel({
  format: 1,
  wordpress: { latest_version: "6.8.3" },
  plugins: {
    akismet: {
      latest_version: "5.3.5",
      vulnerabilities: [
        {
          id: "TEST-1",
          title: "Stored XSS <script>alert(1)</script>",
          severity: "high",
          cvss: 7.2,
          cve: ["CVE-2099-0001"],
          affected: [{ fixed_in: "5.0.3" }],
          references: ["https://example.org/advisory"],
        },
      ],
    },
  },
});

function reportWith(change: Partial<Report> = {}): Report {
  const result = buildResult(loadArtifacts(WP_FIXTURE), intel);
  return {
    id: "rep_00000000000000000000000000",
    schema_version: "1.2.0",
    status: "completed",
    url: "http://127.0.0.1:8088/",
    created_at: "2026-11-23T10:00:00.000Z",
    completed_at: "2026-11-23T10:00:05.000Z",
    duration_ms: 5000,
    metadata: {},
    ...result,
    intel: {
      sources: [
        {
          id: "wordfence",
          name: "Wordfence Intelligence",
          as_of: "2026-11-12T10:00:00.000Z",
          attribution: "Copyright 2012-2026 Defiant Inc. <b>licence</b>",
          url: null,
        },
      ],
    },
    ...change,
  };
}

describe("the report page's component intelligence", () => {
  const html = renderToString(<ReportPage report={reportWith()} siblings={[]} />);

  test("a vulnerability with its severity, CVSS, CVE, range and the fix", () => {
    expect(html).toContain('data-vulnerability="TEST-1"');
    expect(html).toContain("Update akismet to 5.0.3");
    expect(html).toContain("CVSS 7.2");
    expect(html).toContain("CVE-2099-0001");
    expect(html).toContain("affects &lt; 5.0.3");
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;script>alert(1)&lt;/script>");
  });

  test("the data sources with their attribution, escaped", () => {
    expect(html).toContain('id="data-sources"');
    expect(html).toContain("Wordfence Intelligence");
    expect(html).toContain("Copyright 2012-2026 Defiant Inc. &lt;b>licence&lt;/b>");
  });

  test("why a latest version is missing; old reports without intel fields still render", () => {
    const report = reportWith();
    const plugins = report.plugins.map((plugin) => ({
      ...plugin,
      latest_version: null,
      latest_version_reason: "not_in_directory" as const,
    }));
    expect(renderToString(<ReportPage report={{ ...report, plugins }} siblings={[]} />)).toContain(
      "not on WordPress.org",
    );
    const { intel: _intel, ...old } = report;
    expect(renderToString(<ReportPage report={old as Report} siblings={[]} />)).not.toContain("data-sources");
  });
});

describe("the report page's aggressive findings and grade caps", () => {
  test("a plugin and a theme found only by enumeration are marked so; the run is summed up; site text escaped", () => {
    const base = reportWith();
    const found = {
      ...(base.plugins[0] as Report["plugins"][number]),
      slug: "old-gallery",
      name: "<img src=x onerror=alert(1)>",
      found_by: "aggressive" as const,
    };
    const html = renderToString(
      <ReportPage
        report={{
          ...base,
          mode: "aggressive",
          plugins: [...base.plugins, found],
          installed_themes: [{ ...found, slug: "astra", name: "Astra" }],
          enumeration: {
            budget: { max_requests: 300, time_budget_ms: 12_000 },
            requests: 212,
            duration_ms: 900,
            stopped_by: "finished",
            plugins: {
              method: "directory",
              candidates: 166,
              vulnerable_candidates: 0,
              probed: 166,
              found: ["old-gallery"],
            },
            themes: { method: "style_css", candidates: 38, vulnerable_candidates: 0, probed: 38, found: ["astra"] },
          },
        }}
        siblings={[]}
      />,
    );
    expect(html).toContain("aggressive enumeration: 204 slugs probed in 212 requests (finished)");
    expect(html).toContain('data-plugin="old-gallery"');
    expect(html).toContain('data-theme="astra"');
    expect(html.match(/found by aggressive enumeration/g)?.length).toBe(2);
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=alert(1)>");
  });

  test("the grade caps are shown under the grade", () => {
    const base = reportWith();
    const summary = {
      ...(base.summary as NonNullable<Report["summary"]>),
      grade: "F" as const,
      grade_caps: [
        {
          grade: "F" as const,
          severity: "critical" as const,
          checks: ["security.env_file_exposed"],
          reason: "A critical finding fails (security.env_file_exposed): the grade is at most F.",
        },
      ],
    };
    const html = renderToString(<ReportPage report={{ ...base, summary }} siblings={[]} />);
    expect(html).toContain('data-grade-cap="F"');
    expect(html).toContain("Grade capped at F: A critical finding fails (security.env_file_exposed)");
  });
});
