/**
 * The deploy gate must not turn green by itself (issue: "Re-run failed jobs" turned a failing
 * deploy green). The exact sequence, played through the committed Action bundle as the runner
 * runs it (run-action.ts: `node action/dist/index.js`, INPUT_* and GITHUB_* variables) against a
 * real service and a real site on loopback:
 *
 *   deploy 1 (clean) passes → deploy 2 exposes `.env`: the job fails → "re-run failed jobs"
 *   (same run id, attempt 2) fails → the next deploy without a fix fails → the CLI and the API
 *   fail too → the deploy that fixes it passes, and becomes the baseline.
 *
 * With the old rule (`latest`: the newest earlier report, passed or not) attempt 2 compared
 * itself with attempt 1's failing report and passed; the test shows that comparison too. Each
 * run's SARIF file (output sarif-file) is validated against the official schema and GitHub's
 * rules, and costs no second credit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Log, Result } from "sarif";
import type { ReportList } from "../../shared/api.ts";
import type { Diff } from "../../shared/diff-schema.ts";
import { ROOT, runProcess } from "../helpers/processes.ts";
import { expectValidSarif } from "../helpers/sarif.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type EnvExposingBlog, startEnvExposingBlog } from "../helpers/sites.ts";
import { type ActionRun, runAction } from "./run-action.ts";

const WORKFLOW = ".github/workflows/deploy.yml";

const errorsOf = (run: ActionRun) => run.commands.filter((command) => command.command === "error");

describe("the gate through the committed bundle: re-runs and later deploys keep failing until fixed", () => {
  let service: TestService;
  let token: string;
  let site: EnvExposingBlog;
  const environment = "production";

  const inputs = (extra: Record<string, string> = {}) => ({
    "api-url": service.url,
    "api-token": token,
    url: site.url,
    environment,
    matrix: "null",
    ...extra,
  });
  /** A deploy's workflow run: its own run id, attempt 1 unless re-run. */
  const runEnv = (runId: number, attempt = 1, extra: Record<string, string | undefined> = {}) => ({
    GITHUB_RUN_ID: String(runId),
    GITHUB_RUN_ATTEMPT: String(attempt),
    GITHUB_WORKFLOW_REF: `acme/site/${WORKFLOW}@refs/heads/main`,
    ...extra,
  });
  const used = async () => (await service.call<{ used: number }>("GET", "/api/usage", { token })).body.used;
  const reportIds: string[] = [];

  /** Runs the bundle and checks what every run must do: one credit, outputs set, a valid SARIF file at the workflow. */
  async function deploy(runId: number, attempt = 1, extra: Record<string, string> = {}): Promise<ActionRun> {
    const before = await used();
    const run = await runAction(inputs(extra), runEnv(runId, attempt));
    const id = run.outputs["report-id"] as string;
    expect(id).toMatch(/^rep_/);
    expect(reportIds).not.toContain(id); // every attempt and deploy is a report of its own
    reportIds.push(id);
    // One report, one credit: the SARIF file is made from it, not by a second request.
    expect(await used()).toBe(before + 1);
    const file = run.outputs["sarif-file"] as string;
    expect(path.basename(file)).toBe(`wpreport-${id}.sarif`);
    const log = expectValidSarif(JSON.parse(readFileSync(file, "utf8"))) as Log;
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0]?.properties?.report_id).toBe(id);
    for (const result of log.runs[0]?.results ?? [])
      expect(result.locations?.[0]?.physicalLocation?.artifactLocation?.uri).toBe(WORKFLOW);
    return run;
  }
  const sarifResults = (run: ActionRun): Result[] =>
    (JSON.parse(readFileSync(run.outputs["sarif-file"] as string, "utf8")) as Log).runs[0]?.results ?? [];

  let clean: string;

  beforeAll(async () => {
    service = await startTestService();
    ({ token } = await service.token(undefined, "business"));
    site = startEnvExposingBlog();
  });
  afterAll(async () => {
    site.stop();
    await service.stop();
  });

  test("deploy 1, clean: the first report passes the gate", async () => {
    const run = await deploy(1001);
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe("pass");
    clean = run.outputs["report-id"] as string;
    expect(run.stdout).toContain("has no earlier graded report: this is the first, and nothing is compared");
    expect(sarifResults(run).map((result) => result.ruleId)).not.toContain("security.env_file_exposed");
  });

  test("deploy 2 exposes .env: the job fails, compared with the clean report", async () => {
    site.envExposed = true;
    const run = await deploy(1002);
    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe("fail");
    expect(run.stdout).toContain(`wpreport: comparing with ${clean} (last-passing): ${clean} (`);
    expect(errorsOf(run).at(-1)?.message).toContain("security.env_file_exposed");
    expect(run.summary).toContain("wpreport: ❌ Failed");
    expect(run.summary).toContain("Baseline (`last-passing`):");
    // Code scanning gets the finding from the same report, located at the workflow file.
    expect(sarifResults(run).map((result) => result.ruleId)).toContain("security.env_file_exposed");
  });

  test('"re-run failed jobs" (same run id, attempt 2) fails again: its baseline is still the clean report', async () => {
    const run = await deploy(1002, 2);
    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe("fail");
    expect(run.stdout).toContain(`wpreport: comparing with ${clean} (last-passing)`);
    expect(errorsOf(run).at(-1)?.message).toContain(
      "1 check regressed at severity high or above: security.env_file_exposed",
    );

    // The old rule would have passed it: attempt 1's failing report as the baseline, nothing new.
    const attempt2 = run.outputs["report-id"] as string;
    const latest = await service.call<Diff>("GET", `/api/report/${attempt2}/diff?base=latest`, { token });
    expect(latest.body.base_id).toBe(reportIds.at(-2) as string);
    expect(latest.body.verdict.result).toBe("pass");
    // …and asking again, with any thresholds, does not change the recorded gate verdict.
    expect(latest.body.gate).toMatchObject({ result: "fail", base_id: clean, rule: "last-passing" });
  });

  test("the next deploy without a fix fails too", async () => {
    const run = await deploy(1003);
    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe("fail");
    expect(run.stdout).toContain(`wpreport: comparing with ${clean} (last-passing)`);
  });

  test("other clients keep failing: the CLI, and the API with its default baseline", async () => {
    const cli = await runProcess(
      ["node", path.join(ROOT, "action/dist/cli.js"), "check", "--url", site.url, "--environment", environment],
      {
        env: { PATH: process.env.PATH ?? "", WPREPORT_API_URL: service.url, WPREPORT_TOKEN: token },
      },
    );
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain("wpreport: FAILED");
    expect(cli.stdout).toContain(`baseline (last-passing): ${clean} (`);

    const made = await service.call<{ id: string }>("POST", "/api/generate-report", {
      token,
      body: { url: site.url, metadata: { environment } },
    });
    expect(made.status).toBe(201);
    const judged = await service.call<Diff>("GET", `/api/report/${made.body.id}/diff`, { token });
    expect(judged.status).toBe(200);
    expect(judged.body.base_id).toBe(clean);
    expect(judged.body.baseline.rule).toBe("last-passing");
    expect(judged.body.verdict.result).toBe("fail");
    expect(judged.body.gate?.result).toBe("fail");
  });

  test("the deploy that fixes it passes, and is the next deploys' baseline", async () => {
    site.envExposed = false;
    const fixed = await deploy(1004);
    expect(fixed.code).toBe(0);
    expect(fixed.outputs.result).toBe("pass");
    expect(fixed.stdout).toContain(`wpreport: comparing with ${clean} (last-passing)`);
    const next = await deploy(1005);
    expect(next.code).toBe(0);
    expect(next.stdout).toContain(`wpreport: comparing with ${fixed.outputs["report-id"]} (last-passing)`);

    // The listing shows each report's gate verdict.
    const list = await service.call<ReportList>("GET", `/api/reports?environment=${environment}&limit=100`, {
      token,
    });
    const gates = Object.fromEntries(list.body.data.map((item) => [item.id, item.gate?.result ?? null]));
    expect(reportIds.map((id) => gates[id])).toEqual(["pass", "fail", "fail", "fail", "pass", "pass"]);
  });
});
