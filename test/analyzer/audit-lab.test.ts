/**
 * The lab: performance.lab made from saved captures (test/analyzer/artifacts/lab/, taken by the
 * lab run in Chromium of the WordPress fixture and of the known-shift page) and the lab checks
 * on it — thresholds, attribution to core, the theme and plugins, and skips without a lab run.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { auditLab, LAB_THRESHOLDS } from "../../server/analyzer/audit/performance/lab.ts";
import { blockingMs, clsWindow, componentOf, medianMetrics } from "../../server/analyzer/extract/lab.ts";
import type { LabCapture } from "../../server/analyzer/lab/capture.ts";
import type { Lab } from "../../shared/report.ts";
import { loadArtifacts, WP_FIXTURE } from "./artifacts.ts";
import { factsOf, statusOf } from "./facts.ts";

const capture = (name: string) =>
  JSON.parse(readFileSync(path.join(import.meta.dir, "artifacts", "lab", `${name}.json`), "utf8")) as LabCapture;
const withLab = (lab: LabCapture): Artifacts => ({ ...loadArtifacts(WP_FIXTURE), lab });
const labOf = (artifacts: Artifacts) => factsOf(artifacts).performance.lab as Lab;
const LAB_CHECKS = [
  "performance.lcp",
  "performance.cls",
  "performance.tbt",
  "performance.lab_render_blocking",
  "performance.lab_image_dimensions",
];

describe("performance.lab from a capture of the WordPress fixture", () => {
  const lab = labOf(withLab(capture("wp-fixture-mobile")));

  test("the median of three loads, with the spread", () => {
    expect(lab.status).toBe("complete");
    expect(lab.completed_runs).toBe(3);
    expect(lab.metrics?.requests).toBe(9);
    expect(lab.spread?.lcp_ms?.min).toBeLessThanOrEqual(lab.metrics?.lcp_ms as number);
    expect(lab.spread?.lcp_ms?.max).toBeGreaterThanOrEqual(lab.metrics?.lcp_ms as number);
    expect(lab.thumbnail).toMatch(/^data:image\/jpeg;base64,/);
  });

  test("every file goes to core, the theme or the site; render-blocking files name their component", () => {
    const kinds = lab.components.map((entry) => `${entry.component.kind}:${entry.component.slug ?? ""}`);
    expect(kinds).toContain("theme:twentytwentyone");
    expect(kinds).toContain("core:");
    expect(lab.third_party).toEqual([]);
    const blocking = lab.render_blocking.map((file) => `${file.component.kind}:${file.component.slug ?? ""}`);
    expect(blocking).toContain("theme:twentytwentyone");
    expect(blocking).toContain("core:");
  });

  test("its lab checks ran: render-blocking files warn, naming the theme", () => {
    const checks = auditLab(factsOf(withLab(capture("wp-fixture-mobile"))));
    expect(checks.map((check) => check.id)).toEqual(LAB_CHECKS);
    expect(statusOf(checks, "performance.cls")).toBe("pass");
    expect(statusOf(checks, "performance.tbt")).toBe("pass");
    expect(statusOf(checks, "performance.lab_render_blocking")).toBe("warn");
    expect(checks.find((check) => check.id === "performance.lab_render_blocking")?.evidence.join(" ")).toContain(
      "theme twentytwentyone",
    );
  });
});

describe("the known layout shift and long task", () => {
  test("CLS over 0.1 and TBT over 200 ms: neither check passes; the long task is the site's script", () => {
    const artifacts = withLab(capture("shift-and-long-task"));
    const lab = labOf(artifacts);
    expect(lab.metrics?.cls).toBeGreaterThan(0.1);
    expect(lab.metrics?.tbt_ms).toBeGreaterThan(200);
    const checks = auditLab(factsOf(artifacts));
    expect(statusOf(checks, "performance.cls")).not.toBe("pass");
    expect(statusOf(checks, "performance.tbt")).not.toBe("pass");
    expect(lab.long_tasks[0]?.component?.kind).toBe("site");
  });

  test("a plugin's script in the long task is named in the TBT check", () => {
    const shifted = capture("shift-and-long-task");
    for (const frame of shifted.runs[0]?.frames ?? [])
      for (const script of frame.scripts)
        script.url = "http://127.0.0.1:8088/wp-content/plugins/slider-x/slider.js?ver=2";
    const checks = auditLab(factsOf(withLab(shifted)));
    const tbt = checks.find((check) => check.id === "performance.tbt");
    expect(tbt?.message).toContain("plugin slider-x's script");
  });
});

describe("lab checks skip without a completed lab run", () => {
  test("no lab run: every lab check skips, and the report has no performance.lab", () => {
    const facts = factsOf(loadArtifacts(WP_FIXTURE));
    expect(facts.performance.lab).toBeUndefined();
    const checks = auditLab(facts);
    expect(checks.map((check) => check.status)).toEqual(LAB_CHECKS.map(() => "skip"));
  });

  test("a failed or unavailable lab run: skip, with its reason", () => {
    for (const status of ["failed", "unavailable"] as const) {
      const lab = { ...capture("wp-fixture-mobile"), status, reason: "The browser was killed", runs: [] };
      const checks = auditLab(factsOf(withLab(lab)));
      expect(checks.every((check) => check.status === "skip")).toBe(true);
      expect(checks[0]?.message).toContain("The browser was killed");
      expect(labOf(withLab(lab)).metrics).toBeNull();
    }
  });
});

describe("metrics as Lighthouse and web.dev define them", () => {
  const shift = (startMs: number, value: number) => ({ startMs, value, hadRecentInput: false, sources: [] });

  test("CLS is the largest session window (1 s gap, 5 s cap), not the sum of all shifts", () => {
    expect(clsWindow([shift(100, 0.05), shift(600, 0.05), shift(3000, 0.08)]).value).toBeCloseTo(0.1);
    // Ten shifts 0.9 s apart: a window closes after 5 s.
    const steady = Array.from({ length: 10 }, (_, i) => shift(i * 900, 0.01));
    expect(clsWindow(steady).value).toBeCloseTo(0.06);
    expect(clsWindow([]).value).toBe(0);
  });

  test("TBT counts each task's part beyond 50 ms, after FCP only", () => {
    expect(blockingMs({ startMs: 1000, durationMs: 450 }, 500, 5000)).toBe(400);
    expect(blockingMs({ startMs: 1000, durationMs: 50 }, 500, 5000)).toBe(0);
    // A task straddling FCP counts from FCP on.
    expect(blockingMs({ startMs: 400, durationMs: 200 }, 500, 5000)).toBe(50);
    expect(blockingMs({ startMs: 100, durationMs: 300 }, 500, 5000)).toBe(0);
  });

  test("the median of an even number of loads is the mean of the middle two", () => {
    const metrics = (lcp: number) => ({
      ttfb_ms: 10,
      fcp_ms: 100,
      lcp_ms: lcp,
      cls: 0,
      tbt_ms: 0,
      speed_index_ms: null,
      requests: 1,
      transfer_bytes: 1,
    });
    expect(medianMetrics([metrics(100), metrics(300), metrics(200), metrics(900)]).lcp_ms).toBe(250);
  });

  test("thresholds: good at most 2.5 s / 0.1 / 200 ms, poor above 4 s / 0.25 / 600 ms", () => {
    const base = labOf(withLab(capture("wp-fixture-mobile")));
    const statuses = (metrics: Partial<NonNullable<Lab["metrics"]>>) => {
      const lab = { ...base, metrics: { ...(base.metrics as NonNullable<Lab["metrics"]>), ...metrics } };
      const facts = factsOf(loadArtifacts(WP_FIXTURE));
      const checks = auditLab({ ...facts, performance: { ...facts.performance, lab } });
      return [
        statusOf(checks, "performance.lcp"),
        statusOf(checks, "performance.cls"),
        statusOf(checks, "performance.tbt"),
      ];
    };
    const { lcp_ms, cls, tbt_ms } = LAB_THRESHOLDS;
    expect(statuses({ lcp_ms: lcp_ms.good, cls: cls.good, tbt_ms: tbt_ms.good })).toEqual(["pass", "pass", "pass"]);
    expect(statuses({ lcp_ms: lcp_ms.good + 1, cls: 0.11, tbt_ms: 201 })).toEqual(["warn", "warn", "warn"]);
    expect(statuses({ lcp_ms: lcp_ms.poor, cls: cls.poor, tbt_ms: tbt_ms.poor })).toEqual(["warn", "warn", "warn"]);
    expect(statuses({ lcp_ms: 4001, cls: 0.26, tbt_ms: 601 })).toEqual(["fail", "fail", "fail"]);
  });

  test("attribution: plugin and theme folders, core, the site, third parties; asset origins count as the site's", () => {
    const paths = factsOf(loadArtifacts(WP_FIXTURE)).paths;
    const site = "http://127.0.0.1:8088";
    expect(componentOf(`${site}/wp-content/plugins/akismet/_inc/form.js`, paths, site)).toEqual({
      kind: "plugin",
      slug: "akismet",
      origin: site,
    });
    expect(componentOf(`${site}/wp-includes/js/jquery/jquery.min.js`, paths, site)?.kind).toBe("core");
    expect(componentOf(`${site}/custom/app.js`, paths, site)?.kind).toBe("site");
    expect(componentOf("https://www.googletagmanager.com/gtag/js", paths, site)).toEqual({
      kind: "third_party",
      slug: null,
      origin: "https://www.googletagmanager.com",
    });
    const cdn = { ...paths, assetBases: ["https://cdn.example.com/wp-content/"] };
    expect(componentOf("https://cdn.example.com/wp-content/plugins/slider-x/s.js", cdn, site)?.slug).toBe("slider-x");
    expect(componentOf("data:image/png;base64,AA", paths, site)).toBeNull();
  });
});
