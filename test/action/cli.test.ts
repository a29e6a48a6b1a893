/** `wpreport check` (action/dist/cli.js) against the real service: exit codes and formats. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { runProcess } from "../helpers/processes.ts";
import { expectValidSarif } from "../helpers/sarif.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type SwitchableBlog, startSwitchableBlog } from "../helpers/sites.ts";

const CLI = path.resolve(import.meta.dir, "../../action/dist/cli.js");

function cli(args: string[], env: Record<string, string>) {
  return runProcess(["node", CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env } });
}

describe("wpreport check (CLI for other CI systems)", () => {
  let service: TestService;
  let site: SwitchableBlog;
  let env: Record<string, string>;

  beforeAll(async () => {
    service = await startTestService();
    const { token } = await service.token(undefined, "business");
    env = { WPREPORT_API_URL: service.url, WPREPORT_TOKEN: token, CI_PIPELINE_ID: String(Date.now()) };
    site = startSwitchableBlog();
  });
  afterAll(async () => {
    site.stop();
    await service.stop();
  });

  test("exit 0 on a pass, 1 on a regression at fail-on, with the reason in plain text", async () => {
    const first = await cli(["check", "--url", site.url, "--environment", "cli"], { ...env, CI_JOB_ID: "1" });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("wpreport: PASSED");
    site.compressed = false;
    const second = await cli(["check", "--url", site.url, "--environment", "cli", "--fail-on", "medium"], {
      ...env,
      CI_JOB_ID: "2",
    });
    expect(second.code).toBe(1);
    expect(second.stdout).toContain("wpreport: FAILED");
    expect(second.stdout).toContain("[medium] performance.html_compression: pass → fail");
    const lenient = await cli(
      ["check", "--url", site.url, "--environment", "cli", "--fail-on", "high", "--format", "json"],
      {
        ...env,
        CI_JOB_ID: "3",
      },
    );
    expect(lenient.code).toBe(0);
    const parsed = JSON.parse(lenient.stdout) as {
      report: { id: string };
      baseline_id: string;
      diff: { verdict: { result: string } };
    };
    expect(parsed.diff.verdict.result).toBe("pass");
    expect(parsed.baseline_id).toMatch(/^rep_/);
    site.compressed = true;
  });

  test("--format sarif prints SARIF that code scanning accepts, attached to --sarif-location", async () => {
    site.compressed = false; // a finding, so that there are results to place
    const run = await cli(
      [
        "check",
        "--url",
        site.url,
        "--baseline",
        "none",
        "--format",
        "sarif",
        "--sarif-location",
        ".github/workflows/deploy.yml",
      ],
      { ...env, CI_JOB_ID: "4" },
    );
    site.compressed = true;
    expect(run.code).toBe(0);
    const log = expectValidSarif(JSON.parse(run.stdout));
    const results = log.runs[0]?.results ?? [];
    expect(results.map((result) => result.ruleId)).toContain("performance.html_compression");
    for (const result of results) {
      expect(result.locations?.[0]?.physicalLocation?.artifactLocation?.uri).toBe(".github/workflows/deploy.yml");
      expect(result.message.text).toContain(`Site: ${site.url}`);
    }
    expect(log.runs[0]?.tool.driver.informationUri).toBe(`${service.url}/docs/checks`);
    const bad = await cli(["check", "--url", site.url, "--format", "sarif", "--sarif-location", "../x.yml"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--sarif-location must not contain empty, . or .. segments");
    expect(bad.stdout).toBe(""); // nothing that an upload step could take for "no problems"
  });

  test("--mode aggressive asks for an aggressive report; the default stays passive", async () => {
    const aggressive = await cli(
      ["check", "--url", site.url, "--baseline", "none", "--mode", "aggressive", "--format", "json"],
      { ...env, CI_JOB_ID: "6" },
    );
    expect(aggressive.code).toBe(0);
    const report = (JSON.parse(aggressive.stdout) as { report: { mode: string; enumeration: unknown } }).report;
    expect(report.mode).toBe("aggressive");
    expect(report.enumeration).toMatchObject({ plugins: { method: expect.any(String) } });
    // Same run and job, passive: another request, not a replay of the aggressive one.
    const passive = await cli(["check", "--url", site.url, "--baseline", "none", "--format", "json"], {
      ...env,
      CI_JOB_ID: "6",
    });
    expect(passive.code).toBe(0);
    expect((JSON.parse(passive.stdout) as { report: { mode: string } }).report.mode).toBe("passive");
    const wrong = await cli(["check", "--url", site.url, "--mode", "loud"], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--mode must be passive or aggressive");
  });

  test("exit 2 on usage errors, a refused token and a blocked URL", async () => {
    expect((await cli(["check"], env)).code).toBe(2);
    expect((await cli(["check", "--url", site.url, "--fail-on", "severe"], env)).stderr).toContain(
      "--fail-on must be one of",
    );
    const noToken = await cli(["check", "--url", site.url], { WPREPORT_API_URL: service.url });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("WPREPORT_TOKEN is not set");
    const badToken = await cli(["check", "--url", site.url], { ...env, WPREPORT_TOKEN: "wpr_wrong" });
    expect(badToken.code).toBe(2);
    expect(badToken.stderr).toContain("refused the token");
    const blocked = await cli(["check", "--url", "http://169.254.169.254/"], { ...env, CI_JOB_ID: "5" });
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toContain("cannot be analysed");
  });
});
