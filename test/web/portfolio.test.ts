/**
 * The portfolio in Chromium, for a signed-up account with real reports (the WordPress fixture
 * and a blog whose deploy exposed, then removed, a .env): the portfolio page (badges,
 * server-rendered sparklines, the search by component, the CSV), the site page (score chart,
 * reports, client report form), the branding form (a logo upload, its refusals) and the client
 * report itself — each with axe (desktop, phone, dark), nothing wider than a phone, no script
 * needed and no CSP violation.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import path from "node:path";
import { siteId } from "../../server/platform/ids.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { generateReport } from "../helpers/generate.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type EnvExposingBlog, startEnvExposingBlog } from "../helpers/sites.ts";
import {
  acquireBrowser,
  describeViolations,
  HAS_CHROMIUM,
  openPage,
  overflowsHorizontally,
  releaseBrowser,
  runAxe,
  screenshot,
  shareSession,
  signUp,
  type TestPage,
  type ViewportName,
} from "./browser.ts";

setDefaultTimeout(60_000);

const INTEL_FILE = path.resolve(import.meta.dir, "../platform/intel/intel.json");
const PERIOD = new Date().toISOString().slice(0, 7);
/** An SVG logo that would run script and fetch a URL if it were ever inlined as markup. */
const HOSTILE_SVG = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" onload="window.__logo=1">
  <script>window.__logo=2;alert("logo")</script>
  <image href="http://127.0.0.1:9/tracker.png" width="1" height="1"/>
  <rect width="120" height="40" fill="#aa3300"/><text x="8" y="26" fill="#fff">ACME</text>
