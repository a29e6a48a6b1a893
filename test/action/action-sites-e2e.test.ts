/**
 * The bundled Action run as the runner runs it (run-action.ts), against the real service and
 * small real sites on loopback: the log and the summary of a first run, the report's link
 * (through the web interface's log-in), the verdict that stays visible past GitHub's 10 error
 * annotations, the warning for a site that is not WordPress, budgets with units, and the
 * Idempotency-Key per step, job, matrix job and body.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { blogFeed, blogHomepage, startSite, startStaticSite, type TestSite } from "../helpers/sites.ts";
import { WebSession } from "../helpers/web-session.ts";
import { Browserless } from "../web/forms.ts";
import { type ActionRun, runAction } from "./run-action.ts";

/** Plugins a bad deploy adds, each with a published high-severity advisory for its version. */
const PLUGINS = Array.from({ length: 15 }, (_, i) => `deploy-widget-${String(i + 1).padStart(2, "0")}`);
const PASSWORD = "correct horse battery staple";

/** A WordPress-like blog; `deploy` adds the 15 vulnerable plugins' stylesheets to its homepage. */
function startDeployableBlog(): TestSite & { withPlugins: boolean } {
  let origin = "";
  const site = startSite({
    "/": () => {
      const links = blog.withPlugins
        ? // Each its own release (one ?ver= shared by many components is a cache buster, not a version).
          PLUGINS.map(
            (slug, i) =>
              `<link rel="stylesheet" href="${origin}/wp-content/plugins/${slug}/css/style.css?ver=1.${i + 1}.0">`,
          )
        : [];
      const html = blogHomepage(origin).replace("</head>", `${links.join("\n")}</head>`);
      return new Response(html, { headers: { "content-type": "text/html; charset=UTF-8" } });
    },
    "/feed/": () => new Response(blogFeed, { headers: { "content-type": "application/rss+xml" } }),
  });
  origin = site.url.replace(/\/$/, "");
  const blog = Object.assign(site, { withPlugins: false });
  return blog;
}

const errorsOf = (run: ActionRun) => run.commands.filter((command) => command.command === "error");

