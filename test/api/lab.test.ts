/**
 * Lab reports through the API: `"lab": true` with its options, end to end on the real analysis
 * and Debian's Chromium (the WordPress fixture, and the known-shift page with a resource on a
 * loopback port the service's TARGET_ALLOWLIST does not allow), the request's rules, and the lab
 * queue: a flood of lab reports never holds up a passive one, and a worker runs at most
 * LAB_CONCURRENCY of them at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import type { AnalysisResult } from "../../server/analyzer/analyze.ts";
import type { AnalyzeRequest } from "../../server/reports/reports.service.ts";
import type { Report } from "../../shared/report.ts";
import { type LabPages, startLabPages } from "../analyzer/lab/pages.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { expectValidReport } from "../helpers/report-schema.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

const HAS_CHROMIUM = existsSync("/usr/bin/chromium");

describe.skipIf(!HAS_CHROMIUM)("lab reports on the real analysis", () => {
  let service: TestService;
  let token: string;
  let pages: LabPages;
  beforeAll(async () => {
    pages = startLabPages();
    service = await startTestService({
      env: {
        // The pages' port and the WordPress fixture's; the pages' second server is not allowed.
        TARGET_ALLOWLIST: `127.0.0.1:${pages.port},127.0.0.1:8088,localhost:8090`,
        CHROMIUM_PATH: "/usr/bin/chromium",
      },
    });
    ({ token } = await service.token());
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    pages?.stop();
  });

  test("the known shift and long task: performance.lab says so, its CLS and TBT checks do not pass, the other port is never reached", async () => {
    const created = await service.call<Report>("POST", "/api/generate-report", {
      token,
      body: { url: `${pages.origin}/shift/`, lab: true, lab_throttling: "none" },
    });
    expect(created.status).toBe(201);
    const report = created.body;
    expectValidReport(report);
    const lab = report.performance?.lab;
    // With its reason, should it fail.
    expect({ status: lab?.status, reason: lab?.reason }).toEqual({ status: "complete", reason: null });
    expect(lab?.device).toBe("mobile");
    expect(lab?.throttling).toBe("none");
    expect(lab?.metrics?.cls).toBeGreaterThan(0.1);
    expect(lab?.metrics?.tbt_ms).toBeGreaterThan(200);
    const cls = report.checks.find((check) => check.id === "performance.cls");
    expect(cls?.status).not.toBe("pass");
    expect(report.checks.find((check) => check.id === "performance.tbt")?.status).not.toBe("pass");
    expect(pages.forbidden.hits()).toBe(0);
  }, 120_000);

  test.skipIf(!HAS_WORDPRESS)(
    "the WordPress fixture on desktop, two loads: files attributed to core and the theme",
    async () => {
      const created = await service.call<Report>("POST", "/api/generate-report", {
        token,
        body: { url: WORDPRESS_URL, lab: true, lab_device: "desktop", lab_throttling: "none", lab_runs: 2 },
      });
      expect(created.status).toBe(201);
      expectValidReport(created.body);
      const lab = created.body.performance?.lab;
      expect(lab?.status).toBe("complete");
      expect(lab?.device).toBe("desktop");
      expect(lab?.completed_runs).toBe(2);
      const owners = lab?.components.map((entry) => `${entry.component.kind}:${entry.component.slug ?? ""}`);
      expect(owners).toContain("theme:twentytwentyone");
      expect(owners).toContain("core:");
      expect(created.body.checks.find((check) => check.id === "performance.lcp")?.status).not.toBe("skip");
    },
    120_000,
  );

  test("a report without lab has no performance.lab, and its lab checks skip", async () => {
    const created = await service.call<Report>("POST", "/api/generate-report", {
      token,
      body: { url: `${pages.origin}/fast/` },
    });
    expect(created.status).toBe(201);
    expect(created.body.performance?.lab).toBeUndefined();
    const lab = created.body.checks.filter((check) =>
      ["performance.lcp", "performance.cls", "performance.tbt"].includes(check.id),
    );
    expect(lab.map((check) => check.status)).toEqual(["skip", "skip", "skip"]);
  }, 60_000);

  test("lab options without lab, or out of range, are refused before anything is charged", async () => {
    const without = await service.call("POST", "/api/generate-report", {
      token,
      body: { url: `${pages.origin}/fast/`, lab_runs: 3 },
    });
    expect(without.status).toBe(400);
    expect(without.body.code).toBe("invalid_request");
    expect(String(without.body.detail)).toContain('only apply with "lab": true');
    for (const body of [
      { lab: true, lab_runs: 6 },
      { lab: true, lab_runs: 0 },
      { lab: true, lab_device: "tablet" },
      { lab: true, lab_throttling: "slow" },
      { lab: "yes" },
    ]) {
      const refused = await service.call("POST", "/api/generate-report", {
        token,
        body: { url: `${pages.origin}/fast/`, ...body },
      });
      expect(refused.status).toBe(400);
    }
    const usage = await service.call<{ used: number; in_progress: number }>("GET", "/api/usage", { token });
    expect(usage.body.in_progress).toBe(0);
  }, 60_000);
});

/** A stand-in analysis: lab reports wait until released (a flood that never ends by itself), passive ones finish at once. */
function gatedAnalysis() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { labRunning: 0, labMostAtOnce: 0, labStarted: 0, passiveDone: 0 };
  const result = (url: string): AnalysisResult =>
    ({
      final_url: url,
      redirects: [],
      summary: null,
      wordpress: null,
      theme: null,
      plugins: [],
      hosting: null,
      performance: null,
      seo: null,
      security: null,
      checks: [],
      errors: [],
      intel: null,
      mode: "passive",
      enumeration: null,
      installed_themes: [],
    }) as unknown as AnalysisResult;
  const analyze = async (url: string, _signal: AbortSignal, request: AnalyzeRequest) => {
    if (!request.lab) {
      state.passiveDone += 1;
      return result(url);
    }
    state.labStarted += 1;
    state.labRunning += 1;
    state.labMostAtOnce = Math.max(state.labMostAtOnce, state.labRunning);
    await gate;
    state.labRunning -= 1;
    return result(url);
  };
  return { analyze, release: () => release(), state };
}