</svg>`;

describe.skipIf(!HAS_CHROMIUM || !HAS_WORDPRESS)("the portfolio in the browser", () => {
  let service: TestService;
  let blog: EnvExposingBlog;
  let member: TestPage;
  let accountId = "";
  let fixtureSite = "";
  let blogSite = "";

  beforeAll(async () => {
    [service] = await Promise.all([startTestService({ env: { INTEL_FILE } }), acquireBrowser()]);
    blog = startEnvExposingBlog();
    member = await openPage(service.url, "desktop");
    const email = await signUp(member.page);
    const { token, accountId: id } = await service.token(email, "business");
    accountId = id;
    const generate = async (url: string, environment: string) => {
      const report = await generateReport(service, token, { url, metadata: { environment } });
      expect(report.status).toBe("completed");
    };
    await generate(WORDPRESS_URL, "production");
    await generate(WORDPRESS_URL, "production");
    blog.envExposed = true;
    await generate(blog.url, "staging");
    blog.envExposed = false;
    await generate(blog.url, "staging");
    fixtureSite = siteId(accountId, new URL(WORDPRESS_URL).host, "production");
    blogSite = siteId(accountId, new URL(blog.url).host, "staging");
  });
  afterAll(async () => {
    await member?.close();
    releaseBrowser();
    blog?.stop();
    await service?.stop();
  });

  test("the portfolio: a row per site with its grade badge and a sparkline drawn by the server", async () => {
    const { page, log } = member;
    await page.goto("/dashboard");
    await Promise.all([page.waitForURL(/\/portfolio$/), page.getByRole("link", { name: "Portfolio" }).click()]);
    expect(await page.getByRole("link", { name: "Portfolio" }).getAttribute("aria-current")).toBe("page");
    const rows = page.locator("table tbody tr");
    expect(await rows.count()).toBe(2);
    const fixtureRow = rows.filter({ has: page.locator(`a[href="/sites/${fixtureSite}"]`) });
    expect(
      await fixtureRow
        .locator(".badge.grade-A, .badge.grade-B, .badge.grade-C, .badge.grade-D, .badge.grade-E, .badge.grade-F")
        .count(),
    ).toBe(1);
    expect(await fixtureRow.locator(".badge.env").textContent()).toBe("production");
    const sparkline = fixtureRow.locator("svg.sparkline");
    expect(await sparkline.getAttribute("role")).toBe("img");
    expect(await sparkline.getAttribute("aria-label")).toMatch(/over the last 2 reports$/);
    expect(await sparkline.locator("polyline").count()).toBe(1);
    // The blog went from F to a better grade: its sparkline rises (SVG y grows downwards).
    const points = await rows
      .filter({ has: page.locator(`a[href="/sites/${blogSite}"]`) })
      .locator("svg.sparkline polyline")
      .getAttribute("points");
    const [start, end] = (points ?? "").split(" ").map((pair) => Number(pair.split(",")[1]));
    expect((end ?? 0) < (start ?? 0)).toBe(true);
    // No client JavaScript draws it: the SVG is in the HTML the server sent.
    const html = await (await page.request.get("/portfolio")).text();
    expect(html.match(/<svg class="sparkline"/g)?.length).toBe(2);
    expect(log.consoleErrors).toEqual([]);
    await screenshot(page, "portfolio", "desktop");
  });

  test("search by component: which sites run akismet, with its version, and whether it is vulnerable", async () => {
    const { page } = member;
    await page.goto("/portfolio");
    await page.getByLabel("Plugin, theme or core").fill("akismet");
    await page.getByLabel("Type").selectOption("plugin");
    await Promise.all([page.waitForURL(/component=akismet/), page.getByRole("button", { name: "Find sites" }).click()]);
    const results = page.locator("section", { has: page.locator("#component-results-heading") });
    expect(await results.locator("h2").textContent()).toBe("Sites running plugin akismet");
    const row = results.locator("tbody tr");
    expect(await row.count()).toBe(1);
    expect(await row.locator("td").nth(2).textContent()).toBe("5.0.2");
    expect(await row.locator("td").nth(4).textContent()).toBe("yes · 1");
    await page.getByLabel("Plugin, theme or core").fill("no-such-plugin");
    await Promise.all([page.waitForURL(/no-such-plugin/), page.getByRole("button", { name: "Find sites" }).click()]);
    expect(await page.locator("#component-none").textContent()).toContain("no-such-plugin");
  });

  test("the CSV download has every site", async () => {
    const response = await member.page.request.get("/portfolio.csv");
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toBe("text/csv; charset=utf-8");
    expect(response.headers()["content-disposition"]).toMatch(/^attachment; filename="portfolio-/);
    const lines = (await response.text()).trimEnd().split("\r\n");
    expect(lines).toHaveLength(3);
    expect(
      lines
        .slice(1)
        .map((line) => line.split(",")[0])
        .sort(),
    ).toEqual([blogSite, fixtureSite].sort());
  });

  test("the site page: the score history as a chart with its table, the reports, a client report", async () => {
    const { page, log } = member;
    await page.goto("/portfolio");
    await Promise.all([page.waitForURL(`**/sites/${blogSite}`), page.locator(`a[href="/sites/${blogSite}"]`).click()]);
    const chart = page.locator("svg.score-chart");
    expect(await chart.getAttribute("role")).toBe("img");
    expect(await chart.locator("circle.chart-dot").count()).toBe(2);
    expect(await chart.locator("title").first().textContent()).toMatch(/^Score history: Score \d+ \(F\) to \d+/);
    expect(await page.locator("#reports-heading + div tbody tr, section:has(#reports-heading) tbody tr").count()).toBe(
      2,
    );
    await page.locator("details summary", { hasText: "The scores as a table" }).click();
    expect(await page.locator("details table tbody tr").count()).toBe(2);

    await page.getByLabel("Month").selectOption(PERIOD);
    await Promise.all([
      page.waitForURL(/client-report\?period=/),
      page.getByRole("button", { name: "View report" }).click(),
    ]);
    expect(await page.locator("h2#fixed-heading").textContent()).toBe("What was fixed");
    expect(await page.locator("#fixed-heading ~ ul .issue.fixed").first().textContent()).toContain(".env");
    // Its own CSP lets its inline stylesheet apply: the page is styled (A4 width on screen), no violation logged.
    const width = await page.evaluate(() => getComputedStyle(document.body).maxWidth);
    expect(width).not.toBe("none");
    expect(log.consoleErrors).toEqual([]);
    await screenshot(page, "client-report", "desktop");

    await page.goBack();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download PDF" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^client-report-.*-staging-${PERIOD}\\.pdf$`));
    const file = await download.path();
    expect(new TextDecoder().decode((await Bun.file(file).bytes()).slice(0, 5))).toBe("%PDF-");
  });

  test("branding: name, colour and an SVG logo that is only ever an image; bad logos are refused", async () => {
    const { page, log } = member;
    await page.goto("/portfolio");
    await Promise.all([
      page.waitForURL(/\/settings\/branding$/),
      page.getByRole("link", { name: "Client report branding" }).click(),
    ]);
    await page.getByLabel(/^Agency name/).fill("Acme Web Agency");
    await page.getByLabel(/^Colour/).fill("#aa3300");
    await page.getByLabel(/^Logo/).setInputFiles({
      name: "logo.svg",
      mimeType: "image/svg+xml",
      buffer: Buffer.from(HOSTILE_SVG),
    });
    await Promise.all([page.waitForURL(/saved=1/), page.getByRole("button", { name: "Save" }).click()]);
    expect(await page.locator("#branding-saved").textContent()).toContain("Saved");
    const preview = page.locator("img.brand-logo-preview");
    expect(await preview.getAttribute("src")).toStartWith("data:image/svg+xml;base64,");
    expect(await preview.evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBe(120);
    expect(await page.evaluate(() => (window as unknown as { __logo?: number }).__logo)).toBeUndefined();
    expect(log.dialogs).toEqual([]);
    expect(await page.getByLabel(/^Agency name/).inputValue()).toBe("Acme Web Agency");

    // The client report carries the name and the logo as an <img>, and the script never ran.
    await page.goto(`/sites/${blogSite}/client-report?period=${PERIOD}`);
    expect(await page.locator("#agency").textContent()).toBe("Acme Web Agency");
    expect(await page.locator("img.logo").getAttribute("src")).toStartWith("data:image/svg+xml;base64,");
    expect(await page.evaluate(() => (window as unknown as { __logo?: number }).__logo)).toBeUndefined();
    expect(await page.locator("svg script").count()).toBe(0);
    expect(log.dialogs).toEqual([]);

    // Too large, and not an image: the form says so, and the stored logo stays.
    await page.goto("/settings/branding");
    const png = new Uint8Array(150 * 1024);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    await page.getByLabel(/^Logo/).setInputFiles({ name: "big.png", mimeType: "image/png", buffer: Buffer.from(png) });
    await page.getByRole("button", { name: "Save" }).click();
    expect(await page.locator("#form-error").textContent()).toBe("The logo is 150 KB; it may be at most 100 KB.");
    await page.getByLabel(/^Logo/).setInputFiles({
      name: "logo.png",
      mimeType: "image/png",
      buffer: Buffer.from("<html><script>alert(1)</script></html>"),
    });
    await page.getByRole("button", { name: "Save" }).click();
    expect(await page.locator("#form-error").textContent()).toBe("The logo must be a PNG, JPEG or SVG image.");
    expect(await page.locator("img.brand-logo-preview").getAttribute("src")).toStartWith("data:image/svg+xml;");
    await screenshot(page, "branding-error", "desktop");

    // Saving without a file keeps the logo; "Remove the logo" removes it.
    await page.getByLabel(/^Agency name/).fill("Acme Digital");
    await Promise.all([page.waitForURL(/saved=1/), page.getByRole("button", { name: "Save" }).click()]);
    expect(await page.locator("img.brand-logo-preview").count()).toBe(1);
    await page.getByLabel("Remove the logo").check();
    await Promise.all([page.waitForURL(/saved=1/), page.getByRole("button", { name: "Save" }).click()]);
    expect(await page.locator("img.brand-logo-preview").count()).toBe(0);
    expect(await service.running.services.branding.get(accountId)).toEqual({
      name: "Acme Digital",
      logo: null,
      color: "#aa3300",
    });
  });

  for (const [viewport, colorScheme] of [
    ["desktop", "light"],
    ["phone", "light"],
    ["desktop", "dark"],
  ] as [ViewportName, "light" | "dark"][]) {
    test(`axe finds nothing on the portfolio's pages, nothing is wider than the screen (${viewport}, ${colorScheme})`, async () => {
      const visitor = await openPage(service.url, viewport);
      await shareSession(member, visitor);
      const found: string[] = [];
      try {
        await visitor.page.emulateMedia({ colorScheme });
        for (const path of [
          "/portfolio",
          "/portfolio?component=wordpress&type=core",
          `/sites/${fixtureSite}`,
          `/sites/${blogSite}`,
          "/settings/branding",
          `/sites/${blogSite}/client-report?period=${PERIOD}`,
        ]) {
          await visitor.page.goto(path);
          await visitor.page.evaluate(() => {
            for (const details of document.querySelectorAll("details")) details.open = true;
          });
          const violations = await runAxe(visitor.page);
          if (violations.length > 0) found.push(`${path}:\n${describeViolations(violations)}`);
          expect({ path, overflows: await overflowsHorizontally(visitor.page) }).toEqual({ path, overflows: false });
          if (path.startsWith("/sites/") && !path.includes("client-report"))
            await screenshot(visitor.page, `site-${colorScheme}`, viewport);
          if (path === "/portfolio") await screenshot(visitor.page, `portfolio-${colorScheme}`, viewport);
        }
        expect(visitor.log.consoleErrors).toEqual([]);
      } finally {
        await visitor.close();
      }
      expect(found.join("\n\n")).toBe("");
    });
  }

  test("another account's site is a 404 page; signed out, the pages send to log in", async () => {
    const stranger = await openPage(service.url, "desktop");
    try {
      await signUp(stranger.page);
      const response = await stranger.page.goto(`/sites/${fixtureSite}`);
      expect(response?.status()).toBe(404);
      const report = await stranger.page.goto(`/sites/${fixtureSite}/client-report?period=${PERIOD}`);
      expect(report?.status()).toBe(404);
      await stranger.context.clearCookies();
      await stranger.page.goto("/portfolio");
      expect(new URL(stranger.page.url()).pathname).toBe("/login");
    } finally {
      await stranger.close();
    }
  });
});
