/**
 * A person's way through the product in a real browser (Debian's Chromium), against a real
 * instance and the real WordPress fixture: sign up → analyze the fixture → read the report →
 * create a token → the API's effect shows on the pages → revoke → upgrade and cancel (test-mode
 * billing) → log out and back in. The API's answers are compared with what the pages show.
 *
 * The tests run in order and share one account. Screenshots of every main page (desktop and
 * phone) are saved under test-results/screenshots/ for CI to keep.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Usage } from "../../shared/client.ts";
import type { Report } from "../../shared/report.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import {
  acquireBrowser,
  HAS_CHROMIUM,
  loadedResources,
  openPage,
  overflowsHorizontally,
  PASSWORD,
  releaseBrowser,
  screenshot,
  shareSession,
  signUp,
  type TestPage,
  text,
} from "./browser.ts";

// Browser steps and real analyses: well under this, but not under bun's default 5 s on a busy CI machine.
setDefaultTimeout(30_000);

/** The facts a person reads on a report page, taken from the DOM. */
async function reportPageFacts(page: Page) {
  return page.evaluate(() => {
    const clean = (value: string | null | undefined) => (value ?? "").replace(/\s+/g, " ").trim();
    const rows = [...document.querySelectorAll("tr[data-component]")].map((row) => ({
      type: row.getAttribute("data-component"),
      name: clean(row.querySelector(".name")?.textContent),
      slug: clean(row.querySelector(".slug")?.textContent),
      version: clean(row.querySelector("td.version")?.textContent),
      confidence: clean(row.querySelector('td[data-label="Confidence"]')?.textContent),
    }));
    const checks = [...document.querySelectorAll("section[aria-labelledby=findings-heading] .check")];
    const seo = Object.fromEntries(
      [...document.querySelectorAll("section[aria-labelledby=seo-heading] tbody tr")].map((row) => [
        clean(row.children[0]?.textContent),
        clean(row.children[1]?.textContent),
      ]),
    );
    const missingHeaders = [...document.querySelectorAll("section[aria-labelledby=security-heading] tbody tr")]
      .filter((row) => row.querySelector(".st-fail"))
      .map((row) => clean(row.children[0]?.textContent));
    return {
      grade: clean(document.querySelector("#grade")?.textContent),
      score: clean(document.querySelector("#score")?.textContent),
      categories: clean(document.querySelector(".score-card .small")?.textContent),
      components: rows,
      failing: checks.filter((check) => !check.closest("details")).map((check) => check.id.replace(/^check-/, "")),
      others: checks.filter((check) => check.closest("details")).map((check) => check.id.replace(/^check-/, "")),
      seo,
      missingHeaders,
      heading: clean(document.querySelector("h1")?.textContent),
    };
  });
}

/** What the page must show for this report JSON. */
function expectedFacts(report: Report) {
  const failing = report.checks.filter((check) => check.status === "fail" || check.status === "warn");
  const version = (value: string | null) => value ?? "unknown";
  return {
    grade: report.summary?.grade,
    score: String(report.summary?.score),
    components: [
      {
        type: "wordpress",
        version: version(report.wordpress?.version ?? null),
        confidence: `${report.wordpress?.confidence}%`,
      },
      {
        type: "theme",
        name: report.theme?.name ?? report.theme?.slug,
        slug: report.theme?.slug,
        version: version(report.theme?.version ?? null),
        confidence: `${report.theme?.confidence}%`,
      },
      ...report.plugins.map((plugin) => ({
        type: "plugin",
        name: plugin.name ?? plugin.slug,
        slug: plugin.slug,
        version: version(plugin.version),
        confidence: `${plugin.confidence}%`,
      })),
    ],
    failing: failing.map((check) => check.id).sort(),
    others: report.checks
      .filter((check) => !failing.includes(check))
      .map((check) => check.id)
      .sort(),
    missingHeaders: (report.security?.headers ?? [])
      .filter((header) => header.value === null)
      .map((header) => header.name),
    seoTitle: report.seo?.title ?? "missing",
  };
}

