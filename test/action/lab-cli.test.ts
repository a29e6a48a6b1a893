/**
 * The lab through the CLI (action/dist/cli.js, the real process) and the Action's inputs:
 * `--lab` asks the real service for a lab report (Debian's Chromium), budgets on lab metrics
 * gate it, and lab settings are checked before any request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import path from "node:path";
import { readInputs } from "../../action/src/inputs.ts";
import { labBody, parseLabOptions } from "../../action/src/lab-options.ts";
import { type LabPages, startLabPages } from "../analyzer/lab/pages.ts";
import { runProcess } from "../helpers/processes.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

const CLI = path.resolve(import.meta.dir, "../../action/dist/cli.js");
const cli = (args: string[], env: Record<string, string>) =>
  runProcess(["node", CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env } });

describe("lab options of the Action and the CLI", () => {
  const names = { lab: "--lab", device: "--lab-device", throttling: "--lab-throttling", runs: "--lab-runs" };

  test("read once: defaults left to the service, values checked, settings without the lab refused", () => {
    expect(parseLabOptions({ lab: "false" }, names)).toBeUndefined();
    expect(parseLabOptions({}, names)).toBeUndefined();
    expect(parseLabOptions({ lab: true }, names)).toEqual({});
    expect(parseLabOptions({ lab: "TRUE", device: "Desktop", throttling: "none", runs: "3" }, names)).toEqual({
      device: "desktop",
      throttling: "none",
      runs: 3,
    });
    expect(labBody({ device: "desktop", runs: 3 })).toEqual({ lab: true, lab_device: "desktop", lab_runs: 3 });
    expect(labBody(undefined)).toEqual({});
    expect(() => parseLabOptions({ lab: "yes" }, names)).toThrow("--lab must be true or false");
    expect(() => parseLabOptions({ lab: true, runs: "6" }, names)).toThrow(
      "--lab-runs must be a whole number from 1 to 5",
    );
    expect(() => parseLabOptions({ lab: true, device: "tablet" }, names)).toThrow(
      "--lab-device must be mobile or desktop",
    );
    expect(() => parseLabOptions({ lab: true, throttling: "3g" }, names)).toThrow(
      "--lab-throttling must be default or none",
    );
    expect(() => parseLabOptions({ device: "desktop" }, names)).toThrow("--lab-device only apply with --lab true");
  });

  test("the Action's inputs lab, lab-device, lab-throttling, lab-runs", () => {
    const inputs = (values: Record<string, string>) => ({
      getInput: (name: string) =>
        ({ "api-url": "https://wpreport.example", token: "wpr_x", url: "https://example.com/", ...values })[name] ?? "",
      setSecret: () => {},
    });
    expect(readInputs(inputs({})).lab).toBeUndefined();
    expect(readInputs(inputs({ lab: "true", "lab-throttling": "none" })).lab).toEqual({ throttling: "none" });
    expect(() => readInputs(inputs({ lab: "false", "lab-runs": "2" }))).toThrow(
      "Input lab-runs only apply with Input lab true",
    );
  });
});

describe.skipIf(!existsSync("/usr/bin/chromium") || !existsSync(CLI))("wpreport check --lab", () => {
  let service: TestService;
  let pages: LabPages;
  let env: Record<string, string>;
  beforeAll(async () => {
    pages = startLabPages();
    service = await startTestService({
      env: { TARGET_ALLOWLIST: `127.0.0.1:${pages.port}`, CHROMIUM_PATH: "/usr/bin/chromium" },
    });
    const { token } = await service.token(undefined, "business");
    env = { WPREPORT_API_URL: service.url, WPREPORT_TOKEN: token, CI_PIPELINE_ID: String(Date.now()) };
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    pages?.stop();
  });

  test("a lab report of the known-shift page fails a CLS budget, saying by how much", async () => {
    const run = await cli(
      [
        "check",
        "--url",
        `${pages.origin}/shift/`,
        "--baseline",
        "none",
        "--lab",
        "--lab-throttling",
        "none",
        "--budgets",
        "cls=0.1,lcp_ms=10s",
        "--format",
        "json",
      ],
      { ...env, CI_JOB_ID: "lab-1" },
    );
    expect(run.code).toBe(1);
    const parsed = JSON.parse(run.stdout) as {
      report: { performance: { lab: { status: string; metrics: { cls: number } } } };
      diff: { verdict: { reasons: string[] } };
    };
    expect(parsed.report.performance.lab.status).toBe("complete");
    expect(parsed.report.performance.lab.metrics.cls).toBeGreaterThan(0.1);
    expect(parsed.diff.verdict.reasons.join(" ")).toContain("Cumulative Layout Shift (lab) is");
    expect(parsed.diff.verdict.reasons.join(" ")).not.toContain("Largest Contentful Paint");
  }, 180_000);

  test("--lab-runs out of range: exit 2 before any request", async () => {
    const run = await cli(["check", "--url", `${pages.origin}/fast/`, "--lab", "--lab-runs", "9"], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--lab-runs must be a whole number from 1 to 5");
  });
});
