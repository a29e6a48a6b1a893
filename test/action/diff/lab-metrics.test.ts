/**
 * The gate on lab metrics (performance.lab): LCP, CLS and TBT diffed against the baseline with
 * their noise bands, budgets on them (`lcp_ms=2500,cls=0.1`), and assert on the lab checks.
 */
import { describe, expect, test } from "bun:test";
import { renderMarkdown } from "../../../action/src/markdown.ts";
import { diff } from "../../../shared/diff.ts";
import { parseBudgets, parseDiffOptions } from "../../../shared/diff-options.ts";
import { describeBudget, metricChangeText } from "../../../shared/diff-text.ts";
import type { Check, Lab, LabMetrics, Report } from "../../../shared/report.ts";
import { formatMetricValue, metricByKey } from "../../../shared/report-metrics.ts";
import { baseReport } from "./report-arbitrary.ts";

const metrics = (change: Partial<LabMetrics> = {}): LabMetrics => ({
  ttfb_ms: 120,
  fcp_ms: 900,
  lcp_ms: 1_800,
  cls: 0.02,
  tbt_ms: 80,
  speed_index_ms: null,
  requests: 30,
  transfer_bytes: 800_000,
  ...change,
});

function labReport(id: string, values: LabMetrics | null, checks: Check[] = [], status: Lab["status"] = "complete") {
  const report = baseReport(id);
  const lab: Lab = {
    status,
    reason: status === "complete" ? null : "The browser was killed",
    device: "mobile",
    throttling: "default",
    throttling_used: { cpu_slowdown: 4, rtt_ms: 150, download_kbps: 1638.4, upload_kbps: 750 },
    runs: 1,
    completed_runs: values ? 1 : 0,
    metrics: values,
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
  };
  (report.performance as NonNullable<Report["performance"]>).lab = lab;
  report.checks = checks;
  return report as Report;
}

const labCheck = (id: string, status: Check["status"]): Check => ({
  id,
  category: "performance",
  severity: "medium",
  status,
  title: `${id} title`,
  message: `${id} ${status}`,
  evidence: [],
  remediation: "Do the thing.",
});

describe("lab metrics in the diff", () => {
  test("LCP 1.8 s → 3.1 s is a worse metric; its check crossing a level is a regression that fails the gate at medium", () => {
    const base = labReport("rep_base", metrics(), [labCheck("performance.lcp", "pass")]);
    const head = labReport("rep_head", metrics({ lcp_ms: 3_100 }), [labCheck("performance.lcp", "warn")]);
    const result = diff(base, head, { failOn: "medium" });
    const lcp = result.metrics.find((change) => change.metric === "lcp_ms");
    expect(lcp).toMatchObject({ before: 1_800, after: 3_100, direction: "worse", unit: "ms" });
    expect(metricChangeText(lcp as NonNullable<typeof lcp>)).toMatchObject({ before: "1.8 s", after: "3.1 s" });
    expect(result.regressions.map((check) => [check.id, check.before, check.after])).toEqual([
      ["performance.lcp", "pass", "warn"],
    ]);
    expect(result.verdict.result).toBe("fail");
  });

  test("noise is not news: LCP +150 ms, CLS +0.01, TBT +60 ms are within their bands", () => {
    const base = labReport("rep_base", metrics());
    const head = labReport("rep_head", metrics({ lcp_ms: 1_950, cls: 0.03, tbt_ms: 140 }));
    expect(diff(base, head).metrics.map((change) => change.metric)).toEqual([]);
    const worse = labReport("rep_worse", metrics({ cls: 0.2, tbt_ms: 400 }));
    expect(diff(base, worse).metrics.map((change) => [change.metric, change.direction])).toEqual([
      ["cls", "worse"],
      ["tbt_ms", "worse"],
    ]);
  });

  test("a report without a completed lab run has no lab metrics: nothing compared", () => {
    const base = labReport("rep_base", metrics());
    const failed = labReport("rep_failed", null, [], "failed");
    const keys = ["lcp_ms", "fcp_ms", "cls", "tbt_ms", "lab_transfer_bytes", "lab_requests"];
    for (const key of keys) expect(metricByKey(key)?.value(failed)).toBeNull();
    expect(diff(base, failed).metrics.filter((change) => keys.includes(change.metric))).toEqual([]);
    expect(metricByKey("cls")?.value(base)).toBe(0.02);
  });
});

