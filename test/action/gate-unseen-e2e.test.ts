/**
 * The gate never passes what it could not see (docs/ci.md, "Outcomes and exit codes"): a
 * protected staging site on loopback that answers 401 to everything without its credentials —
 * the way a Python staging proxy does, naming itself in its Server header. Through the
 * committed Action bundle as the runner runs it (run-action.ts) and the CLI bundle as a process,
 * against the real service: result error and a failing step, the report's own 401 error as the
 * annotation and on stderr, no "not WordPress … runs on Python", no "null" in any summary (with
 * a baseline: "62 → —"), and credentials the site refuses said to be refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runProcess } from "../helpers/processes.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { blogFeed, blogHomepage, startSite, type TestSite } from "../helpers/sites.ts";
import { type ActionRun, runAction } from "./run-action.ts";

const CLI = path.resolve(import.meta.dir, "../../action/dist/cli.js");
const USER = "staging";
const PASSWORD = "s3cret-staging-pass";
const AUTHORIZATION = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;

const errorsOf = (run: ActionRun) => run.commands.filter((command) => command.command === "error");
const warningsOf = (run: ActionRun) => run.commands.filter((command) => command.command === "warning");

describe("a site that answers 401 to everything: the gate does not pass it", () => {
  let service: TestService;
  let token: string;
  let site: TestSite;
  /** Off: the site is served to anyone (its credentials are not needed). */
  let locked = true;
  let runId = 8100;
  const dir = mkdtempSync(path.join(tmpdir(), "wpreport-unseen-"));

  beforeAll(async () => {
    service = await startTestService();
    ({ token } = await service.token(undefined, "business"));
    let origin = "";
    // Every path answers 401 without the right credentials, as a staging proxy in front of the site does.
    const guarded =
      (serve: () => Response) =>
      (request: Request): Response =>
        locked && request.headers.get("authorization") !== AUTHORIZATION
          ? new Response("<html><head><title>401 Unauthorized</title></head><body>Unauthorized</body></html>", {
              status: 401,
              headers: {
                "content-type": "text/html",
                "www-authenticate": 'Basic realm="staging"',
                server: "WSGIServer/0.2 CPython/3.13.1",
              },
            })
          : serve();
    site = startSite(
      {
        "/": guarded(
          () => new Response(blogHomepage(origin), { headers: { "content-type": "text/html; charset=UTF-8" } }),
        ),
        "/feed/": guarded(() => new Response(blogFeed, { headers: { "content-type": "application/rss+xml" } })),
      },
      guarded(() => new Response("not found", { status: 404 })),
    );
    origin = site.url.replace(/\/$/, "");
  });
  afterAll(async () => {
    site.stop();
    await service.stop();
  });

  const action = (extra: Record<string, string> = {}) =>
    runAction(
      { "api-url": service.url, "api-token": token, url: site.url, environment: "staging", matrix: "null", ...extra },
      { GITHUB_RUN_ID: String(++runId) },
    );
  const cli = (args: string[]) =>
    runProcess(["node", CLI, "check", "--url", site.url, "--environment", "staging", ...args], {
      env: {
        PATH: process.env.PATH ?? "",
        WPREPORT_API_URL: service.url,
        WPREPORT_TOKEN: token,
        // A GitLab job.
        CI_PIPELINE_ID: String(++runId),
        CI_JOB_ID: "1",
        CI_COMMIT_REF_NAME: "main",
      },
    });

  test("no credentials, no baseline: result error, the 401 error is the annotation, no 'not WordPress'", async () => {
    const run = await action();
    expect(run.outputs.result).toBe("error");
    expect(run.code).toBe(1);
    const errors = errorsOf(run);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toStartWith(
      `wpreport: could not check ${site.url}: The homepage asks for credentials (HTTP 401)`,
    );
    expect(warningsOf(run).map((warning) => warning.properties)).not.toContain("title=wpreport%3A not WordPress");
    expect(run.stdout).not.toContain("Python");
    expect(run.stdout).not.toContain("not WordPress");
    expect(run.stdout).toContain(
      "wpreport: the report could not see the site: The homepage asks for credentials (HTTP 401)",
    );
    expect(run.summary).toStartWith("### wpreport: ❗ Could not check");
    expect(run.summary).toContain("asks for credentials (HTTP 401)");
    expect(run.summary).not.toContain("null");
    expect(run.summary).not.toContain("Not WordPress");
    expect(run.summary).not.toContain("Passed");

    // The CLI: exit 2 (could not check), the report's error on stderr, no null in its summary.
    const summaryFile = path.join(dir, "first.md");
    const result = await cli(["--summary-file", summaryFile]);
    expect(result.code).toBe(2);
    expect(result.stdout).toStartWith(`wpreport: COULD NOT CHECK — ${site.url}`);
    expect(result.stderr.trim().split("\n").at(-1)).toStartWith(
      `wpreport: could not check ${site.url}: The homepage asks for credentials (HTTP 401)`,
    );
    expect(result.stderr).not.toContain("not WordPress");
    const summary = readFileSync(summaryFile, "utf8");
    expect(summary).toStartWith("### wpreport: ❗ Could not check");
    expect(summary).not.toContain("null");
  });

  test("with a baseline that had a score: still error, and the summary reads '<score> → —', never null", async () => {
    locked = false;
    const clean = await action();
    expect(clean.outputs.result).toBe("pass");
    const score = clean.outputs.score as string;
    expect(Number(score)).toBeGreaterThan(0);
    locked = true;
    const run = await action();
    expect(run.outputs.result).toBe("error");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`wpreport: comparing with ${clean.outputs["report-id"]} (last-passing)`);
    expect(run.summary).toContain(`**${score} → —** (no score: the report could not see the site)`);
    expect(run.summary).not.toContain("null");
    expect(errorsOf(run)).toHaveLength(1);
    expect(errorsOf(run)[0]?.message).toContain("asks for credentials (HTTP 401)");

    const summaryFile = path.join(dir, "baseline.md");
    const result = await cli(["--summary-file", summaryFile]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain("no score (the report could not see the site)");
    expect(result.stdout).not.toContain("null");
    const summary = readFileSync(summaryFile, "utf8");
    expect(summary).toContain("→ —** (no score: the report could not see the site)");
    expect(summary).not.toContain("null");
  });

  test("credentials the site refuses: error, saying they were refused; the right ones pass", async () => {
    const wrong = await action({ "http-auth": `${USER}:not-the-password` });
    expect(wrong.outputs.result).toBe("error");
    expect(errorsOf(wrong).at(-1)?.message).toContain("refused the site credentials that were sent (HTTP 401)");
    // Masked (the runner hides every ::add-mask:: value), and never printed otherwise.
    const printed = wrong.stdout
      .split("\n")
      .filter((line) => !line.startsWith("::add-mask::"))
      .join("\n");
    expect(printed).not.toContain("not-the-password");
    const right = await action({ "http-auth": `${USER}:${PASSWORD}` });
    expect(right.outputs.result).toBe("pass");
    expect(right.code).toBe(0);
  });
});
