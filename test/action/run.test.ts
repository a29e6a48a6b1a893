/**
 * The Action's run() in-process, as actions/typescript-action tests its main: the runner
 * (@actions/core), the API client and GitHub's API are fakes that record what run() does. The
 * fake service answers the diff with the real engine (shared/diff.ts) and the real options
 * parser, for the baseline the test gives it. action-e2e.test.ts and action-sites-e2e.test.ts
 * run the bundled Action end to end against the real service.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AnnotationProperties } from "@actions/core";
import type { Log } from "sarif";
import type { ActionCore } from "../../action/src/action-core.ts";
import { type ActionDeps, run } from "../../action/src/run.ts";
import { ApiError, type ClientOptions, type GenerateReportInput } from "../../shared/client.ts";
import { diff } from "../../shared/diff.ts";
import { parseDiffOptions } from "../../shared/diff-options.ts";
import type { Diff } from "../../shared/diff-schema.ts";
import type { Check, Report } from "../../shared/report.ts";
import { expectValidSarif } from "../helpers/sarif.ts";
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
 * The service: generateReport answers with `head` (or, by URL, with `heads[url]`; or throws
 * `fails`), diff compares with `baseline` through the real engine and options parser, as GET
 * /api/report/{id}/diff does, naming the rule it was asked for.
 */
function fakeService(
  head: Report,
  baseline: Report | null,
  fails?: { on: "generate" | "diff"; error: Error; url?: string; base?: string },
  heads: Record<string, Report> = {},
) {
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
        if (fails?.on === "generate" && (fails.url === undefined || fails.url === input.url)) throw fails.error;
        return { report: heads[input.url] ?? head, replayed: false };
      },
      async diff(id: string, base: string, query: Record<string, string> = {}): Promise<Diff> {
        calls.diffs.push({ id, base, query });
        if (fails?.on === "diff" && (fails.base === undefined || fails.base === base)) throw fails.error;
        const options = parseDiffOptions({
          failOn: query.fail_on,
          maxScoreDrop: query.max_score_drop,
          budgets: query.budgets,
          assert: query.assert,
        });
        const compared = base === "none" ? null : baseline;
        const rule = base === "last-passing" || base === "latest" || base === "none" ? base : "report";
        const reason = compared ? `${compared.id} is the fake service's baseline` : "nothing to compare with";
        const report = Object.values(heads).find((one) => one.id === id) ?? head;
        return diff(compared, report, options, { rule, id: compared?.id ?? null, reason });
      },
      close() {
        calls.closed++;
      },
    };
  };
  return { createClient, calls };
}

const TEMP = mkdtempSync(path.join(tmpdir(), "wpreport-run-test-"));
afterAll(() => rmSync(TEMP, { recursive: true, force: true }));

