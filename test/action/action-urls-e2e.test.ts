/**
 * The committed bundle as the runner runs it (run-action.ts), against the real service and
 * sites on loopback: several URLs in one step (one report and one diff each, one verdict, each
 * named), a runner without GITHUB_STEP_SUMMARY (a warning; outputs still set), a pull request
 * whose baseline is the default branch's passing report, and assertions from the `assert` input.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Log } from "sarif";
import { expectValidSarif } from "../helpers/sarif.ts";
import { startEnvExposingBlog } from "../helpers/sites.ts";
import { type ActionRun, runAction } from "./run-action.ts";
import { serviceAndSites } from "./service-and-sites.ts";

const errorsOf = (run: ActionRun) => run.commands.filter((command) => command.command === "error");
const warningsOf = (run: ActionRun) => run.commands.filter((command) => command.command === "warning");

describe("the Action with several URLs, without a job summary, on a pull request", () => {
  const setup = serviceAndSites(() => ({ shop: startEnvExposingBlog(), blog: startEnvExposingBlog() }));
  let runId = 7000;

  const inputs = (extra: Record<string, string> = {}) => ({
    "api-url": setup.service.url,
    "api-token": setup.token,
    environment: "staging",
    matrix: "null",
    ...extra,
  });
  const used = async () =>
    (await setup.service.call<{ used: number }>("GET", "/api/usage", { token: setup.token })).body.used;

  test("urls: one report and one diff per site, one verdict; outputs, annotations and summary name the site", async () => {
    const urls = inputs({ urls: `${setup.shop.url}\n${setup.blog.url}` });
    const first = await runAction(urls, { GITHUB_RUN_ID: String(++runId) });
    expect(first.code).toBe(0);
    expect(first.outputs.result).toBe("pass");

    setup.shop.envExposed = true;
    const before = await used();
    const run = await runAction(urls, { GITHUB_RUN_ID: String(++runId) });
    expect(await used()).toBe(before + 2);
    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe("fail");
    const ids = (run.outputs["report-id"] as string).split("\n");
    expect(ids).toHaveLength(2);
    const reports = JSON.parse(run.outputs.reports as string) as { url: string; report_id: string; result: string }[];
    expect(reports.map((entry) => [entry.url, entry.report_id, entry.result])).toEqual([
      [setup.shop.url, ids[0] as string, "fail"],
      [setup.blog.url, ids[1] as string, "pass"],
    ]);
    const errors = errorsOf(run);
    expect(errors[0]?.message).toStartWith(`${setup.shop.url}: security.env_file_exposed (critical): pass → fail.`);
    expect(errors.at(-1)?.message).toBe(
      `wpreport: 1 of 2 sites failed — ${setup.shop.url}: 1 check regressed at severity high or above: security.env_file_exposed`,
    );
    expect(run.summary).toStartWith("## wpreport: ❌ Failed — 1 of 2 sites failed");
    expect(run.summary.match(/^### wpreport: /gm)).toHaveLength(2);
    expect(run.stdout).toContain(`wpreport: ${setup.blog.url}: comparing with `);
    // One SARIF file, one run per site, each its own code-scanning category.
    const log = expectValidSarif(JSON.parse(readFileSync(run.outputs["sarif-file"] as string, "utf8"))) as Log;
    expect(log.runs.map((one) => one.properties?.report_id)).toEqual(ids);
    setup.shop.envExposed = false;
  });

  test("no GITHUB_STEP_SUMMARY: a warning, and the outputs are set all the same", async () => {
    setup.shop.envExposed = true;
    const run = await runAction(inputs({ url: setup.shop.url }), {
      GITHUB_RUN_ID: String(++runId),
      GITHUB_STEP_SUMMARY: undefined,
    });
    setup.shop.envExposed = false;
    expect(run.code).toBe(1); // the verdict, not the summary, fails the step
    expect(run.outputs["report-id"]).toMatch(/^rep_/);
    expect(run.outputs.result).toBe("fail");
    expect(run.outputs["sarif-file"]).toBeTruthy();
    const warnings = warningsOf(run);
    // Besides the notice that this test service has no vulnerability source (docs/intel.md).
    expect(warnings.map((warning) => warning.properties)).toEqual([
      "title=wpreport%3A no vulnerability data",
      "title=wpreport%3A no job summary",
    ]);
    expect(warnings[1]?.message).toContain("Unable to find environment variable for $GITHUB_STEP_SUMMARY");
    expect(errorsOf(run).at(-1)?.message).toContain("security.env_file_exposed");
  });

  test("a pull request compares with the default branch's newest passing report", async () => {
    const site = { url: setup.blog.url, environment: "preview" };
    const main = await runAction(inputs(site), { GITHUB_RUN_ID: String(++runId), GITHUB_REF: "refs/heads/main" });
    expect(main.code).toBe(0);
    const eventPath = path.join(tmpdir(), `wpreport-pr-event-${Date.now()}.json`);
    writeFileSync(
      eventPath,
      JSON.stringify({
        pull_request: { number: 7 },
        repository: { name: "site", owner: { login: "acme" }, default_branch: "main" },
      }),
    );
    const pr = {
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REF: "refs/pull/7/merge",
    };
    try {
      const first = await runAction(inputs(site), { ...pr, GITHUB_RUN_ID: String(++runId) });
      expect(first.code).toBe(0);
      const second = await runAction(inputs(site), { ...pr, GITHUB_RUN_ID: String(++runId) });
      expect(second.code).toBe(0);
      // Not the pull request's own earlier (passing) report: the default branch's.
      expect(second.stdout).toContain(
        `wpreport: comparing with ${main.outputs["report-id"]} (last-passing): ${main.outputs["report-id"]} (`,
      );
      expect(second.stdout).toContain("on refs/heads/main (the default branch) that passed the gate");
    } finally {
      rmSync(eventPath, { force: true });
    }
  });

  test("assert: an error assertion fails a first run; warn only warns", async () => {
    const run = await runAction(
      inputs({
        url: setup.blog.url,
        environment: "asserted",
        assert: "security.https: error\nseo.*: warn\nseo.meta_descripton: off",
      }),
      { GITHUB_RUN_ID: String(++runId) },
    );
    // The blog is served over plain http.
    expect(run.code).toBe(1);
    expect(errorsOf(run).at(-1)?.message).toBe(
      "wpreport: 1 check fails under an error assertion: security.https (security.https)",
    );
    expect(run.summary).toContain("#### Assertions (");
    expect(warningsOf(run).map((warning) => warning.properties)).toContain(
      "title=wpreport%3A assertion matches no check",
    );
  });
});
