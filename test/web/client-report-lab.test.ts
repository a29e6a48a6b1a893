/**
 * The client report's Core Web Vitals section: shown when the month's last report had a lab run,
 * with web.dev's ratings in plain words; a failed lab run says so; absent without one.
 */
import { describe, expect, test } from "bun:test";
import { clientReportModel, parsePeriod } from "../../server/portfolio/client-report.ts";
import { renderClientReport } from "../../server/portfolio/client-report-page.tsx";
import type { Lab, Report } from "../../shared/report.ts";
import { baseReport } from "../action/diff/report-arbitrary.ts";

function render(lab: Lab | undefined): string {
  const report = baseReport("rep_lab") as Report;
  if (lab && report.performance) report.performance.lab = lab;
  const model = clientReportModel({
    reports: [report],
    previous: null,
    period: parsePeriod("2026-11"),
    branding: { name: "Agency", color: "#123456", logo: null },
    site: { url: "https://example.com/", site: "example.com", environment: null },
    now: new Date("2026-12-01T00:00:00Z"),
  });
  return renderClientReport(model).html;
}

const lab = (status: Lab["status"]): Lab => ({
  status,
  reason: status === "complete" ? null : "The browser was killed",
  device: "mobile",
  throttling: "default",
  throttling_used: { cpu_slowdown: 4, rtt_ms: 150, download_kbps: 1638.4, upload_kbps: 750 },
  runs: 1,
  completed_runs: status === "complete" ? 1 : 0,
  metrics:
    status === "complete"
      ? {
          ttfb_ms: 200,
          fcp_ms: 1_200,
          lcp_ms: 3_100,
          cls: 0.02,
          tbt_ms: 700,
          speed_index_ms: null,
          requests: 40,
          transfer_bytes: 900_000,
        }
      : null,
  spread: null,
  lcp_element: null,
  layout_shifts: [],
  long_tasks: [],
  render_blocking: [],
  components: [],
  third_party: [],
  images_without_dimensions: [],
  thumbnail: null,
  blocked_requests: { count: 0, examples: [] },
});

describe("client report: Core Web Vitals", () => {
  test("the last report's lab metrics with their ratings", () => {
    const html = render(lab("complete"));
    expect(html).toContain("Core Web Vitals");
    expect(html).toContain("mid-range phone on a slow mobile network");
    expect(html).toMatch(/Largest Contentful Paint<\/td><td>3.10 s<\/td><td>needs improvement/);
    expect(html).toMatch(/Cumulative Layout Shift<\/td><td>0.020<\/td><td>good/);
    expect(html).toMatch(/Total Blocking Time<\/td><td>700 ms<\/td><td>poor/);
  });

  test("a failed lab run says so; no lab run, no section", () => {
    expect(render(lab("failed"))).toContain(
      "could not be measured in a browser on the last check (The browser was killed)",
    );
    expect(render(undefined)).not.toContain("Core Web Vitals");
  });
});
