/**
 * A deploy that breaks the site must fail the gate (result error: the report could not see the
 * site), and must not become the baseline.
 *
 * Played through the committed Action bundle as the runner runs it (run-action.ts) against a
 * real service and a site on loopback: deploy 1 (clean) passes → deploy 2 breaks the database,
 * so every page is WordPress's own 500 "Error establishing a database connection" page (it has
 * a title, an h1, a language and a viewport; robots.txt, a static file, still answers) → the
 * repair. Before the rule in docs/diff.md ("A report that could not see the site"), deploy 2
 * passed with a better score (its WordPress checks all skipped, and pass → skip is no
 * regression), became the last passing report, and the repair then failed against it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { blogFeed, blogHomepage, startSite, type TestSite } from "../helpers/sites.ts";
import { runAction } from "./run-action.ts";

/** What WordPress 6.x's wp_die() prints when it cannot reach its database (status 500). */
const DATABASE_ERROR_PAGE = `<!DOCTYPE html>
<html lang="en-US">
<head>
	<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
	<meta name="viewport" content="width=device-width">
	<title>Database Error</title>
</head>
<body id="error-page">
	<div class="wp-die-message"><h1>Error establishing a database connection</h1></div></body>
</html>
`;

describe("the gate through the committed bundle: a deploy that takes the site down fails", () => {
  let service: TestService;
  let token: string;
  let site: TestSite;
  let databaseDown = false;

  beforeAll(async () => {
    service = await startTestService();
    ({ token } = await service.token(undefined, "business"));
    let origin = "";
    const page = (html: string) =>
      databaseDown
        ? new Response(DATABASE_ERROR_PAGE, { status: 500, headers: { "content-type": "text/html; charset=utf-8" } })
        : new Response(html, { headers: { "content-type": "text/html; charset=UTF-8" } });
    site = startSite(
      {
        "/": () => page(blogHomepage(origin)),
        "/feed/": () =>
          databaseDown ? page("") : new Response(blogFeed, { headers: { "content-type": "application/rss+xml" } }),
        "/robots.txt": () =>
          new Response("User-agent: *\nDisallow: /wp-admin/\n", { headers: { "content-type": "text/plain" } }),
      },
      // Every other path runs WordPress too: its 404 page, or the database error.
      () => (databaseDown ? page("") : new Response("not found", { status: 404 })),
    );
    origin = site.url.replace(/\/$/, "");
  });
  afterAll(async () => {
    site.stop();
    await service.stop();
  });

  const deploy = (runId: number) =>
    runAction(
      { "api-url": service.url, "api-token": token, url: site.url, environment: "production", matrix: "null" },
      { GITHUB_RUN_ID: String(runId), GITHUB_WORKFLOW_REF: "acme/site/.github/workflows/deploy.yml@refs/heads/main" },
    );

  let clean = "";

  test("deploy 1, clean: passes", async () => {
    const run = await deploy(2001);
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe("pass");
    clean = run.outputs["report-id"] as string;
  });

  test("deploy 2 leaves every page a database error: the job fails, saying why", async () => {
    databaseDown = true;
    const run = await deploy(2002);
    // The homepage is a 500 page: the report is incomplete (no grade, not charged) and could not
    // see the site — result error, whatever the comparison says (docs/action.md, "Outcomes").
    expect(run.outputs.result).toBe("error");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`wpreport: comparing with ${clean} (last-passing)`);
    const errors = run.commands.filter((command) => command.command === "error");
    // The report's own error is the one annotation: not the 500 page's "regressions".
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain("answered an error (HTTP 500)");
    // The service's verdict is in the summary: it has no grade where the baseline had one.
    expect(run.summary).toContain("this report has no grade");
    expect(run.summary).not.toContain("null");
  });

  test("the repair passes, compared with the clean report (the broken one never became the baseline)", async () => {
    databaseDown = false;
    const run = await deploy(2003);
    expect(run.stdout).toContain(`wpreport: comparing with ${clean} (last-passing)`);
    expect(run.outputs.result).toBe("pass");
    expect(run.code).toBe(0);
  });
});
