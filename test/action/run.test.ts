/**
 * The Action's run() in-process, as actions/typescript-action tests its main: the runner
 * (@actions/core), the API client and GitHub's API are fakes that record what run() does. The
 * fake service answers the diff with the real engine (shared/diff.ts) and the real options
 * parser, for the baseline the test gives it. action-e2e.test.ts and action-sites-e2e.test.ts
 * run the bundled Action end to end against the real service.
 */
import { describe, expect, test } from "bun:test";
import type { AnnotationProperties } from "@actions/core";
import type { ActionCore } from "../../action/src/action-core.ts";
import { type ActionDeps, run } from "../../action/src/run.ts";
import { ApiError, type ClientOptions, type GenerateReportInput } from "../../shared/client.ts";
import { type Diff, diff } from "../../shared/diff.ts";
import { parseDiffOptions } from "../../shared/diff-options.ts";
import type { Check, Report } from "../../shared/report.ts";
import { baseReport } from "./diff/report-arbitrary.ts";

const API = "https://wpreport.example";
const SITE = "https://staging.example.com/";

const check = (id: string, status: Check["status"], severity: Check["severity"], message = "m"): Check => ({
  id,
  category: "security",
  severity,
  status,
  title: `Title ${id}`,
  message,
  evidence: [],
  remediation: "Fix it.",
});

/** A report of SITE with these checks. */
function reportWith(id: string, checks: Check[]): Report {
  const report = baseReport(id);
  report.url = SITE;
  report.final_url = SITE;
  report.checks = checks;
  return report;
}

/** The runner: inputs in, and everything run() says recorded in order. */
function fakeCore(inputs: Record<string, string>) {
  const said: { kind: string; message: string; title?: string }[] = [];
  const outputs: Record<string, string> = {};
  const secrets: string[] = [];
  let summary = "";
  let failed: string | null = null;
  const annotation = (kind: string) => (message: string, properties?: AnnotationProperties) =>
    said.push({ kind, message, ...(properties?.title ? { title: properties.title } : {}) });
  const core: ActionCore = {
    getInput: (name, options) => {
      const value = inputs[name] ?? "";
      if (options?.required && value === "") throw new Error(`Input required and not supplied: ${name}`);
      return value;
    },
    setSecret: (secret) => secrets.push(secret),
    info: (message) => said.push({ kind: "info", message }),
    warning: annotation("warning"),
    error: annotation("error"),
    notice: annotation("notice"),
    setOutput: (name, value) => {
      outputs[name] = value;
    },
    setFailed: (message) => {
      failed = message;
      said.push({ kind: "error", message });
    },
    writeSummary: async (markdown) => {
      summary += markdown;
    },
  };
  return {
    core,
    said,
    outputs,
    secrets,
    summary: () => summary,
    failed: () => failed,
    log: () => said.filter((line) => line.kind === "info").map((line) => line.message),
    of: (kind: string) => said.filter((line) => line.kind === kind),
  };
}

/**
 * The service: generateReport answers with `head` (or throws `fails`), diff compares with
 * `baseline` through the real engine and options parser, as GET /api/report/{id}/diff does.
 */
function fakeService(head: Report, baseline: Report | null, fails?: { on: "generate" | "diff"; error: Error }) {
  const calls = {
    options: [] as ClientOptions[],
    generated: [] as { input: GenerateReportInput; idempotencyKey: string | undefined }[],
    diffs: [] as { id: string; base: string; query: Record<string, string> }[],
    closed: 0,
  };
  const createClient = (options: ClientOptions) => {
    calls.options.push(options);
    return {
      async generateReport(input: GenerateReportInput, options: { idempotencyKey?: string } = {}) {
        calls.generated.push({ input, idempotencyKey: options.idempotencyKey });
        if (fails?.on === "generate") throw fails.error;
        return { report: head, replayed: false };
      },
      async diff(id: string, base: string, query: Record<string, string> = {}): Promise<Diff> {
        calls.diffs.push({ id, base, query });
        if (fails?.on === "diff") throw fails.error;
        const options = parseDiffOptions({
          failOn: query.fail_on,
          maxScoreDrop: query.max_score_drop,
          budgets: query.budgets,
        });
        return diff(base === "none" ? null : baseline, head, options);
      },
      close() {
        calls.closed++;
      },
    };
  };
  return { createClient, calls };
}

const GITHUB_ENV = {
  GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567",
  GITHUB_REF: "refs/heads/main",
  GITHUB_SERVER_URL: "https://github.com",
  GITHUB_REPOSITORY: "acme/site",
  GITHUB_RUN_ID: "1234",
  GITHUB_RUN_ATTEMPT: "1",
  GITHUB_JOB: "wpreport",
  GITHUB_ACTION: "__acme_wpreport",
};

