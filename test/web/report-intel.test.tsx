/**
 * The report page shows each vulnerability with its fix ("Update akismet to 5.0.3"), why a
 * latest version is missing, and the data sources with their required attribution — all
 * escaped, since titles come from feeds and slugs from the analysed site.
 */
import { describe, expect, test } from "bun:test";
import { renderToString } from "preact-render-to-string";
import { buildResult } from "../../server/analyzer/analyze.ts";
import { parseIntel } from "../../server/analyzer/intel/index.ts";
import { ReportPage } from "../../server/web/pages/report.tsx";
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
    schema_version: "1.1.0",
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
