/**
 * docs/ci.md's examples, run as those CI systems run them: the script line of the GitLab,
 * Jenkins and Bitbucket examples in a shell (`sh -c`), with that system's variables, the CLI
 * bundle in place of the release tarball — against the real service and two sites on loopback,
 * with two URLs, an assertion and the last-passing baseline. Each gives the same outcome as the
 * Action (the committed bundle, run-action.ts) on the same sites: the same exit/result, the
 * same per-site results, the same failure message, and the same summary.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, runProcess } from "../helpers/processes.ts";
import { expectValidSarif } from "../helpers/sarif.ts";
import { startEnvExposingBlog } from "../helpers/sites.ts";
import { BITBUCKET, GITLAB, JENKINS } from "./ci-variables.ts";
import { type ActionRun, runAction } from "./run-action.ts";
import { serviceAndSites } from "./service-and-sites.ts";

const CLI = path.join(ROOT, "action/dist/cli.js");
const DOCS = readFileSync(path.join(ROOT, "docs/ci.md"), "utf8");

/** The `wpreport check` line of the example under `## <heading>` in docs/ci.md, as a shell command. */
function scriptOf(heading: string): string {
  const start = DOCS.indexOf(`\n## ${heading}\n`);
  const section = DOCS.slice(start, DOCS.indexOf("\n## ", start + 1));
  const line = section.split("\n").find((one) => one.includes("wpreport check")) ?? "";
  // YAML's `- …`, Groovy's sh '…'.
  const command = line
    .trim()
    .replace(/^- /, "")
    .replace(/^sh '(.*)'$/, "$1");
  const npx = 'npx --yes --package="$WPREPORT_CLI" -- wpreport ';
  expect(command).toStartWith(npx);
  // The release tarball's wpreport is this bundle.
  return `node "$WPREPORT_CLI_JS" ${command.slice(npx.length)}`;
}

/** The Action's inputs for what the GitLab example asks. */
const ASSERT = "security.env_file_exposed: error\nseo.*: warn";

/** The lines that carry the verdict, with report ids made alike: headings, reasons, overview rows' results. */
function verdictLines(markdown: string): string[] {
  return markdown
    .split("\n")
    .filter((line) => /^#+ wpreport: |^- |^\| http/.test(line))
    .map((line) =>
      line
        .replace(/rep(\\)?_[0-9a-z]{26}/g, "rep_X")
        .replace(/\]\([^)]*\)/g, "]()")
        .replace(/\| \d+ \([A-F]\) \|/g, "| score |"),
    );
}

describe("docs/ci.md's CLI examples in a shell give the Action's outcome", () => {
  const setup = serviceAndSites(() => ({ shop: startEnvExposingBlog(), blog: startEnvExposingBlog() }));
  let run = 9100;
  const dir = mkdtempSync(path.join(tmpdir(), "wpreport-ci-"));

  const action = (): Promise<ActionRun> =>
    runAction(
      {
        "api-url": setup.service.url,
        "api-token": setup.token,
        urls: `${setup.shop.url}\n${setup.blog.url}`,
        environment: "staging",
        assert: ASSERT,
        matrix: "null",
      },
      { GITHUB_RUN_ID: String(++run) },
    );
  const shell = async (heading: string, variables: Record<string, string>) => {
    const result = await runProcess(["sh", "-c", scriptOf(heading)], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "",
        WPREPORT_CLI_JS: CLI,
        WPREPORT_API_URL: setup.service.url,
        WPREPORT_TOKEN: setup.token,
        SITES: `${setup.shop.url},${setup.blog.url}`,
        ...variables,
      },
    });
    return {
      ...result,
      summary: readFileSync(path.join(dir, "wpreport.md"), "utf8"),
      sarif: JSON.parse(readFileSync(path.join(dir, "wpreport.sarif"), "utf8")),
    };
  };
  const gitlab = (extra: Record<string, string> = {}) =>
    shell("GitLab CI", { ...GITLAB, CI_PIPELINE_ID: String(++run), CI_JOB_ID: String(++run), ...extra });

  test("a clean deploy: both pass (exit 0, result pass)", async () => {
    const github = await action();
    expect(github.outputs.result).toBe("pass");
    const cli = await gitlab();
    expect(cli.code).toBe(0);
    expect(cli.stdout).toStartWith("wpreport: PASSED — all 2 sites passed");
  });

  test("a deploy that exposes the shop's .env: both fail (exit 1, result fail), the same way", async () => {
    setup.shop.envExposed = true;
    const github = await action();
    const cli = await gitlab();
    expect(github.outputs.result).toBe("fail");
    expect(cli.code).toBe(1);
    // The same per-site results…
    const results = JSON.parse(github.outputs.reports as string).map((site: { result: string }) => site.result);
    expect(results).toEqual(["fail", "pass"]);
    expect(cli.stdout).toContain(`wpreport: FAILED — 1 of 2 sites did not pass`);
    // …the same failure message (the Action's last error annotation, the CLI's last stderr line)…
    const failure = github.commands.filter((command) => command.command === "error").at(-1)?.message;
    expect(failure).toStartWith(`wpreport: 1 of 2 sites failed — ${setup.shop.url}: `);
    expect(failure).toContain("security.env_file_exposed");
    expect(cli.stderr.trim().split("\n").at(-1)).toBe(failure as string);
    // …and the same summary: headings, reasons and the overview's results.
    expect(verdictLines(cli.summary)).toEqual(verdictLines(github.summary));
    expect(cli.summary).toStartWith("## wpreport: ❌ Failed — 1 of 2 sites failed");
    // The SARIF file: one run per site, as the Action's.
    const sarif = expectValidSarif(cli.sarif) as { runs: unknown[] };
    expect(sarif.runs).toHaveLength(2);
  });

  test("Jenkins and Bitbucket: the same outcome from their own examples and variables", async () => {
    const jenkins = await shell("Jenkins", { ...JENKINS, BUILD_TAG: `jenkins-site-main-${++run}` });
    expect(jenkins.code).toBe(1);
    expect(jenkins.stderr.trim().split("\n").at(-1)).toStartWith(`wpreport: 1 of 2 sites failed — ${setup.shop.url}: `);
    const bitbucket = await shell("Bitbucket Pipelines", { ...BITBUCKET, BITBUCKET_BUILD_NUMBER: String(++run) });
    expect(bitbucket.code).toBe(1);
    expect(bitbucket.summary).toStartWith("## wpreport: ❌ Failed — 1 of 2 sites failed");
  });

  test("a GitLab merge-request pipeline compares with the default branch's passing report", async () => {
    setup.shop.envExposed = false;
    const mr = await gitlab({ CI_MERGE_REQUEST_IID: "7", CI_COMMIT_REF_NAME: "feature/x" });
    expect(mr.code).toBe(0);
    expect(mr.stdout).toContain("on main (the default branch) that passed the gate");
  });
});