describe("budgets on lab metrics", () => {
  test("lcp_ms=2500,cls=0.1 parse; times take units, CLS a plain number", () => {
    expect(parseBudgets("lcp_ms=2500,cls=0.1")).toEqual({ lcp_ms: 2_500, cls: 0.1 });
    expect(parseBudgets("lcp_ms=2.5s, tbt_ms=200ms, lab_transfer_bytes=1MB, lab_requests=50")).toEqual({
      lcp_ms: 2_500,
      tbt_ms: 200,
      lab_transfer_bytes: 1_000_000,
      lab_requests: 50,
    });
    expect(() => parseBudgets("cls=0.1ms")).toThrow("cls is a plain number such as 0.1");
    expect(() => parseBudgets("lab_requests=2.5")).toThrow("a count, a whole number");
  });

  test("over budget fails the gate, saying which and by how much; within passes", () => {
    const head = labReport("rep_head", metrics({ lcp_ms: 3_100, cls: 0.24 }));
    const result = diff(null, head, { budgets: parseBudgets("lcp_ms=2500,cls=0.1,tbt_ms=200") });
    expect(result.budgets.map((budget) => [budget.metric, budget.value, budget.exceeded])).toEqual([
      ["cls", 0.24, true],
      ["lcp_ms", 3_100, true],
      ["tbt_ms", 80, false],
    ]);
    expect(result.verdict.result).toBe("fail");
    expect(result.verdict.reasons).toEqual([
      "Cumulative Layout Shift (lab) is 0.24, over the budget of 0.1",
      "Largest Contentful Paint (lab) is 3.1 s, over the budget of 2.5 s",
    ]);
    expect(describeBudget(result.budgets[2] as (typeof result.budgets)[number])).toContain("Total Blocking Time");
    const fast = labReport("rep_fast", metrics());
    expect(diff(null, fast, { budgets: parseBudgets("lcp_ms=2500,cls=0.1") }).verdict.result).toBe("pass");
    expect(formatMetricValue("ratio", 0.2424)).toBe("0.242");
  });

  test("a lab budget on a report without a completed lab run is not met: it fails, saying it was not measured", () => {
    const budgets = parseBudgets("lcp_ms=2500,cls=0.1");
    for (const head of [baseReport("rep_nolab"), labReport("rep_failed", null, [], "failed")]) {
      const result = diff(null, head, { budgets });
      expect(result.budgets.map((budget) => [budget.metric, budget.value, budget.exceeded])).toEqual([
        ["cls", null, false],
        ["lcp_ms", null, false],
      ]);
      expect(result.verdict.result).toBe("fail");
      expect(result.verdict.reasons).toEqual([
        "Cumulative Layout Shift (lab) was not measured, so its budget of 0.1 is not met: the report has no completed lab run (ask for one with lab)",
        "Largest Contentful Paint (lab) was not measured, so its budget of 2.5 s is not met: the report has no completed lab run (ask for one with lab)",
      ]);
    }
  });

  test("the Action's and CLI's option parser takes lab budgets and asserts on lab checks", () => {
    const options = parseDiffOptions({ budgets: "lcp_ms=2500,cls=0.1", assert: "performance.cls: error" });
    expect(options.budgets).toEqual({ lcp_ms: 2_500, cls: 0.1 });
    const head = labReport("rep_head", metrics({ cls: 0.3 }), [labCheck("performance.cls", "fail")]);
    const result = diff(null, head, options);
    expect(result.assertions.results.map((assertion) => [assertion.id, assertion.level])).toEqual([
      ["performance.cls", "error"],
    ]);
    expect(result.verdict.result).toBe("fail");
  });
});

describe("the job summary's lab table", () => {
  test("Core Web Vitals with their levels; a failed lab run says why, escaped", () => {
    const head = labReport("rep_head", metrics({ lcp_ms: 3_100, cls: 0.3 }));
    const markdown = renderMarkdown({
      report: head,
      diff: diff(null, head),
      reportUrl: "https://w.example/r",
      failOn: "high",
    });
    expect(markdown).toContain("#### Lab (mobile, throttled, 1 of 1 load)");
    expect(markdown).toContain("| Largest Contentful Paint | 3.10 s | 🟠 needs improvement |");
    expect(markdown).toContain("| Cumulative Layout Shift | 0.300 | 🔴 poor |");
    expect(markdown).toContain("| Total Blocking Time | 80 ms | 🟢 good |");
    const failed = labReport("rep_failed", null, [], "failed");
    (failed.performance?.lab as Lab).reason = "<b>killed</b>";
    const text = renderMarkdown({
      report: failed,
      diff: diff(null, failed),
      reportUrl: "https://w.example/r",
      failOn: "high",
    });
    expect(text).toContain("The lab run failed: &lt;b&gt;killed&lt;/b&gt;. Its checks were skipped.");
    expect(
      renderMarkdown({
        report: baseReport("rep_x"),
        diff: diff(null, baseReport("rep_x")),
        reportUrl: "u",
        failOn: "high",
      }),
    ).not.toContain("#### Lab");
  });
});
