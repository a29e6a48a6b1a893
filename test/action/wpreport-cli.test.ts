/**
 * `wpreport check` (action/dist/cli.js, the real process) against the real service: exit
 * codes and formats, the version, and the CLI package installed from its tarball with npm.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ACTION_VERSION } from "../../action/src/run.ts";
import { ROOT, runProcess } from "../helpers/processes.ts";
import { expectValidSarif } from "../helpers/sarif.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type SwitchableBlog, startStaticSite, startSwitchableBlog, type TestSite } from "../helpers/sites.ts";

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
    expect(blocked.stderr).toContain("cannot be analyzed");
  });
});

describe("wpreport: version, help, first runs, sites that are not WordPress, budgets with units", () => {
  let service: TestService;
  let site: SwitchableBlog;
  let staticSite: TestSite;
  let env: Record<string, string>;
  const version = (JSON.parse(readFileSync(path.join(ROOT, "action/package.json"), "utf8")) as { version: string })
    .version;

  beforeAll(async () => {
    service = await startTestService();
    const { token } = await service.token(undefined, "business");
    env = { WPREPORT_API_URL: service.url, WPREPORT_TOKEN: token, CI_PIPELINE_ID: `v${Date.now()}` };
    site = startSwitchableBlog();
    staticSite = startStaticSite();
  });
  afterAll(async () => {
    site.stop();
    staticSite.stop();
    await service.stop();
  });

  test("--version and -v print the version of action/package.json, without any setting; --help names them", async () => {
    for (const flag of ["--version", "-v"]) {
      const run = await cli([flag], {});
      expect(run).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    }
    expect(version).toBe(ACTION_VERSION); // the Action reports the same version (its User-Agent)
    const help = await cli(["--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("-v, --version");
    expect(help.stdout).toContain('--budgets <list>         e.g. "ttfb_ms=800ms,html_bytes=250kB,score=80"');
  });

  test("a first run lists what fails now and links the report's web page (text and JSON)", async () => {
    const text = await cli(["check", "--url", site.url, "--baseline", "none"], { ...env, CI_JOB_ID: "1" });
    expect(text.code).toBe(0);
    const id = /^report (rep_[0-9a-z]{26}),/m.exec(text.stdout)?.[1];
    expect(text.stdout).toContain(`full report: ${service.url}/reports/${id}`);
    expect(text.stdout).toMatch(
      /Failing now \(\d+\) — no baseline to compare with, so none of these is a regression or fails the build:/,
    );
    expect(text.stdout).toContain("  [high] security.https: fail — ");
    // WordPress: no not-WordPress warning; the notice that this test service has no
    // vulnerability source (docs/intel.md), and — no baseline — the findings at fail-on (high)
    // or above already there, which fail-on does not gate, and how to assert them.
    expect(text.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^wpreport: warning: .*No vulnerability data source is available on this service/),
      expect.stringMatching(
        /^wpreport: warning: .*: no baseline, and fail-on judges changes against one, so nothing fails this run — but \d+ findings? (is|are) at high or above already: .*security\.https \(high\).* --assert "/,
      ),
    ]);
    // The same request again in the same CI job: the same report, said on stderr, not charged.
    const again = await cli(["check", "--url", site.url, "--baseline", "none"], { ...env, CI_JOB_ID: "1" });
    expect(again.stdout).toContain(`report ${id},`);
    expect(again.stderr.split("\n")[0]).toBe(
      `wpreport: this CI job already made the same request (same Idempotency-Key): ${id}, not charged again`,
    );
    const json = await cli(["check", "--url", site.url, "--baseline", "none", "--format", "json"], {
      ...env,
      CI_JOB_ID: "2",
    });
    const parsed = JSON.parse(json.stdout) as { report: { id: string }; report_url: string };
    expect(parsed.report_url).toBe(`${service.url}/reports/${parsed.report.id}`);
  });

  test("a site that is not WordPress: a warning on stderr, stdout stays the requested format", async () => {
    const run = await cli(["check", "--url", staticSite.url, "--format", "json"], { ...env, CI_JOB_ID: "3" });
    expect(run.code).toBe(0);
    expect(run.stderr).toStartWith(`wpreport: warning: ${staticSite.url}: This site does not look like WordPress`);
    expect(run.stderr).toContain("nginx 1.22.1, Hugo 0.111.3");
    expect(JSON.parse(run.stdout)).toHaveProperty("report");
  });

  test("budgets with units fail with units; a unit of the wrong kind is a usage error (exit 2)", async () => {
    const over = await cli(
      ["check", "--url", site.url, "--baseline", "none", "--budgets", "html_bytes=1kB, ttfb_ms=30s"],
      {
        ...env,
        CI_JOB_ID: "4",
      },
    );
    expect(over.code).toBe(1);
    expect(over.stdout).toMatch(/^ {2}✗ HTML size is \d+(\.\d)? kB, over the budget of 1 kB$/m);
    const wrong = await cli(["check", "--url", site.url, "--budgets", "html_bytes=800ms"], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      'budget "html_bytes=800ms": "ms" is not a unit of html_bytes, which is a size; use B, kB, MB, KiB, MiB',
    );
  });

  test("--assert: error assertions fail without a baseline, warn ones are shown; a bad one is a usage error (exit 2)", async () => {
    const run = await cli(
      [
        "check",
        "--url",
        site.url,
        "--environment",
        "asserted",
        "--assert",
        "security.https=error",
        "--assert",
        "seo.*=warn, performance.nonexistent=off",
      ],
      { ...env, CI_JOB_ID: "5" },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("  ✗ 1 check fails under an error assertion: security.https (security.https)");
    expect(run.stdout).toMatch(/^ {2}! \d+ checks? fails? under a warn assertion: seo\./m);
    expect(run.stdout).toContain("  ! assert: performance.nonexistent matches no check of this report");
    expect(run.stdout).toMatch(/^ {2}\[error\] security\.https: fail \(high, asserted by security\.https\) — /m);
    expect(run.stdout).toContain("baseline (last-passing): ");
    const bad = await cli(["check", "--url", site.url, "--assert", "security.https"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toStartWith('--assert: "security.https" is not of the form check: level');
  });

  test("installs from its npm pack tarball (the release asset) and runs with npm exec, offline", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "wpreport-cli-pack-"));
    try {
      const npmEnv = { PATH: process.env.PATH ?? "", HOME: dir, npm_config_cache: path.join(dir, "cache") };
      const packed = await runProcess(["npm", "pack", path.join(ROOT, "action"), "--pack-destination", dir, "--json"], {
        cwd: dir,
        env: npmEnv,
      });
      expect(packed.code).toBe(0);
      const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
      expect(info?.filename).toBe(`wpreport-cli-${version}.tgz`);
      // Only the bundle and the manifest: no sources, no dependencies to fetch.
      expect(info?.files.map((file) => file.path).sort()).toEqual(["dist/cli.js", "package.json"]);
      const tarball = path.join(dir, info?.filename as string);
      // docs/action.md's command, with the tarball on disk instead of the release URL; --offline:
      // installing it needs no registry.
      const npx = (args: string[], extra: Record<string, string> = {}) =>
        runProcess(["npx", "--yes", "--offline", `--package=${tarball}`, "--", "wpreport", ...args], {
          cwd: dir,
          env: { ...npmEnv, ...extra },
        });
      const shown = await npx(["--version"]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toBe(`${version}\n`);
      expect((await npx(["--help"])).stdout).toContain("Usage: wpreport check --url <site> [options]");
      const checked = await npx(["check", "--url", site.url, "--baseline", "none"], { ...env, CI_JOB_ID: "5" });
      expect(checked.code).toBe(0);
      expect(checked.stdout).toContain("wpreport: PASSED");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