function expectPageShowsReport(facts: Awaited<ReturnType<typeof reportPageFacts>>, report: Report) {
  const expected = expectedFacts(report);
  expect(facts.grade).toBe(expected.grade as string);
  expect(facts.score).toBe(expected.score);
  for (const category of Object.keys(report.summary?.categories ?? {})) {
    const value = report.summary?.categories[category as keyof NonNullable<Report["summary"]>["categories"]];
    expect(facts.categories).toMatch(new RegExp(`\\b${value ?? "—"}\\b`));
  }
  expect(facts.components.length).toBe(expected.components.length);
  for (const [index, component] of expected.components.entries()) {
    const shown = facts.components[index];
    expect(shown?.type).toBe(component.type);
    // The version cell may add an "outdated (latest)" badge after the version.
    expect(shown?.version.startsWith(component.version)).toBe(true);
    expect(shown?.confidence).toBe(component.confidence);
    if ("slug" in component) {
      expect(shown?.slug).toBe(component.slug as string);
      expect(shown?.name).toBe(component.name as string);
    }
  }
  expect([...facts.failing].sort()).toEqual(expected.failing);
  expect([...facts.others].sort()).toEqual(expected.others);
  expect(facts.missingHeaders).toEqual(expected.missingHeaders);
  expect(facts.seo.Title).toBe(expected.seoTitle);
  expect(facts.heading).toBe(`Report for ${report.final_url ?? report.url}`);
}

async function dashboardUsage(page: Page) {
  await page.goto("/dashboard");
  const meter = page.locator("progress.usage");
  return {
    used: Number(await text(page, "#usage-used")),
    quota: Number(await text(page, "#usage-quota")),
    remaining: Number(await text(page, "#usage-remaining")),
    plan: await text(page, "#plan-name"),
    meterValue: Number(await meter.getAttribute("value")),
    meterMax: Number(await meter.getAttribute("max")),
    meterText: await meter.getAttribute("aria-valuetext"),
  };
}

