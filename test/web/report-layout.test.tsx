/**
 * The report page says where WordPress lives on the site — home, core, content directory,
 * the asset origins serving its files — as the analyzer found it, escaped like all site text.
 */
import { describe, expect, test } from "bun:test";
import { renderToString } from "preact-render-to-string";
import { buildResult } from "../../server/analyzer/analyze.ts";
import { ReportPage } from "../../server/reports/pages/report.tsx";
import { REPORT_SCHEMA_VERSION, type Report } from "../../shared/report.ts";
import { loadArtifacts, WP_FIXTURE } from "../analyzer/artifacts.ts";

function pageOf(artifactsName: string, change: (report: Report) => void = () => {}): string {
  const result = buildResult(loadArtifacts(artifactsName));
  const report: Report = {
    id: "rep_00000000000000000000000000",
    schema_version: REPORT_SCHEMA_VERSION,
    status: "completed",
    url: result.final_url ?? "",
    created_at: "2026-11-23T10:00:00.000Z",
    completed_at: "2026-11-23T10:00:05.000Z",
    duration_ms: 5000,
    metadata: {},
    ...result,
  };
  change(report);
  return renderToString(<ReportPage report={report} siblings={[]} />);
}

const layoutLine = (html: string) => /<p class="small layout">([\s\S]*?)<\/p>/.exec(html)?.[1]?.replace(/<[^>]+>/g, "");

describe("the report page's layout line", () => {
  test("the Bedrock-like site: core /wp/, content /app/, files also from the pull zone", () => {
    expect(layoutLine(pageOf("wp-6.1.9-bedrock"))).toBe(
      "Home http://127.0.0.2:8092/ · core /wp/ · content /app/ · plugin and theme files also served from http://127.0.0.3:8093",
    );
  });

  test("a standard install", () => {
    expect(layoutLine(pageOf(WP_FIXTURE))).toBe("Home http://127.0.0.1:8088/ · core / · content /wp-content/");
  });

  test("what was not found says so; site text is escaped", () => {
    const html = pageOf(WP_FIXTURE, (report) => {
      if (!report.wordpress?.layout) throw new Error("no layout");
      report.wordpress.layout = {
        ...report.wordpress.layout,
        core_path: null,
        content_path: '/<img src=x onerror="alert(1)">/',
      };
    });
    expect(html).not.toContain("<img src=x");
    expect(layoutLine(html)).toBe(
      "Home http://127.0.0.1:8088/ · core not found · content /&lt;img src=x onerror=&quot;alert(1)&quot;>/",
    );
  });
});