describe.each(BACKENDS)("the lab queue on %s", (backend) => {
  let service: TestService;
  const gated = gatedAnalysis();
  beforeAll(async () => {
    service = await startTestService({
      backend,
      analyze: gated.analyze,
      env: {
        WORKER_CONCURRENCY: "1",
        LAB_CONCURRENCY: "1",
        ACCOUNT_CONCURRENCY: "enterprise=20",
        HOST_CONCURRENCY: "50",
        TARGET_ADDRESS_CONCURRENCY: "50",
      },
    });
  }, 60_000);
  afterAll(async () => {
    gated.release();
    await service?.stop();
  });

  test("a flood of lab reports never holds up a passive report; at most LAB_CONCURRENCY lab runs at once", async () => {
    const { token } = await service.token(undefined, "enterprise");
    const flood = [];
    for (let i = 0; i < 6; i++) {
      const queued = await service.call<Report>("POST", "/api/generate-report", {
        token,
        headers: { prefer: "respond-async" },
        body: { url: `http://127.0.0.1/lab-${i}/`, lab: true },
      });
      expect(queued.status).toBe(202);
      flood.push(queued.body.id);
    }
    // The worker's one passive slot is free: the passive report completes while every lab report waits.
    const passive = await service.call<Report>("POST", "/api/generate-report", {
      token,
      body: { url: "http://127.0.0.1/passive/" },
    });
    expect(passive.status).toBe(201);
    expect(passive.body.status).toBe("completed");
    expect(gated.state.labMostAtOnce).toBe(1);
    const waiting = await Promise.all(
      flood.map((id) => service.call<Report>("GET", `/api/report/${id}`, { token }).then((read) => read.body.status)),
    );
    expect(waiting.filter((status) => status === "completed")).toEqual([]);
    // Released, they all complete, still one at a time.
    gated.release();
    for (const id of flood) {
      let status = "queued";
      for (let attempt = 0; attempt < 600 && status !== "completed"; attempt++) {
        status = (await service.call<Report>("GET", `/api/report/${id}`, { token })).body.status;
        if (status !== "completed") await Bun.sleep(100);
      }
      expect(status).toBe("completed");
    }
    expect(gated.state.labStarted).toBe(6);
    expect(gated.state.labMostAtOnce).toBe(1);
  }, 120_000);
});
