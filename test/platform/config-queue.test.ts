/** The queue's configuration: roles, limits and their defaults. */
import { expect, test } from "bun:test";
import { loadConfig } from "../../server/start/config.ts";
import { configProblems } from "../helpers/config.ts";

const problemsOf = configProblems;

test("defaults: one process does both, limits from the plan table", () => {
  const config = loadConfig({});
  expect(config).toMatchObject({
    platform: { role: "all", metricsToken: undefined },
    reports: {
      workerConcurrency: 4,
      hostConcurrency: 2,
      queueMaxDepth: 200,
      queueWaitMs: 120_000,
      syncWaitMs: 45_000,
      analysisMaxBytes: 32 * 1024 * 1024,
    },
  });
  expect(config.reports.accountConcurrency).toMatchObject({ free: 1, starter: 2, business: 3, enterprise: 10 });
});

test("roles and per-plan concurrency are read and checked", () => {
  const config = loadConfig({
    DATABASE_URL: "postgres://db/wp",
    WPREPORT_ROLE: "Worker",
    ACCOUNT_CONCURRENCY: "free=2, enterprise=20",
    ANALYSIS_TIMEOUT_MS: "10000",
  });
  expect(config.platform.role).toBe("worker");
  expect(config.reports.accountConcurrency).toMatchObject({ free: 2, starter: 2, enterprise: 20 });
  expect(config.reports.syncWaitMs).toBe(25_000);
  expect(problemsOf({ WPREPORT_ROLE: "api" })).toEqual([
    "WPREPORT_ROLE=api needs DATABASE_URL: the embedded database has one owner process (use all)",
  ]);
  expect(problemsOf({ WPREPORT_ROLE: "both" })).toEqual(['WPREPORT_ROLE must be one of all, api, worker, got "both"']);
  expect(problemsOf({ ACCOUNT_CONCURRENCY: "gold=3,free=0" })).toEqual([
    'ACCOUNT_CONCURRENCY entry "gold=3" must look like free=1 (a plan id and 1-100)',
    'ACCOUNT_CONCURRENCY entry "free=0" must look like free=1 (a plan id and 1-100)',
  ]);
});

test("lab runs: one per worker process by default, a deadline and a memory cap, each checked", () => {
  expect(loadConfig({}).reports.lab).toEqual({ concurrency: 1, timeoutMs: 60_000, maxMemoryMb: 1_536 });
  expect(loadConfig({ LAB_CONCURRENCY: "3", LAB_TIMEOUT_MS: "20000", LAB_MAX_MEMORY_MB: "512" }).reports.lab).toEqual({
    concurrency: 3,
    timeoutMs: 20_000,
    maxMemoryMb: 512,
  });
  const problems = problemsOf({ LAB_CONCURRENCY: "0", LAB_TIMEOUT_MS: "soon", LAB_MAX_MEMORY_MB: "10" });
  expect(problems).toHaveLength(3);
  expect(problems.join("\n")).toContain("LAB_CONCURRENCY");
  expect(problems.join("\n")).toContain("LAB_TIMEOUT_MS");
  expect(problems.join("\n")).toContain("LAB_MAX_MEMORY_MB");
});

test("dead targets: the quick check's window and deadline, with their bounds", () => {
  expect(loadConfig({}).reports).toMatchObject({ deadTargetWindowMs: 60_000, deadTargetCheckMs: 5_000 });
  expect(loadConfig({ DEAD_TARGET_WINDOW_MS: "0", DEAD_TARGET_CHECK_MS: "1500" }).reports).toMatchObject({
    deadTargetWindowMs: 0,
    deadTargetCheckMs: 1_500,
  });
  expect(problemsOf({ DEAD_TARGET_CHECK_MS: "100" })).toHaveLength(1);
  expect(problemsOf({ DEAD_TARGET_WINDOW_MS: "-1" })).toHaveLength(1);
});
