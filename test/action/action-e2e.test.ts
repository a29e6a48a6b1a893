/**
 * The GitHub Action end to end, run as the runner runs it (`node action/dist/index.js`,
 * INPUT_* variables, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), against the real service and the
 * real WordPress fixture. The site is changed the way a bad deploy changes it: a
 * wp-content/debug.log appears (WP_DEBUG_LOG left on). Only GitHub's API is a local stub.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { quotaPeriod } from "../../server/platform/quota-period.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type GitHubStub, startGitHubStub } from "./github-stub.ts";
import { runAction } from "./run-action.ts";

const CONTENT_DIR = "/var/lib/wordpress/wp-content";
const DEBUG_LOG = path.join(CONTENT_DIR, "debug.log");
const canChangeSite = HAS_WORDPRESS && existsSync(CONTENT_DIR);

describe.skipIf(!canChangeSite)("the Action against the real service and WordPress fixture", () => {
  let service: TestService;
  let token: string;
  let github: GitHubStub;
  const environment = `e2e-${Date.now()}`;

  const inputs = (extra: Record<string, string> = {}) => ({
    "api-url": service.url,
    "api-token": token,
    url: WORDPRESS_URL,
    environment,
    ...extra,
  });

  beforeAll(async () => {
    rmSync(DEBUG_LOG, { force: true });
    // A 2 s rate-limit window so that a real 429 and its retry take seconds, not a minute.
    service = await startTestService({ env: { RATE_LIMIT_WINDOW_SECONDS: "2" } });
    ({ token } = await service.token(undefined, "enterprise"));
    github = startGitHubStub("acme", "site", 7);
  });
  afterAll(async () => {
    rmSync(DEBUG_LOG, { force: true });
    github.stop();
    await service.stop();
  });

  test("1. first run: no baseline, passes, outputs set, summary written", async () => {
    const run = await runAction(inputs());
    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ result: "pass", regressions: "0" });
    expect(run.outputs["report-id"]).toMatch(/^rep_[0-9a-z]{26}$/);
    expect(run.outputs["report-url"]).toBe(`${service.url}/reports/${run.outputs["report-id"]}`);
    expect(run.outputs["report-api-url"]).toBe(`${service.url}/api/report/${run.outputs["report-id"]}`);
    expect(Number(run.outputs.score)).toBeGreaterThan(0);
    expect(run.outputs.grade).toMatch(/^[A-F]$/);
    expect(run.summary).toContain("wpreport: ✅ Passed");
    expect(run.summary).toContain("no baseline");
    // Nothing is a regression yet, but what fails now is listed (the fixture is served over plain http).
    expect(run.summary).toMatch(/#### Failing now \(\d+\)/);
    expect(run.stdout).toMatch(/no baseline to compare with, so nothing is a regression; \d+ checks? fails? now:/);
    expect(run.stdout).toContain("  [high] security.https: fail — ");
    expect(run.commands.filter((c) => c.command === "error")).toEqual([]);
    // It is WordPress: no not-WordPress warning; the notice that this test service has no
    // vulnerability source (no Wordfence key, WPVulnerability off: docs/intel.md), and — a first
    // run — the findings at fail-on or above already there, with how to assert them.
    expect(run.commands.filter((c) => c.command === "warning").map((c) => c.properties)).toEqual([
      "title=wpreport%3A no vulnerability data",
      "title=wpreport%3A findings already present (no baseline)",
    ]);
    const present = run.commands.find((c) => c.properties.includes("already present"))?.message ?? "";
    expect(present).toContain("security.https (high)");
    expect(present).toContain('assert: "');
    expect(run.stdout).toContain(`::add-mask::${token}`);
    const overhead = /action overhead (\d+) ms \(service (\d+) ms\)/.exec(run.stdout);
    console.log(
      `[bench] Action overhead: ${overhead?.[1]} ms inside the process, ${Math.round(run.wallMs - Number(overhead?.[2]))} ms wall (node start included); service ${overhead?.[2]} ms`,
    );
  });

  test("2. the site regresses (debug.log exposed): ::error annotation, summary, outputs, exit 1", async () => {
    writeFileSync(
      DEBUG_LOG,
      "[21-Nov-2026 10:00:00 UTC] PHP Warning:  Undefined variable $post in /var/lib/wordpress/wp-content/themes/x/functions.php on line 12\n",
    );
    const run = await runAction(inputs());
    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe("fail");
    expect(Number(run.outputs.regressions)).toBeGreaterThanOrEqual(1);
    const errors = run.commands.filter((c) => c.command === "error");
    // @actions/core escapes ":" in properties as %3A — the workflow command is well-formed.
    expect(
      errors.some(
        (c) => c.properties.includes("title=wpreport%3A ") && c.message.includes("security.debug_log_exposed"),
      ),
    ).toBe(true);
    expect(errors.at(-1)?.message).toContain("security.debug_log_exposed"); // the job's failure reason
    expect(run.summary).toContain("wpreport: ❌ Failed");
    expect(run.summary).toContain("`security.debug_log_exposed`");
    expect(run.summary).toContain("Why it failed");
  });

  test("3. fail-on: critical on the same change passes, with the regression still annotated", async () => {
    const run = await runAction(inputs({ "fail-on": "critical" }));
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe("pass");
    // The debug log is still there: compared with the previous (already failing) report nothing new
    // regressed, so compare with the clean first report explicitly.
    const reports = (
      await service.call<{ data: { id: string }[] }>(
        "GET",
        `/api/reports?environment=${environment}&status=completed`,
        { token },
      )
    ).body.data;
    const clean = reports.at(-1)?.id as string;
    const compared = await runAction(inputs({ "fail-on": "critical", baseline: clean }));
    expect(compared.code).toBe(0);
    expect(compared.outputs.result).toBe("pass");
    const annotated = compared.commands.filter(
      (c) => ["error", "warning", "notice"].includes(c.command) && c.message.includes("security.debug_log_exposed"),
    );
    expect(annotated.length).toBe(1);
    expect(compared.summary).toContain("`security.debug_log_exposed`");
  });

  test("4a. a retry with the same run id is not charged twice", async () => {
    rmSync(DEBUG_LOG, { force: true });
    const before = (await service.call<{ used: number }>("GET", "/api/usage", { token })).body.used;
    const runEnv = { GITHUB_RUN_ID: "424242", GITHUB_RUN_ATTEMPT: "3" };
    const first = await runAction(inputs(), runEnv);
    const again = await runAction(inputs(), runEnv);
    expect(first.code).toBe(0);
    expect(again.outputs["report-id"]).toBe(first.outputs["report-id"] as string);
    expect(again.stdout).toContain("not charged again");
    expect((await service.call<{ used: number }>("GET", "/api/usage", { token })).body.used).toBe(before + 1);
  });

  test("4b. a 429 from the service is retried after Retry-After", async () => {
    const slow = await service.token(undefined, "starter");
    // 30 requests a minute → 1 per 2-second window: the Action's second call meets a real 429.
    await service.running.services.accounts.setRateLimitOverride(slow.accountId, 30);
    // A window opens at an account's first request: this one opens it and takes its one
    // request, so the Action's first call meets the 429 whatever the report takes (its two
    // calls, report and diff, may fall in different windows).
    expect((await service.call("GET", "/api/usage", { token: slow.token })).status).toBe(200);
    const run = await runAction({ ...inputs(), "api-token": slow.token, baseline: "latest" });
    expect(run.stdout).toMatch(/429 rate_limited; retrying in \d+ s/);
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe("pass");
  });

  test("4c. a 402 fails the step with a plain-words message", async () => {
    const broke = await service.token(undefined, "free");
    await service.db
      .sql`insert into usage_periods (account_id, period_start, used) values (${broke.accountId}, ${quotaPeriod().key}, 3)`;
    const run = await runAction({ ...inputs(), "api-token": broke.token });
    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe("error");
    const failure = run.commands.filter((c) => c.command === "error").at(-1)?.message ?? "";
    expect(failure).toContain("This month's report quota is used up");
    expect(failure).toContain(quotaPeriod().end.toISOString());
  });

  test("bad inputs fail with a clear message before calling the service", async () => {
    const run = await runAction(inputs({ "fail-on": "severe", budgets: "speed=fast" }));
    expect(run.code).toBe(1);
    expect(run.commands.at(-1)?.message).toContain("fail-on must be one of critical, high, medium, low, info, none");
    const mode = await runAction(inputs({ mode: "loud" }));
    expect(mode.code).toBe(1);
    expect(mode.commands.at(-1)?.message).toContain('Input mode must be passive or aggressive, got "loud"');
  });

  test("mode: aggressive asks the service for an aggressive report (its own environment, no baseline)", async () => {
    const run = await runAction(inputs({ mode: "aggressive", baseline: "none", environment: `${environment}-aggr` }));
    expect(run.code).toBe(0);
    const report = await service.call("GET", `/api/report/${run.outputs["report-id"]}`, { token });
    expect(report.body.mode).toBe("aggressive");
    // The fixture's inactive default themes are installed: enumeration finds them.
    expect((report.body.installed_themes as { slug: string }[]).map((theme) => theme.slug)).toContain(
      "twentytwentytwo",
    );
  });

  test("PR comment: created once, then updated, never duplicated", async () => {
    const eventPath = path.join(tmpdir(), `wpreport-event-${Date.now()}.json`);
    writeFileSync(
      eventPath,
      JSON.stringify({ pull_request: { number: 7 }, repository: { name: "site", owner: { login: "acme" } } }),
    );
    const prEnv = { GITHUB_EVENT_NAME: "pull_request", GITHUB_EVENT_PATH: eventPath, GITHUB_API_URL: github.url };
    const first = await runAction(inputs({ "comment-on-pr": "true", "github-token": "ghs_test" }), prEnv);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("PR comment created");
    const second = await runAction(inputs({ "comment-on-pr": "true", "github-token": "ghs_test" }), prEnv);
    expect(second.stdout).toContain("PR comment updated");
    expect(github.comments).toHaveLength(1);
    expect(github.comments[0]?.body).toContain("<!-- wpreport:comment:");
    expect(github.comments[0]?.body).toContain("### wpreport:");
    expect(github.requests.filter((r) => r.startsWith("POST"))).toHaveLength(1);
    expect(github.requests.filter((r) => r.startsWith("PATCH"))).toHaveLength(1);
    rmSync(eventPath, { force: true });
  });
});