const GITHUB_ENV: Record<string, string> = {
  RUNNER_TEMP: TEMP,
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
  {
    head,
    baseline,
    fails,
    heads,
    env = {},
    summaryFails,
  }: {
    head: Report;
    baseline: Report | null;
    fails?: Parameters<typeof fakeService>[2];
    heads?: Record<string, Report>;
    env?: Record<string, string>;
    summaryFails?: boolean;
  },
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
  if (summaryFails)
    runner.core.writeSummary = async () => {
      // What @actions/core's summary.write() throws on a runner without GITHUB_STEP_SUMMARY.
      throw new Error(
        "Unable to find environment variable for $GITHUB_STEP_SUMMARY. Check if your runtime environment supports job summaries.",
      );
    };
  const service = fakeService(head, baseline, fails, heads);
  await run({ ...GITHUB_ENV, ...env }, { core: runner.core, createClient: service.createClient, upsertPrComment });
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
    // The service decides the baseline: one diff request, base=last-passing, the thresholds as parsed.
    expect(run.calls.diffs).toEqual([
      {
        id: "rep_b",
        base: "last-passing",
        query: { fail_on: "high", max_score_drop: "5", budgets: "html_bytes=1048576" },
      },
    ]);
    expect(run.calls.closed).toBe(1);

    expect(run.log()).toContain("wpreport: comparing with rep_a (last-passing): rep_a is the fake service's baseline");
    expect(run.log()[0]).toBe("wpreport: report rep_b: score 90 (A)");
    const sarifFile = path.join(TEMP, "wpreport-rep_b.sarif");
    expect(run.outputs).toEqual({
      "report-id": "rep_b",
      "report-url": `${API}/reports/rep_b`,
      "report-api-url": `${API}/api/report/rep_b`,
      score: "90",
      grade: "A",
      regressions: "0",
      result: "pass",
      "sarif-file": sarifFile,
      reports: JSON.stringify([
        {
          url: SITE,
          report_id: "rep_b",
          report_url: `${API}/reports/rep_b`,
          report_api_url: `${API}/api/report/rep_b`,
          score: 90,
          grade: "A",
          baseline_id: "rep_a",
          regressions: 0,
          result: "pass",
        },
      ]),
    });
    expect(run.summary()).toContain("Baseline (`last-passing`): rep\\_a is the fake service's baseline");
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
    // The job summary says it too (the CLI's --summary-file is the same Markdown).
    expect(run.summary()).toStartWith(`### wpreport: ❗ Could not check — ${SITE.replace("://", ":\u200b//")}`);
    expect(run.summary()).toContain("report quota is used up");
    expect(run.calls.closed).toBe(1);

    // After the report: the log has already named it.
    const missing = new ApiError(404, { code: "not_found", detail: "There is no base report with this id." }, "");
    const late = await runWith(
      { head, baseline: null, fails: { on: "diff", error: missing } },
      { baseline: "rep_01hzx8m3k2v7q9w4e5r6t7y8u9" },
    );
    expect(late.calls.diffs[0]?.base).toBe("rep_01hzx8m3k2v7q9w4e5r6t7y8u9");
    expect(late.log()).toEqual([
      "wpreport: report rep_b: score 90 (A)",
      `wpreport: SARIF for code scanning in ${path.join(TEMP, "wpreport-rep_b.sarif")} (results at .wpreport.yml, line 1)`,
    ]);
    // The report was made (and paid for): its outputs and its SARIF file are there all the same.
    expect(late.outputs).toMatchObject({ "report-id": "rep_b", score: "90", result: "error" });
    expect(late.outputs.regressions).toBeUndefined();
    expect(late.outputs["sarif-file"]).toBe(path.join(TEMP, "wpreport-rep_b.sarif"));
    expect(late.failed()).toBe("The wpreport API answered 404 (not_found). There is no base report with this id.");
  });

  test("bad inputs fail before any request, naming the input", async () => {
    const head = reportWith("rep_b", []);
    const run = await runWith({ head, baseline: null }, { "fail-on": "severe" });
    expect(run.failed()).toBe('Input fail-on must be one of critical, high, medium, low, info, none, got "severe".');
    expect(run.outputs).toEqual({ result: "error" });
    expect(run.calls.options).toEqual([]); // no client made
    const baseline = await runWith({ head, baseline: null }, { baseline: "previous" });
    expect(baseline.failed()).toBe(
      'Input baseline must be "last-passing", "latest", "none" or a report id (rep_…), got "previous".',
    );
  });

  test("first run: no baseline, the checks failing now in the log and the summary, not failing the job", async () => {
    const head = reportWith("rep_b", [
      check("security.https", "fail", "high", "Served over http.\n::error::injected"),
      check("seo.meta_description", "warn", "low"),
      check("security.hsts", "pass", "medium"),
    ]);
    const run = await runWith({ head, baseline: null });
    expect(run.log().slice(1, 5)).toEqual([
      "wpreport: no baseline (last-passing): nothing to compare with",
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

  test("a missing GITHUB_STEP_SUMMARY is a warning: the outputs are set and the verdict stands", async () => {
    const base = reportWith("rep_a", [check("security.x", "pass", "high")]);
    const head = reportWith("rep_b", [check("security.x", "fail", "high")]);
    const run = await runWith({ head, baseline: base, summaryFails: true });
    expect(run.of("warning")).toEqual([
      {
        kind: "warning",
        title: "wpreport: no job summary",
        message:
          "Could not write the job summary: Unable to find environment variable for $GITHUB_STEP_SUMMARY. Check if your runtime environment supports job summaries. The outputs are set and the verdict stands; the log has the result.",
      },
    ]);
    expect(run.outputs).toMatchObject({ "report-id": "rep_b", result: "fail", regressions: "1" });
    expect(run.outputs["sarif-file"]).toBe(path.join(TEMP, "wpreport-rep_b.sarif"));
    expect(run.failed()).toBe("wpreport: 1 check regressed at severity high or above: security.x");
    const passing = await runWith({ head: base, baseline: base, summaryFails: true });
    expect(passing.outputs.result).toBe("pass");
    expect(passing.failed()).toBeNull();
  });

  test("on a pull request the service is asked to prefer the default branch's passing reports", async () => {
    const eventPath = path.join(TEMP, "event.json");
    writeFileSync(eventPath, JSON.stringify({ pull_request: { number: 7 }, repository: { default_branch: "trunk" } }));
    const head = reportWith("rep_b", []);
    const pr = { GITHUB_EVENT_NAME: "pull_request", GITHUB_EVENT_PATH: eventPath, GITHUB_REF: "refs/pull/7/merge" };
    const run = await runWith({ head, baseline: null, env: pr });
    expect(run.calls.diffs[0]).toMatchObject({ base: "last-passing", query: { prefer_ref: "refs/heads/trunk" } });
    expect(run.calls.generated[0]?.input.metadata?.git_ref).toBe("refs/pull/7/merge");
    // Only the last-passing rule has a preference; a push has none.
    const latest = await runWith({ head, baseline: null, env: pr }, { baseline: "latest" });
    expect(latest.calls.diffs[0]?.query.prefer_ref).toBeUndefined();
    const push = await runWith({
      head,
      baseline: null,
      env: { GITHUB_EVENT_NAME: "push", GITHUB_EVENT_PATH: eventPath },
    });
    expect(push.calls.diffs[0]?.query.prefer_ref).toBeUndefined();
  });

  test("assert: sent to the service in its query form; checks failing under it are annotated at its level", async () => {
    const head = reportWith("rep_b", [
      check("security.https", "fail", "low", "Served over http."),
      check("seo.meta_description", "warn", "high"),
    ]);
    const run = await runWith(
      { head, baseline: null },
      { assert: "security.*: error\nseo.meta_description: warn\nseo.meta_descripton: off" },
    );
    expect(run.calls.diffs[0]?.query.assert).toBe("security.*:error,seo.meta_description:warn,seo.meta_descripton:off");
    expect(run.of("error")[0]).toEqual({
      kind: "error",
      title: "wpreport: Title security.https",
      message: "security.https (low): fail, asserted error by security.*. Served over http. Fix: Fix it.",
    });
    // The mistake in the workflow first.
    expect(run.of("warning").map((warning) => warning.title)).toEqual([
      "wpreport: assertion matches no check",
      "wpreport: Title seo.meta_description",
    ]);
    expect(run.failed()).toBe("wpreport: 1 check fails under an error assertion: security.https (security.*)");
    expect(run.summary()).toContain("#### Assertions (2)");
    expect(run.summary()).toContain(
      "· assert `security.*: error, seo.meta_description: warn, seo.meta_descripton: off`",
    );
    const bad = await runWith({ head, baseline: null }, { assert: "security: error" });
    expect(bad.failed()).toBe(
      'Input assert: "security" is not a check id; a check id is category.name (seo.meta_description), and security.* is every check of a category.',
    );
    expect(bad.calls.options).toEqual([]);
  });

  test("the SARIF file: the same report, valid, attached to the workflow file unless sarif-location says otherwise", async () => {
    const head = reportWith("rep_b", [check("security.https", "fail", "high")]);
    const workflow = { GITHUB_WORKFLOW_REF: "acme/site/.github/workflows/deploy.yml@refs/heads/main" };
    const run = await runWith({ head, baseline: null, env: workflow });
    expect(run.calls.generated).toHaveLength(1); // no second report for the SARIF file
    const log = expectValidSarif(JSON.parse(readFileSync(run.outputs["sarif-file"] as string, "utf8"))) as Log;
    expect(
      log.runs[0]?.results?.map((result) => result.locations?.[0]?.physicalLocation?.artifactLocation?.uri),
    ).toEqual([".github/workflows/deploy.yml"]);
    expect(run.log()).toContain(
      `wpreport: SARIF for code scanning in ${run.outputs["sarif-file"]} (results at .github/workflows/deploy.yml, line 1)`,
    );
    const named = await runWith({ head, baseline: null, env: workflow }, { "sarif-location": "infra/site.tf" });
    const namedLog = JSON.parse(readFileSync(named.outputs["sarif-file"] as string, "utf8")) as Log;
    expect(namedLog.runs[0]?.results?.[0]?.locations?.[0]?.physicalLocation?.artifactLocation?.uri).toBe(
      "infra/site.tf",
    );
    const bad = await runWith({ head, baseline: null }, { "sarif-location": "/etc/passwd" });
    expect(bad.failed()).toBe(
      'Input sarif-location must be relative to the repository root (no leading /), got "/etc/passwd".',
    );
  });

  test("urls: one report and one diff per site, one verdict; outputs, annotations, summary and the failure name the site", async () => {
    const good = "https://a.example.com/";
    const bad = "https://b.example.com/";
    const base = reportWith("rep_a", [check("security.x", "pass", "high")]);
    const heads = {
      [good]: { ...reportWith("rep_good", [check("security.x", "pass", "high")]), url: good, final_url: good },
      [bad]: { ...reportWith("rep_bad", [check("security.x", "fail", "high", "It broke.")]), url: bad, final_url: bad },
    };
    const run = await runWith({ head: base, baseline: base, heads }, { url: "", urls: `- ${good}\n- ${bad}\n` });
    expect(run.calls.generated.map((call) => call.input.url)).toEqual([good, bad]);
    expect(run.calls.diffs.map((call) => call.id)).toEqual(["rep_good", "rep_bad"]);
    expect(new Set(run.calls.generated.map((call) => call.idempotencyKey)).size).toBe(2);
    expect(run.outputs["report-id"]).toBe("rep_good\nrep_bad");
    expect(run.outputs.score).toBe("90\n90");
    expect(run.outputs.result).toBe("fail");
    expect(run.outputs.regressions).toBe("1");
    expect(JSON.parse(run.outputs.reports as string)).toEqual([
      expect.objectContaining({ url: good, report_id: "rep_good", result: "pass", baseline_id: "rep_a" }),
      expect.objectContaining({ url: bad, report_id: "rep_bad", result: "fail", regressions: 1 }),
    ]);
    expect(run.of("error")[0]?.message).toBe(`${bad}: security.x (high): pass → fail. It broke. Fix: Fix it.`);
    expect(run.failed()).toBe(
      `wpreport: 1 of 2 sites failed — ${bad}: 1 check regressed at severity high or above: security.x`,
    );
    expect(run.log()).toContain(`wpreport: ${bad}: report rep_bad: score 90 (A)`);
    expect(run.summary()).toStartWith("## wpreport: ❌ Failed — 1 of 2 sites failed");
    expect(run.summary()).toContain("### wpreport: ✅ Passed — https:\u200b//a.example.com/");
    expect(run.summary()).toContain("### wpreport: ❌ Failed — https:\u200b//b.example.com/");
    const log = expectValidSarif(JSON.parse(readFileSync(run.outputs["sarif-file"] as string, "utf8"))) as Log;
    expect(log.runs.map((one) => one.automationDetails?.id)).toEqual([
      "wpreport/a.example.com/rep_good",
      "wpreport/b.example.com/rep_bad",
    ]);

    // A site that cannot be checked: the others still are, and the step says which one.
    const unreachable = new ApiError(422, { code: "site_unreachable", detail: "Connection refused." }, "");
    const partly = await runWith(
      { head: base, baseline: base, heads, fails: { on: "generate", error: unreachable, url: good } },
      { url: "", urls: `${good}, ${bad}` },
    );
    expect(partly.calls.diffs.map((call) => call.id)).toEqual(["rep_bad"]);
    expect(partly.outputs.result).toBe("error");
    expect(partly.outputs["report-id"]).toBe("\nrep_bad");
    expect(partly.failed()).toBe(
      `wpreport: 2 of 2 sites failed — ${good}: could not check: wpreport could not reach the site. Connection refused. Is it up and reachable from the internet? · ${bad}: 1 check regressed at severity high or above: security.x`,
    );
    expect(partly.summary()).toContain("| ❗ error wpreport could not reach the site.");
  });

  test("url and urls: one of them, not both; at most 20 sites, each once", async () => {
    const head = reportWith("rep_b", []);
    expect((await runWith({ head, baseline: null }, { urls: "https://a.example/" })).failed()).toBe(
      "Give either url (one site) or urls (several), not both.",
    );
    expect((await runWith({ head, baseline: null }, { url: "" })).failed()).toBe(
      "Input url is required (or urls, for several sites).",
    );
    const many = Array.from({ length: 21 }, (_, i) => `https://s${i}.example/`).join("\n");
    expect((await runWith({ head, baseline: null }, { url: "", urls: many })).failed()).toBe(
      "Input urls takes at most 20 sites, got 21.",
    );
    expect(
      (await runWith({ head, baseline: null }, { url: "", urls: "https://a.example/, https://a.example/" })).failed(),
    ).toBe("Input urls names https://a.example/ twice.");
    expect(
      (await runWith({ head, baseline: null }, { url: "", urls: "https://a.example/\nftp://b.example/" })).failed(),
    ).toBe('Input urls must be a list of http(s) URLs, got "ftp://b.example/".');
  });

  test("a service older than API 1.4.0 (last-passing read as a report id: 404): compared with latest, and said", async () => {
    const base = reportWith("rep_a", [check("security.x", "pass", "high")]);
    const head = reportWith("rep_b", [check("security.x", "pass", "high")]);
    const old = new ApiError(
      404,
      { code: "not_found", detail: "There is no base report with this id in your account." },
      "",
    );
    const run = await runWith({ head, baseline: base, fails: { on: "diff", error: old, base: "last-passing" } });
    expect(run.calls.diffs.map((call) => call.base)).toEqual(["last-passing", "latest"]);
    expect(run.of("warning").map((warning) => warning.title)).toEqual(["wpreport: service too old for last-passing"]);
    expect(run.outputs.result).toBe("pass");
    // A 404 for a report id given as the baseline is the user's mistake: no fallback.
    const given = await runWith(
      { head, baseline: base, fails: { on: "diff", error: old } },
      { baseline: "rep_01hzx8m3k2v7q9w4e5r6t7y8u9" },
    );
    expect(given.calls.diffs).toHaveLength(1);
    expect(given.outputs.result).toBe("error");
  });
});

/**
 * What the analyzer makes of a site that answers 401 to everything, as it did before the fix
 * in analyze.ts: an incomplete report (no grade) whose checks graded the 401 page, with a
 * "not WordPress … runs on Python" entry from the 401 page's Server header.
 */
function protectedSiteReport(id: string): Report {
  const report = reportWith(id, [
    check("security.https", "fail", "high", "Served over http."),
    check("security.env_file_exposed", "pass", "critical"),
  ]);
  report.summary = null;
  report.wordpress = { ...(report.wordpress as NonNullable<Report["wordpress"]>), detected: false, confidence: 0 };
  report.hosting = {
    ...(report.hosting as NonNullable<Report["hosting"]>),
    stack: [{ name: "Python", category: "language", version: "3.13", confidence: 100, evidence: [] }],
  };
  report.errors = [
    {
      stage: "analysis",
      kind: "incomplete",
      message:
        "The homepage asks for credentials (HTTP 401): a password-protected site is analysed with its credentials (site_auth in the API, http-auth in the Action, --http-auth in the CLI). So the report is incomplete, has no grade and is not charged.",
    },
    {
      stage: "detect",
      kind: "not_wordpress",
      message: "This site does not look like WordPress (confidence 0%); it runs on Python 3.13.",
    },
  ];
  return report;
}

describe("the gate never passes what it could not see (a report that could not see the site)", () => {
  test("a 401 homepage, no baseline: result error, the report's own error fails the job, no 'not WordPress'", async () => {
    const run = await runWith({ head: protectedSiteReport("rep_b"), baseline: null });
    expect(run.outputs.result).toBe("error");
    expect(run.failed()).toBe(
      `wpreport: could not check ${SITE}: The homepage asks for credentials (HTTP 401): a password-protected site is analysed with its credentials (site_auth in the API, http-auth in the Action, --http-auth in the CLI). So the report is incomplete, has no grade and is not charged.`,
    );
    expect(run.said.filter((line) => line.title === "wpreport: not WordPress")).toEqual([]);
    expect(JSON.stringify(run.said)).not.toContain("Python");
    // The 401 page's failing checks are not the site's: no annotation, no "failing now" list.
    expect(run.of("error")).toHaveLength(1);
    expect(run.log()).toContain(
      "wpreport: the report could not see the site: The homepage asks for credentials (HTTP 401): a password-protected site is analysed with its credentials (site_auth in the API, http-auth in the Action, --http-auth in the CLI). So the report is incomplete, has no grade and is not charged.",
    );
    expect(run.log().join("\n")).not.toContain("no check fails");
    const summary = run.summary();
    expect(summary).toStartWith("### wpreport: ❗ Could not check");
    expect(summary).toContain("asks for credentials (HTTP 401)");
    expect(summary).toContain("no score: the report could not see the site");
    expect(summary).not.toContain("null");
    expect(summary).not.toContain("Not WordPress");
    expect(summary).not.toContain("Failing now");
    expect(JSON.parse(run.outputs.reports as string)[0]).toMatchObject({ result: "error", score: null });
    // SARIF: not a successful run with the 401 page's findings.
    const log = expectValidSarif(JSON.parse(readFileSync(run.outputs["sarif-file"] as string, "utf8"))) as Log;
    expect(log.runs[0]?.invocations?.[0]?.executionSuccessful).toBe(false);
    expect(log.runs[0]?.results).toEqual([]);
  });

  test("with a baseline: result error, and the summary reads 62 → — (no score: …), never null", async () => {
    const baseline = reportWith("rep_a", [check("security.https", "pass", "high")]);
    (baseline.summary as NonNullable<Report["summary"]>).score = 62;
    const run = await runWith({ head: protectedSiteReport("rep_b"), baseline });
    expect(run.outputs.result).toBe("error");
    expect(run.failed()).toContain("asks for credentials (HTTP 401)");
    expect(run.summary()).toContain("**62 → —** (no score: the report could not see the site)");
    expect(run.summary()).not.toContain("null");
    // The service's verdict says the same (no grade where the baseline had one).
    expect(run.summary()).toContain("this report has no grade, while the baseline rep\\_a had one");
    expect(run.of("error")).toHaveLength(1);
  });

  test("several sites, one behind a 401: that site is an error, named, and the step's result is error", async () => {
    const other = "https://shop.example.com/";
    const fine = reportWith("rep_c", []);
    fine.url = other;
    fine.final_url = other;
    const run = await runWith(
      { head: fine, baseline: null, heads: { [SITE]: protectedSiteReport("rep_b"), [other]: fine } },
      { url: "", urls: `${SITE}\n${other}` },
    );
    expect(run.outputs.result).toBe("error");
    expect(JSON.parse(run.outputs.reports as string).map((site: { result: string }) => site.result)).toEqual([
      "error",
      "pass",
    ]);
    expect(run.failed()).toStartWith(
      `wpreport: 1 of 2 sites failed — ${SITE}: could not check: the report could not see the site: The homepage asks for credentials (HTTP 401)`,
    );
    expect(run.summary()).toContain("❗ error");
  });

  test("a homepage behind a firewall challenge: result error with the report's own words", async () => {
    const head = reportWith("rep_b", []);
    head.summary = null;
    head.hosting = { ...(head.hosting as NonNullable<Report["hosting"]>), blocked_by_waf: true, waf: "Cloudflare" };
    head.errors = [
      {
        stage: "homepage",
        kind: "blocked_by_waf",
        message:
          "The site answered with a Cloudflare challenge page instead of its homepage, so it could not be analysed.",
      },
    ];
    const run = await runWith({ head, baseline: null });
    expect(run.outputs.result).toBe("error");
    expect(run.failed()).toContain("answered with a Cloudflare challenge page");
  });
});

describe("a first run (no baseline): findings at fail-on or above already present", () => {
  test("one warning lists them and says how to gate on them with assert; nothing fails", async () => {
    const head = reportWith("rep_b", [
      check("security.env_file_exposed", "fail", "critical"),
      check("security.https", "fail", "high"),
      check("seo.meta_description", "warn", "low"),
      check("security.hsts", "fail", "medium"),
    ]);
    const run = await runWith({ head, baseline: null }, { "fail-on": "high", assert: "security.https: warn" });
    expect(run.outputs.result).toBe("pass");
    const present = run
      .of("warning")
      .filter((line) => line.title === "wpreport: findings already present (no baseline)");
    expect(present).toHaveLength(1);
    // security.https is decided by its assertion, the medium and low ones are below fail-on.
    expect(present[0]?.message).toContain(
      "1 finding is at high or above already: security.env_file_exposed (critical).",
    );
    expect(present[0]?.message).toContain('assert: "security.env_file_exposed: error"');
    expect(run.summary()).toContain("**1 already present at `high` or above**");
    // With a baseline there is no such warning.
    const later = await runWith({ head, baseline: head }, { "fail-on": "high" });
    expect(later.said.filter((line) => line.title?.includes("already present"))).toEqual([]);
  });
});

describe("the Action's site credentials (http-auth, http-headers, http-cookies)", () => {
  const head = () => reportWith("rep_s", [check("security.x", "pass", "high")]);
  const credentials = {
    "http-auth": "staging:pw-Secret-123",
    "http-headers": "X-Staging-Token: hdr-Secret-456\nCF-Access-Client-Id: id-Secret-789.access",
    "http-cookies": "staging_pass=ck-Secret-000; theme_preview=1",
  };

  test("go with the request as site_auth, every secret part masked, and stay out of the Idempotency-Key", async () => {
    const run = await runWith({ head: head(), baseline: null }, credentials);
    expect(run.failed()).toBeNull();
    expect(run.calls.generated[0]?.input.site_auth).toEqual({
      basic: { username: "staging", password: "pw-Secret-123" },
      headers: { "X-Staging-Token": "hdr-Secret-456", "CF-Access-Client-Id": "id-Secret-789.access" },
      cookies: { staging_pass: "ck-Secret-000", theme_preview: "1" },
    });
    // The runner masks whole inputs; each part and the basic-auth token it makes are masked too.
    for (const secret of [
      "pw-Secret-123",
      "hdr-Secret-456",
      "id-Secret-789.access",
      "ck-Secret-000",
      Buffer.from("staging:pw-Secret-123").toString("base64"),
    ]) {
      expect(run.secrets).toContain(secret);
    }
    // The same step without credentials sends the same Idempotency-Key: they are not part of it.
    const bare = await runWith({ head: head(), baseline: null });
    expect(bare.calls.generated[0]?.input.site_auth).toBeUndefined();
    expect(run.calls.generated[0]?.idempotencyKey).toBe(bare.calls.generated[0]?.idempotencyKey as string);
  });

  test("with urls, only when every site is on one origin: another site would receive this site's secrets", async () => {
    const elsewhere = await runWith(
      { head: head(), baseline: null },
      { ...credentials, url: "", urls: "https://staging.example.com/\nhttps://other.example.net/" },
    );
    expect(elsewhere.calls.generated).toHaveLength(0);
    expect(elsewhere.failed()).toBe(
      "Inputs http-auth, http-headers and http-cookies are one site's credentials, but urls name 2 origins (https://staging.example.com, https://other.example.net); run one step per protected site.",
    );
    const pages = await runWith(
      { head: head(), baseline: null },
      { ...credentials, url: "", urls: "https://staging.example.com/\nhttps://staging.example.com/shop/" },
    );
    expect(pages.calls.generated.map((call) => call.input.site_auth?.basic?.username)).toEqual(["staging", "staging"]);
  });

  test("a header that is not allowed, or a malformed value, fails before any request without printing it", async () => {
    for (const [inputs, expected] of [
      [{ "http-headers": "X-Forwarded-For: hdr-Secret-456" }, "Input http-headers: X-Forwarded-For is not a header"],
      [{ "http-headers": "no colon here" }, 'Input http-headers line 1 must look like "Name: value"'],
      [{ "http-auth": "pw-Secret-123" }, "Input http-auth must look like user:password"],
      [{ "http-cookies": "staging_pass=ck Secret 000" }, "Input http-cookies: staging_pass must be a cookie value"],
    ] as const) {
      const run = await runWith({ head: head(), baseline: null }, inputs);
      expect(run.calls.generated).toHaveLength(0);
      expect(run.failed()).toStartWith(expected);
      expect(run.outputs.result).toBe("error");
      for (const secret of ["hdr-Secret-456", "pw-Secret-123", "ck Secret 000"]) {
        expect(JSON.stringify(run.said)).not.toContain(secret);
      }
    }
  });
});