async function runWith(
  { head, baseline, fails }: { head: Report; baseline: Report | null; fails?: Parameters<typeof fakeService>[2] },
  extraInputs: Record<string, string> = {},
  upsertPrComment: ActionDeps["upsertPrComment"] = async () => null,
) {
  const runner = fakeCore({
    "api-url": `${API}/`,
    "api-token": "wpr_secret",
    url: SITE,
    environment: "staging",
    matrix: "null",
    ...extraInputs,
  });
  const service = fakeService(head, baseline, fails);
  await run(GITHUB_ENV, { core: runner.core, createClient: service.createClient, upsertPrComment });
  return { ...runner, calls: service.calls };
}

describe("the Action's run(), in-process", () => {
  test("pass: compared with the service's baseline, outputs set, summary written, the job not failed", async () => {
    const base = reportWith("rep_a", [check("security.x", "pass", "high"), check("security.y", "fail", "low")]);
    const head = reportWith("rep_b", [check("security.x", "pass", "high"), check("security.y", "fail", "low")]);
    const run = await runWith({ head, baseline: base }, { "max-score-drop": "5", budgets: "html_bytes=1MiB" });

    expect(run.secrets).toEqual(["wpr_secret"]);
    expect(run.calls.options[0]).toMatchObject({ apiUrl: API, token: "wpr_secret" });
    expect(run.calls.options[0]?.userAgent).toMatch(/^wpreport-action\//);
    // One report request, with the run's metadata and an Idempotency-Key of this step.
    expect(run.calls.generated).toHaveLength(1);
    expect(run.calls.generated[0]?.input).toEqual({
      url: SITE,
      metadata: {
        git_sha: GITHUB_ENV.GITHUB_SHA,
        git_ref: "refs/heads/main",
        environment: "staging",
        ci_run_url: "https://github.com/acme/site/actions/runs/1234",
      },
    });
    expect(run.calls.generated[0]?.idempotencyKey).toMatch(/^ci-1234-1-[0-9a-f]{32}$/);
    // The service decides the baseline: one diff request, base=latest, the thresholds as parsed.
    expect(run.calls.diffs).toEqual([
      { id: "rep_b", base: "latest", query: { fail_on: "high", max_score_drop: "5", budgets: "html_bytes=1048576" } },
    ]);
    expect(run.calls.closed).toBe(1);

    expect(run.log()).toContain("wpreport: comparing with rep_a");
    expect(run.log()[0]).toBe("wpreport: report rep_b: score 90 (A)");
    expect(run.outputs).toEqual({
      "report-id": "rep_b",
      "report-url": `${API}/reports/rep_b`,
      "report-api-url": `${API}/api/report/rep_b`,
      score: "90",
      grade: "A",
      regressions: "0",
      result: "pass",
    });
    expect(run.summary()).toContain("### wpreport: ✅ Passed");
    expect(run.summary()).toContain(`compared with [rep\\_a](${API}/reports/rep_a)`);
    expect(run.summary()).toContain("| HTML size | ≤ 1.05 MB |");
    expect(run.failed()).toBeNull();
    expect(run.of("error")).toEqual([]);
    expect(run.of("warning")).toEqual([]);
    expect(run.log().at(-1)).toMatch(/^wpreport: action overhead \d+ ms \(service \d+ ms\)$/);
  });

  test("fail: a regression at fail-on is annotated, summarised, and fails the job last", async () => {
    const base = reportWith("rep_a", [check("security.x", "pass", "high")]);
    const head = reportWith("rep_b", [check("security.x", "fail", "high", "It broke.")]);
    const run = await runWith({ head, baseline: base });

    expect(run.outputs).toMatchObject({ result: "fail", regressions: "1" });
    const errors = run.of("error");
    expect(errors[0]).toEqual({
      kind: "error",
      title: "wpreport: Title security.x",
      message: "security.x (high): pass → fail. It broke. Fix: Fix it.",
    });
    expect(run.failed()).toBe("wpreport: 1 check regressed at severity high or above: security.x");
    expect(run.said.at(-1)).toEqual({ kind: "error", message: run.failed() as string }); // the last word
    expect(run.summary()).toContain("### wpreport: ❌ Failed");
    expect(run.summary()).toContain("**Why it failed**");

    // fail-on: critical: the same regression is annotated, the job passes.
    const lenient = await runWith({ head, baseline: base }, { "fail-on": "CRITICAL" });
    expect(lenient.calls.diffs[0]?.query).toEqual({ fail_on: "critical" });
    expect(lenient.outputs.result).toBe("pass");
    expect(lenient.of("error").map((error) => error.title)).toEqual(["wpreport: Title security.x"]);
    expect(lenient.failed()).toBeNull();
  });

  test("error: an API error fails the job in plain words, result error, the client closed", async () => {
    const head = reportWith("rep_b", []);
    const quota = new ApiError(
      402,
      { code: "quota_exhausted", detail: "Used up.", resets_at: "2026-02-01T00:00:00.000Z" },
      "Used up.",
    );
    const run = await runWith({ head, baseline: null, fails: { on: "generate", error: quota } });
    expect(run.outputs).toEqual({ result: "error" });
    expect(run.failed()).toBe(
      "This month's report quota is used up, so no new report could be made. It resets at 2026-02-01T00:00:00.000Z. Upgrade the plan for more reports.",
    );
    expect(run.calls.diffs).toEqual([]);
    expect(run.summary()).toBe("");
    expect(run.calls.closed).toBe(1);

    // After the report: the log has already named it.
    const missing = new ApiError(404, { code: "not_found", detail: "There is no base report with this id." }, "");
    const late = await runWith(
      { head, baseline: null, fails: { on: "diff", error: missing } },
      { baseline: "rep_01hzx8m3k2v7q9w4e5r6t7y8u9" },
    );
    expect(late.calls.diffs[0]?.base).toBe("rep_01hzx8m3k2v7q9w4e5r6t7y8u9");
    expect(late.log()).toEqual(["wpreport: report rep_b: score 90 (A)"]);
    expect(late.outputs).toEqual({ result: "error" });
    expect(late.failed()).toBe("The wpreport API answered 404 (not_found). There is no base report with this id.");
  });

  test("bad inputs fail before any request, naming the input", async () => {
    const head = reportWith("rep_b", []);
    const run = await runWith({ head, baseline: null }, { "fail-on": "severe" });
    expect(run.failed()).toBe('Input fail-on must be one of critical, high, medium, low, info, none, got "severe".');
    expect(run.outputs).toEqual({ result: "error" });
    expect(run.calls.options).toEqual([]); // no client made
    const baseline = await runWith({ head, baseline: null }, { baseline: "previous" });
    expect(baseline.failed()).toBe('Input baseline must be "latest", "none" or a report id (rep_…), got "previous".');
  });

  test("first run: no baseline, the checks failing now in the log and the summary, not failing the job", async () => {
    const head = reportWith("rep_b", [
      check("security.https", "fail", "high", "Served over http.\n::error::injected"),
      check("seo.meta_description", "warn", "low"),
      check("security.hsts", "pass", "medium"),
    ]);
    const run = await runWith({ head, baseline: null });
    expect(run.log().slice(1, 4)).toEqual([
      "wpreport: no baseline to compare with, so nothing is a regression; 2 checks fail now:",
      "  [high] security.https: fail — Served over http. ::error::injected",
      "  [low] seo.meta_description: warn — m",
    ]);
    expect(run.outputs).toMatchObject({ result: "pass", regressions: "0" });
    expect(run.summary()).toContain("no baseline");
    expect(run.summary()).toContain("#### Failing now (2)");
    expect(run.failed()).toBeNull();
  });

  test("a site that is not WordPress: one warning naming what it runs on", async () => {
    const head = reportWith("rep_b", []);
    head.wordpress = { ...(head.wordpress as NonNullable<Report["wordpress"]>), detected: false, confidence: 0 };
    head.hosting = {
      ...(head.hosting as NonNullable<Report["hosting"]>),
      stack: [{ name: "Hugo", category: "static_site_generator", version: "0.111.3", confidence: 100, evidence: [] }],
    };
    head.errors = [];
    const run = await runWith({ head, baseline: null });
    expect(run.of("warning")).toEqual([
      {
        kind: "warning",
        title: "wpreport: not WordPress",
        message: `${SITE}: This site does not look like WordPress (confidence 0%); it runs on Hugo 0.111.3. Only the checks that apply to any site ran. Is the URL the WordPress site you meant?`,
      },
    ]);
    expect(run.outputs.result).toBe("pass");
  });

  test("comment-on-pr: one comment of the summary, at most 20 rows a table; a failure to post only warns", async () => {
    const failing = Array.from({ length: 25 }, (_, i) =>
      check(`security.c${String(i).padStart(2, "0")}`, "fail", "low"),
    );
    const head = reportWith("rep_b", failing);
    const posted: { token: string; url: string; body: string }[] = [];
    const run = await runWith(
      { head, baseline: null },
      { "comment-on-pr": "true", "github-token": "ghs_x" },
      async (token, url, body) => {
        posted.push({ token, url, body });
        return "created";
      },
    );
    expect(posted).toEqual([{ token: "ghs_x", url: SITE, body: expect.stringContaining("### wpreport: ✅ Passed") }]);
    expect(run.log()).toContain("wpreport: PR comment created");
    const rows = (markdown: string) => markdown.split("\n").filter((line) => line.startsWith("| low |")).length;
    expect(rows(run.summary())).toBe(25);
    expect(rows(posted[0]?.body ?? "")).toBe(20);
    expect(posted[0]?.body).toContain("…and 5 more");
    const refused = await runWith({ head, baseline: null }, { "comment-on-pr": "true" }, async () => {
      throw new Error("Resource not accessible by integration");
    });
    expect(refused.of("warning").map((warning) => warning.message)).toEqual([
      "Could not post the PR comment: Resource not accessible by integration. Does the workflow grant pull-requests: write?",
    ]);
    expect(refused.outputs.result).toBe("pass");
  });
});