describe("the Action on local sites", () => {
  let service: TestService;
  let token: string;
  let email: string;
  let blog: ReturnType<typeof startDeployableBlog>;
  let staticSite: TestSite;
  let dir: string;

  const inputs = (extra: Record<string, string> = {}) => ({
    "api-url": service.url,
    "api-token": token,
    url: blog.url,
    environment: "staging",
    matrix: "null", // what the runner passes for the input's default, toJSON(matrix), outside a matrix
    ...extra,
  });
  const used = async () => (await service.call<{ used: number }>("GET", "/api/usage", { token })).body.used;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "wpreport-action-sites-"));
    const intel = {
      format: 1,
      wordpress: { latest_version: "6.4.2" },
      plugins: Object.fromEntries(
        PLUGINS.map((slug, i) => [
          slug,
          {
            latest_version: "2.0.1",
            vulnerabilities: [
              {
                id: `TEST-E2E-${i + 1}`,
                title: `${slug} <= 2.0 - SQL injection`,
                severity: "high",
                cvss: 8.1,
                affected: [{ fixed_in: "2.0.1" }],
              },
            ],
          },
        ]),
      ),
    };
    writeFileSync(path.join(dir, "intel.json"), JSON.stringify(intel));
    service = await startTestService({ env: { INTEL_FILE: path.join(dir, "intel.json") } });
    // An account with a password (signed up in the web interface) and an API token.
    email = (await WebSession.signup(service.url, { password: PASSWORD })).email;
    ({ token } = await service.token(email, "enterprise"));
    blog = startDeployableBlog();
    staticSite = startStaticSite();
  });
  afterAll(async () => {
    blog.stop();
    staticSite.stop();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("first run: no baseline, the failing checks in the log and the summary, the report's web page linked", async () => {
    const run = await runAction(inputs());
    expect(run.code).toBe(0);
    const id = run.outputs["report-id"] as string;
    expect(run.outputs["report-url"]).toBe(`${service.url}/reports/${id}`);
    expect(run.outputs["report-api-url"]).toBe(`${service.url}/api/report/${id}`);
    const report = (
      await service.call<{ checks: { id: string; status: string }[] }>("GET", `/api/report/${id}`, { token })
    ).body;
    const failing = report.checks.filter((check) => check.status === "fail" || check.status === "warn");
    expect(failing.length).toBeGreaterThan(0); // a plain http blog fails security.https at least
    expect(run.stdout).toContain(
      `wpreport: no baseline to compare with, so nothing is a regression; ${failing.length} check${failing.length === 1 ? " fails" : "s fail"} now:`,
    );
    for (const check of failing)
      expect(run.stdout).toMatch(
        new RegExp(`^  \\[[a-z]+\\] ${check.id.replace(".", "\\.")}: ${check.status} — `, "m"),
      );
    expect(run.summary).toContain(`#### Failing now (${failing.length})`);
    expect(run.summary).toContain("`security.https`");
    expect(run.summary).toContain(`[full report](${service.url}/reports/${id})`);
    // A WordPress site: no not-WordPress warning; one that names what fail-on (judging changes)
    // does not gate on a first run — security.https (high) at least — and how to assert it.
    const warnings = run.commands.filter((command) => command.command === "warning");
    expect(warnings.map((warning) => warning.properties)).toEqual([
      "title=wpreport%3A findings already present (no baseline)",
    ]);
    expect(warnings[0]?.message).toContain("security.https (high)");

    // The link, opened in a browser without a session: log in, then the report.
    const browser = new Browserless(service.url);
    const first = await browser.get(new URL(run.outputs["report-url"] as string).pathname);
    expect(first.status).toBe(303);
    expect(first.location).toBe(`/login?next=${encodeURIComponent(`/reports/${id}`)}`);
    const loginPage = await browser.get(first.location as string);
    const action = /<form method="post" action="([^"]+)"/.exec(loginPage.body)?.[1]?.replaceAll("&amp;", "&");
    expect(action).toBe(`/login?${new URLSearchParams({ next: `/reports/${id}` })}`);
    const login = await browser.request("POST", action as string, {
      form: { _csrf: Browserless.csrfOf(loginPage.body), email, password: PASSWORD },
    });
    expect(login.status).toBe(303);
    expect(login.location).toBe(`/reports/${id}`);
    const page = await browser.get(login.location as string);
    expect(page.status).toBe(200);
    expect(page.body).toContain(id);
  });

  test("a deploy adds 15 vulnerable plugins: 16 error annotations fit in 9, and the verdict is the 10th", async () => {
    blog.withPlugins = true;
    try {
      const run = await runAction(inputs());
      expect(run.code).toBe(1);
      expect(run.outputs.result).toBe("fail");
      const errors = errorsOf(run);
      // GitHub shows the first 10 error annotations of a step.
      expect(errors).toHaveLength(10);
      expect(errors.slice(0, 8).every((error) => error.properties.startsWith("title=wpreport%3A "))).toBe(true);
      expect(errors[8]?.properties).toBe("title=wpreport%3A 8 more");
      const verdict = errors[9]?.message ?? "";
      expect(verdict).toStartWith("wpreport: ");
      expect(verdict).toContain(
        "15 vulnerabilities came with component changes at severity high or above (component_changed)",
      );
      expect(verdict).toContain("1 check regressed at severity high or above: components.plugins_vulnerable");
      expect(run.summary).toContain("#### Vulnerabilities introduced by component changes (15)");
    } finally {
      blog.withPlugins = false;
    }
  });

  test("a site that is not WordPress: a warning annotation naming what it runs on", async () => {
    const run = await runAction(inputs({ url: staticSite.url, environment: "docs" }));
    expect(run.code).toBe(0);
    // The not-WordPress warning first (a static site over http also has findings already present).
    const warnings = run.commands.filter((command) => command.command === "warning");
    expect(warnings.filter((warning) => warning.properties === "title=wpreport%3A not WordPress")).toHaveLength(1);
    expect(warnings[0]?.properties).toBe("title=wpreport%3A not WordPress");
    expect(warnings[0]?.message).toStartWith(`${staticSite.url}: This site does not look like WordPress (confidence`);
    expect(warnings[0]?.message).toContain("nginx 1.22.1");
    expect(warnings[0]?.message).toContain("Hugo 0.111.3");
    expect(warnings[0]?.message).toContain("Is the URL the WordPress site you meant?");
    expect(run.summary).toContain("> ℹ️ Not WordPress");
  });

  test("budgets with units: checked in base units, shown with units; a wrong unit is refused before any request", async () => {
    const run = await runAction(inputs({ baseline: "none", budgets: "html_bytes=1kB, ttfb_ms=30s" }));
    expect(run.code).toBe(1);
    const html = (
      await service.call<{ performance: { html_bytes: number } }>("GET", `/api/report/${run.outputs["report-id"]}`, {
        token,
      })
    ).body.performance.html_bytes;
    const size = `${Math.round(html / 100) / 10} kB`;
    expect(run.summary).toContain(`| HTML size | ≤ 1 kB | ${size} | ❌ |`);
    expect(run.summary).toContain("| Time to first byte | ≤ 30 s |");
    expect(errorsOf(run).map((error) => error.message)).toEqual([
      `HTML size is ${size}, over the budget of 1 kB.`,
      `wpreport: HTML size is ${size}, over the budget of 1 kB`,
    ]);

    const before = await used();
    const wrong = await runAction(inputs({ budgets: "ttfb_ms=250kB" }));
    expect(wrong.code).toBe(1);
    expect(wrong.outputs.result).toBe("error");
    expect(errorsOf(wrong).at(-1)?.message).toBe(
      'Input budgets: budget "ttfb_ms=250kB": "kB" is not a unit of ttfb_ms, which is a time; use ms, s.',
    );
    expect(await used()).toBe(before);
  });

  test("Idempotency-Key: the same step again is not charged; another step, job, matrix job or body is a new report", async () => {
    const runEnv = {
      GITHUB_RUN_ID: "515151",
      GITHUB_RUN_ATTEMPT: "1",
      GITHUB_JOB: "deploy",
      GITHUB_ACTION: "wpreport",
    };
    const before = await used();
    const first = await runAction(inputs(), runEnv);
    expect(first.code).toBe(0);
    const again = await runAction(inputs(), runEnv);
    expect(again.outputs["report-id"]).toBe(first.outputs["report-id"] as string);
    expect(again.stdout).toContain("not charged again");

    const others = [
      // A second wpreport step in the same job (another step id).
      await runAction(inputs(), { ...runEnv, GITHUB_ACTION: "wpreport-after-cache-purge" }),
      // Another job of the run, for another environment (the same key was a 422 before).
      await runAction(inputs({ environment: "production" }), { ...runEnv, GITHUB_JOB: "production" }),
      // The same step in another matrix job.
      await runAction(inputs({ matrix: '{\n  "php": "8.3"\n}' }), runEnv),
      // The same step with another body (environment).
      await runAction(inputs({ environment: "preview" }), runEnv),
    ];
    for (const run of others) {
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain("not charged again");
    }
    const ids = new Set([first, ...others].map((run) => run.outputs["report-id"]));
    expect(ids.size).toBe(5);
    expect(await used()).toBe(before + 5);
  });
});