describe.skipIf(!HAS_CHROMIUM || !HAS_WORDPRESS)("a person's journey through the web interface", () => {
  let service: TestService;
  let desktop: TestPage;
  let phone: TestPage;
  let webReportId = "";
  let apiReport: Report;
  let token = "";

  const api = <T>(method: string, path: string, body?: unknown, bearer = token) =>
    service.call<T>(method, path, { token: bearer, body });

  /** Screenshots of the page the desktop browser is on, and of `path` on a phone. */
  async function shoot(name: string, path = new URL(desktop.page.url()).pathname) {
    expect((await loadedResources(desktop.page)).filter((resource) => resource.foreign)).toEqual([]);
    await screenshot(desktop.page, name, "desktop");
    await phone.page.goto(path);
    expect(await overflowsHorizontally(phone.page)).toBe(false);
    await screenshot(phone.page, name, "phone");
  }

  beforeAll(async () => {
    [service] = await Promise.all([startTestService({ env: { BILLING_MODE: "test" } }), acquireBrowser()]);
    desktop = await openPage(service.url, "desktop", { acceptDialogs: true });
    phone = await openPage(service.url, "phone");
  });
  afterAll(async () => {
    await desktop?.close();
    await phone?.close();
    releaseBrowser();
    await service?.stop();
  });

  test("the start page invites to sign up, with the plans", async () => {
    const { page } = desktop;
    await page.goto("/");
    await expect(page.title()).resolves.toContain("wpreport");
    expect(await page.getByRole("link", { name: "Start free — 3 reports a month" }).isVisible()).toBe(true);
    expect(await page.locator("#pricing .plan").count()).toBe(6);
    await shoot("landing", "/");
    await page.goto("/signup");
    await shoot("signup", "/signup");
    await page.goto("/login");
    await shoot("login", "/login");
  });

  test("sign up free → the dashboard welcomes the new account with 0 of 3 reports used", async () => {
    const { page } = desktop;
    await signUp(page);
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    expect(await page.getByRole("status").first().textContent()).toContain("Welcome! Your free account is ready");
    const usage = await dashboardUsage(page);
    expect(usage).toMatchObject({ used: 0, quota: 3, remaining: 3, plan: "Free", meterValue: 0, meterMax: 3 });
    expect(await page.getByText("No reports yet.").isVisible()).toBe(true);
    await shareSession(desktop, phone);
  });

  test("run a report on the real WordPress fixture and read WordPress 6.1.9, the theme and the plugins", async () => {
    const { page } = desktop;
    await page.getByLabel(/Site URL/).fill(WORDPRESS_URL);
    await Promise.all([
      page.waitForURL(/\/reports\/rep_/, { timeout: 30_000 }),
      page.getByRole("button", { name: "Analyze" }).click(),
    ]);
    webReportId = new URL(page.url()).pathname.split("/")[2] ?? "";
    expect(await page.locator("h1").textContent()).toContain(WORDPRESS_URL);
    const wordpress = page.locator('tr[data-component="wordpress"]');
    expect(await wordpress.locator("td.version").textContent()).toContain("6.1.9");
    const theme = page.locator('tr[data-component="theme"]');
    expect(await theme.locator(".name").textContent()).toBe("Twenty Twenty-One");
    expect(await theme.locator(".slug").textContent()).toBe("twentytwentyone");
    expect(await theme.locator("td.version").textContent()).toContain("1.7");
    expect(await page.locator('tr[data-plugin="akismet"] td.version').textContent()).toContain("5.0.2");
    expect(await page.locator('tr[data-plugin="xrds-simple"]').count()).toBe(1);
    expect(await page.locator("#grade").textContent()).toMatch(/^[A-F]$/);
    // Evidence is one click away and keyboard-operable (<details>).
    await wordpress.getByText(/^Evidence/).click();
    expect(await wordpress.getByText("WordPress 6.1.9").first().isVisible()).toBe(true);

    // The page is the report JSON the API returns for this id.
    const { token: reader } = await service.token();
    expect((await api("GET", `/api/report/${webReportId}`, undefined, reader)).status).toBe(404); // another account
    const download = await page.request.get(`/reports/${webReportId}/report.json`);
    expect(download.status()).toBe(200);
    expect(download.headers()["content-disposition"]).toContain(`${webReportId}.json`);
    expectPageShowsReport(await reportPageFacts(page), (await download.json()) as Report);
    await shoot("report");
  });

  test("the dashboard counts the report made on the web", async () => {
    const usage = await dashboardUsage(desktop.page);
    expect(usage).toMatchObject({ used: 1, quota: 3, remaining: 2, meterValue: 1, meterText: "1 of 3 reports used" });
    expect(await desktop.page.locator(`a[href="/reports/${webReportId}"]`).count()).toBe(1);
    await shoot("dashboard", "/dashboard");
  });

  test("create an API token: shown once, with a copy button; the list shows only its prefix", async () => {
    const { page } = desktop;
    await page.goto("/tokens");
    expect(await page.getByText("No tokens yet.").isVisible()).toBe(true);
    await page.getByLabel(/^Name/).fill("CI pipeline");
    await page.getByLabel("Expires").selectOption("30");
    await page.getByRole("button", { name: "Create token" }).click();
    await page.waitForSelector("#new-token");
    token = (await text(page, "#new-token")).trim();
    expect(token).toMatch(/^wpr_[A-Za-z0-9_]+$/);
    expect(await page.getByText("Copy it now — it is shown only once.").isVisible()).toBe(true);
    // The copy button puts exactly the token on the clipboard and says so.
    await desktop.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.url });
    await page.getByRole("button", { name: "Copy" }).click();
    await page.waitForFunction(() => document.querySelector("button[data-copy]")?.textContent === "Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await screenshot(page, "tokens-created", "desktop");

    await page.goto("/tokens");
    expect(await page.locator("#new-token").count()).toBe(0);
    expect(await page.content()).not.toContain(token);
    const row = page.locator("tr", { hasText: "CI pipeline" });
    const prefix = (await row.locator("td.mono").textContent()) ?? "";
    expect(prefix.endsWith("…")).toBe(true);
    expect(prefix.length).toBeLessThan(token.length / 2);
    expect(token.startsWith(prefix.slice(0, -1))).toBe(true);
    expect(await row.locator(".last-used").textContent()).toBe("never");
    expect(await row.locator(".status-active").textContent()).toBe("active");
  });

  test("GET /api/usage with the token says exactly what the dashboard says", async () => {
    const usage = await api<Usage>("GET", "/api/usage");
    expect(usage.status).toBe(200);
    const shown = await dashboardUsage(desktop.page);
    expect(usage.body).toMatchObject({
      plan: { id: "free", name: shown.plan },
      quota: shown.quota,
      used: shown.used,
      remaining: shown.remaining,
    });
    expect(await text(desktop.page, "text=Resets")).toContain(usage.body.resets_at.slice(0, 10));
    // The token page shows that the token has been used.
    await desktop.page.goto("/tokens");
    expect(await desktop.page.locator("tr", { hasText: "CI pipeline" }).locator(".last-used").textContent()).not.toBe(
      "never",
    );
  });

  test("POST /api/generate-report moves the dashboard's meter; the report appears in the list", async () => {
    const created = await api<Report>("POST", "/api/generate-report", { url: WORDPRESS_URL });
    expect(created.status).toBe(201);
    apiReport = created.body;
    const usage = await api<Usage>("GET", "/api/usage");
    expect(usage.body).toMatchObject({ used: 2, remaining: 1, quota: 3 });
    expect(await dashboardUsage(desktop.page)).toMatchObject({
      used: 2,
      remaining: 1,
      meterValue: 2,
      meterText: "2 of 3 reports used",
    });
    const recent = desktop.page.locator("tr", { has: desktop.page.locator(`a[href="/reports/${apiReport.id}"]`) });
    expect(await recent.count()).toBe(1);
    expect(await recent.locator(".muted").textContent()).toBe("via the API");

    await desktop.page.goto("/reports");
    expect(await desktop.page.locator(`a[href="/reports/${apiReport.id}"]`).count()).toBe(1);
    expect(await desktop.page.locator(`a[href="/reports/${webReportId}"]`).count()).toBe(1);
    await shoot("reports", "/reports");
    // Searching by site keeps both; a grade nobody has finds none.
    await desktop.page.getByLabel("Site").fill("127.0.0.1:8088");
    await desktop.page.getByRole("button", { name: "Filter" }).click();
    expect(await desktop.page.locator("tbody tr").count()).toBe(2);
  });

  test("the API's report page shows the same facts as its JSON, and compares with the earlier one", async () => {
    const { page } = desktop;
    await page.goto(`/reports/${apiReport.id}`);
    const stored = await api<Report>("GET", `/api/report/${apiReport.id}`);
    expect(stored.body).toEqual(apiReport);
    expectPageShowsReport(await reportPageFacts(page), stored.body);
    // The download is byte-for-byte the same JSON as the API's.
    expect(await (await page.request.get(`/reports/${apiReport.id}/report.json`)).json()).toEqual(stored.body);

    await page.getByLabel("Compare with an earlier report of this site").selectOption(webReportId);
    await Promise.all([page.waitForURL(/\/compare\?/), page.getByRole("button", { name: "Compare" }).click()]);
    expect(await page.locator("#verdict").textContent()).toMatch(/Pass|Fail/);
    await shoot("compare", `${new URL(page.url()).pathname}${new URL(page.url()).search}`);
  });

  test("using the last report: the dashboard says so and the analyze form explains the quota", async () => {
    expect((await api("POST", "/api/generate-report", { url: WORDPRESS_URL })).status).toBe(201);
    const { page } = desktop;
    expect(await dashboardUsage(page)).toMatchObject({ used: 3, remaining: 0, meterValue: 3 });
    expect(await page.locator("#quota-exhausted").textContent()).toContain("Upgrade your plan");
    expect(await page.locator("progress.usage.full").count()).toBe(1);
    await page.getByLabel(/Site URL/).fill(WORDPRESS_URL);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/analyze")),
      page.getByRole("button", { name: "Analyze" }).click(),
    ]);
    expect(response.status()).toBe(402);
    await page.waitForLoadState();
    const alert = await page.getByRole("alert").textContent();
    expect(alert).toContain("All 3 reports of this month are used; the quota resets on ");
    expect(alert).toContain("00:00 UTC. Upgrade your plan");
    // The URL stays in the field so nothing has to be typed again.
    expect(await page.getByLabel(/Site URL/).inputValue()).toBe(WORDPRESS_URL);
    await screenshot(page, "dashboard-quota-used", "desktop");
    expect((await api<Usage>("GET", "/api/usage")).body).toMatchObject({ used: 3, remaining: 0 });
  });

  test("revoke the token → the API answers 401", async () => {
    const { page, log } = desktop;
    await page.goto("/tokens");
    await page.getByRole("button", { name: "Revoke token CI pipeline" }).click();
    await page.waitForURL(/notice=token_revoked/);
    expect(log.dialogs.at(-1)).toContain("Revoke “CI pipeline”?");
    expect(await page.getByRole("status").first().textContent()).toContain("Token revoked");
    const row = page.locator("tr", { hasText: "CI pipeline" });
    expect(await row.locator(".status-revoked").textContent()).toBe("revoked");
    expect(await row.getByRole("button").count()).toBe(0);
    await shoot("tokens", "/tokens");
    for (const [method, path, body] of [
      ["GET", "/api/usage", undefined],
      ["POST", "/api/generate-report", { url: WORDPRESS_URL }],
    ] as const) {
      const answer = await api<{ code: string }>(method, path, body);
      expect(answer.status).toBe(401);
    }
  });

  test("upgrade in test mode: the quota shown and GET /api/usage change together", async () => {
    const { page } = desktop;
    // A new token for the checks below.
    await page.goto("/tokens");
    await page.getByLabel(/^Name/).fill("after upgrade");
    await page.getByRole("button", { name: "Create token" }).click();
    token = (await text(page, "#new-token")).trim();
    expect((await api<Usage>("GET", "/api/usage")).body).toMatchObject({
      plan: { id: "free" },
      quota: 3,
      remaining: 0,
    });

    await page.goto("/billing");
    expect(await page.getByRole("note").textContent()).toContain("Test mode");
    expect(await text(page, "#current-plan")).toBe("Free");
    await page.getByRole("button", { name: "Switch to Starter" }).click();
    await page.waitForURL(/notice=plan_changed/);
    expect(await page.getByRole("status").first().textContent()).toContain("Plan changed");
    expect(await text(page, "#current-plan")).toBe("Starter");
    expect(await text(page, "#billing-quota")).toBe("50");

    const usage = await api<Usage>("GET", "/api/usage");
    expect(usage.body).toMatchObject({ plan: { id: "starter", name: "Starter" }, quota: 50, used: 3, remaining: 47 });
    const shown = await dashboardUsage(page);
    expect(shown).toMatchObject({ plan: "Starter", quota: 50, used: 3, remaining: 47, meterMax: 50 });
    expect(await page.locator("#quota-exhausted").count()).toBe(0);
    // And the new quota is usable at once, from the API.
    expect((await api("POST", "/api/generate-report", { url: WORDPRESS_URL })).status).toBe(201);
    expect(await dashboardUsage(page)).toMatchObject({ used: 4, remaining: 46 });
  });

  test("cancel the plan: kept until the period ends, and said so", async () => {
    const { page, log } = desktop;
    await page.goto("/billing");
    await page.getByRole("button", { name: "Cancel plan" }).click();
    await page.waitForURL(/notice=plan_cancelled/);
    expect(log.dialogs.at(-1)).toContain("Cancel your plan?");
    expect(await page.getByText(/Cancelled: you keep this plan until/).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Cancel plan" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Keep Starter" }).isVisible()).toBe(true);
    expect((await api<Usage>("GET", "/api/usage")).body).toMatchObject({ plan: { id: "starter" }, quota: 50 });
    await shoot("billing", "/billing");
    // Changing one's mind: keep the plan.
    await page.getByRole("button", { name: "Keep Starter" }).click();
    await page.waitForURL(/notice=plan_changed/);
    expect(await page.getByText(/Cancelled/).count()).toBe(0);
  });

  test("the account page; log out; a protected page sends to log-in and back after it", async () => {
    const { page } = desktop;
    await page.goto("/account");
    expect(await page.getByLabel("Current password").isVisible()).toBe(true);
    await shoot("account", "/account");
    const email = (await page.locator("main strong").first().textContent()) ?? "";
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(/\/login\?notice=logged_out/);
    expect(await page.getByRole("status").textContent()).toContain("You are logged out.");

    await page.goto("/tokens");
    expect(page.url()).toContain("/login?next=%2Ftokens");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("wrong password!");
    await page.getByRole("button", { name: "Log in" }).click();
    expect(await page.getByRole("alert").textContent()).toBe("Email or password is wrong.");
    await page.getByLabel("Password").fill(PASSWORD);
    await Promise.all([page.waitForURL(/\/tokens$/), page.getByRole("button", { name: "Log in" }).click()]);
    expect(await page.locator("h1").textContent()).toBe("API tokens");
  });

  test("no errors in the browser console", () => {
    for (const log of [desktop.log, phone.log]) {
      expect(log.pageErrors).toEqual([]);
      // Chromium logs a page answered with an error status (the wrong password's 401, the
      // exhausted quota's 402) as a failed load; anything else (a missing asset, a CSP refusal) is a bug.
      expect(log.consoleErrors.filter((line) => !/status of 40[12] /.test(line))).toEqual([]);
    }
  });
});
