/**
 * The monitor pages in Chromium (Debian's, through playwright-core): a person adds a monitor
 * (a bad schedule is refused with what was typed kept), sees it listed with its next run,
 * edits it, pauses and resumes it, runs it now (landing on the report, which the monitor then
 * shows as its last run), and deletes it. axe-core finds nothing on these pages, on desktop and
 * phone, in the light and dark schemes; no page is wider than a phone; every control labelled.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { startBlog } from "../helpers/sites.ts";
import { HAS_CHROMIUM, screenshot } from "../web/browser.ts";
import { axeClean, expectCleanElsewhereAndLabelled, followNavLink, signedUpMember, stubServers } from "./pages.ts";

setDefaultTimeout(60_000);

describe.skipIf(!HAS_CHROMIUM)("the monitor pages in a browser", () => {
  const stubs = stubServers({ blog: startBlog });
  const session = signedUpMember();
  /** name → path of every page state checked with axe. */
  const visited: Record<string, string> = {};

  const here = (page: Page) => new URL(page.url()).pathname + new URL(page.url()).search;

  test("add: a bad schedule is refused and what was typed is kept; a good one is listed with its next run", async () => {
    const { page } = session.member;
    await followNavLink(page, "Monitors", /\/monitors$/);
    expect(await page.getByText("No monitors yet.").isVisible()).toBe(true);
    await axeClean("monitors (empty)", page);
    visited.empty = "/monitors";

    await page.getByLabel(/^Site URL/).fill(stubs.blog.url);
    await page.getByLabel(/^Schedule/).fill("0 6 * *");
    await page.getByLabel(/^Environment/).fill("staging");
    await page.getByLabel(/^Assertions/).fill("security.*: error");
    await page.getByRole("button", { name: "Add monitor" }).click();
    await page.waitForSelector("[role=alert]");
    expect(await page.locator("[role=alert]").textContent()).toContain("a cron expression of 5 fields");
    expect(await page.getByLabel(/^Site URL/).inputValue()).toBe(stubs.blog.url);
    expect(await page.getByLabel(/^Schedule/).inputValue()).toBe("0 6 * *");
    expect(await page.getByLabel(/^Environment/).inputValue()).toBe("staging");
    expect(await page.getByLabel(/^Assertions/).inputValue()).toBe("security.*: error");
    await axeClean("monitors (refused)", page);
    await screenshot(page, "monitors-refused", "desktop");

    await page.getByLabel(/^Schedule/).fill("daily");
    await Promise.all([
      page.waitForURL(/\/monitors\/mon_\w+\?notice=monitor_created/),
      page.getByRole("button", { name: "Add monitor" }).click(),
    ]);
    expect(await page.locator("[role=status]").first().textContent()).toContain("Monitor added");
    expect(await page.locator("h1").textContent()).toBe(`Monitor of ${stubs.blog.url}`);
    expect(await page.locator("dl.facts").textContent()).toContain("daily");
    expect(await page.locator("dl.facts").textContent()).toContain("no run yet");
    await axeClean("monitor (new)", page);
    visited.monitor = here(page);

    await page.getByRole("link", { name: "← Monitors" }).click();
    const row = page.locator("tr[data-monitor]");
    expect(await row.count()).toBe(1);
    const text = (await row.textContent()) ?? "";
    expect(text).toContain(stubs.blog.url);
    expect(text).toContain("staging");
    expect(text).toContain("active");
    expect(text).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/); // the next run
    await axeClean("monitors (one)", page);
    visited.list = "/monitors";
  });

  test("edit, pause and resume: the page says what changed", async () => {
    const { page } = session.member;
    await page.goto(visited.monitor as string);
    await page.getByLabel(/^Schedule/).fill("30 6 * * 1-5");
    await page.getByLabel("Regression severity").selectOption("medium");
    await Promise.all([
      page.waitForURL(/notice=monitor_saved/),
      page.getByRole("button", { name: "Save monitor" }).click(),
    ]);
    expect(await page.locator("dl.facts").textContent()).toContain("30 6 * * 1-5");
    expect(await page.getByLabel("Regression severity").inputValue()).toBe("medium");

    await page.getByLabel(/^Schedule/).fill("every day");
    await page.getByRole("button", { name: "Save monitor" }).click();
    await page.waitForSelector("[role=alert]");
    expect(await page.getByLabel(/^Schedule/).inputValue()).toBe("every day");
    await axeClean("monitor (refused edit)", page);

    await page.goto(visited.monitor as string);
    await Promise.all([page.waitForURL(/notice=monitor_paused/), page.getByRole("button", { name: "Pause" }).click()]);
    expect(await page.locator("dl.facts").textContent()).toContain("none while paused");
    await axeClean("monitor (paused)", page);
    visited.paused = here(page);
    await Promise.all([
      page.waitForURL(/notice=monitor_resumed/),
      page.getByRole("button", { name: "Resume" }).click(),
    ]);
    expect(await page.locator("dl.facts").textContent()).not.toContain("none while paused");
  });

  test("run now lands on the report; the monitor then shows it as its last run", async () => {
    const { page } = session.member;
    await page.goto(visited.monitor as string);
    await Promise.all([page.waitForURL(/\/reports\/rep_\w+/), page.getByRole("button", { name: "Run now" }).click()]);
    const reportPath = new URL(page.url()).pathname;
    await page.goto(visited.monitor as string);
    const link = page.locator(`dl.facts a[href="${reportPath}"]`);
    expect(await link.count()).toBe(1);
    await axeClean("monitor (with a run)", page);
  });

  test("delete: gone from the list, its report stays", async () => {
    const { page } = session.member;
    await page.goto(visited.monitor as string);
    await Promise.all([
      page.waitForURL(/\/monitors\?notice=monitor_deleted/),
      page.getByRole("button", { name: "Delete" }).click(),
    ]);
    expect(await page.locator("tr[data-monitor]").count()).toBe(0);
    const missing = await page.goto(visited.monitor as string);
    expect(missing?.status()).toBe(404);
    await page.goto("/reports");
    expect(await page.locator(`a[href^="/reports/rep_"]`).count()).toBeGreaterThan(0);
  });

  test("axe on phone and in the dark scheme; every control labelled", async () => {
    // A monitor to show again (the previous test deleted its own).
    await session.member.page.goto("/monitors");
    await session.member.page.getByLabel(/^Site URL/).fill(stubs.blog.url);
    await Promise.all([
      session.member.page.waitForURL(/\/monitors\/mon_/),
      session.member.page.getByRole("button", { name: "Add monitor" }).click(),
    ]);
    const pages = { list: "/monitors", monitor: new URL(session.member.page.url()).pathname };
    await expectCleanElsewhereAndLabelled(session.service.url, session.member, pages);
  });
});
