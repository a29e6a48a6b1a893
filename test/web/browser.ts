/**
 * Browser tests: Debian's Chromium driven by playwright-core (never a downloaded browser).
 * One browser per test process, shared by every test file: files acquire it in beforeAll and
 * release it in afterAll; it closes shortly after the last release.
 *
 * Helpers: pages with a desktop or phone viewport that record console errors, dialogs and
 * CSP violations; screenshots under test-results/screenshots/; axe-core injected from
 * node_modules; signing up through the real forms.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export const ROOT = path.resolve(import.meta.dir, "../..");
export const SCREENSHOTS = path.join(ROOT, "test-results", "screenshots");
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) {
  if (process.env.WPREPORT_REQUIRE_SERVICES === "1") throw new Error(`Chromium is required but missing at ${CHROMIUM}`);
  console.warn(`[tests] Chromium not found at ${CHROMIUM}: the browser tests are skipped`);
}

const AXE = path.join(ROOT, "node_modules", "axe-core", "axe.min.js");

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

let browser: Promise<Browser> | undefined;
let users = 0;
let closeTimer: ReturnType<typeof setTimeout> | undefined;

/** The shared browser (launched on first use). Pair with releaseBrowser() in afterAll. */
export function acquireBrowser(): Promise<Browser> {
  users++;
  if (closeTimer) clearTimeout(closeTimer);
  closeTimer = undefined;
  browser ??= chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
    timeout: 20_000,
  });
  return browser;
}

/**
 * Done with the browser. It is closed once nobody has used it for a moment: the next test file
 * (run by the same process) acquires it again in its beforeAll. The timer does not keep the
 * process alive; when the process ends first, Playwright ends Chromium with it.
 */
export function releaseBrowser(): void {
  users = Math.max(0, users - 1);
  if (users > 0 || !browser) return;
  const idle = browser;
  if (closeTimer) clearTimeout(closeTimer);
  closeTimer = setTimeout(() => {
    if (users > 0 || browser !== idle) return;
    browser = undefined;
    void idle.then((instance) => instance.close()).catch(() => {});
  }, 2_000);
  closeTimer.unref?.();
}

/** What a page did that a test may want to assert on. */
export interface PageLog {
  consoleErrors: string[];
  pageErrors: string[];
  dialogs: string[];
}

export interface TestPage {
  context: BrowserContext;
  page: Page;
  log: PageLog;
  close(): Promise<void>;
}

/** A fresh browser context (its own cookies) with one page. Dialogs are recorded, then dismissed. */
export async function openPage(
  baseUrl: string,
  viewport: ViewportName = "desktop",
  options: {
    acceptDialogs?: boolean;
    /** Turn off our Content-Security-Policy, to test the escaping on its own (XSS tests). */
    bypassCSP?: boolean;
  } = {},
): Promise<TestPage> {
  const context = await (await acquireBrowserOnce()).newContext({
    bypassCSP: options.bypassCSP ?? false,
    viewport: VIEWPORTS[viewport],
    isMobile: viewport === "phone",
    hasTouch: viewport === "phone",
    deviceScaleFactor: 1,
    baseURL: baseUrl,
    colorScheme: "light",
    reducedMotion: "reduce",
  });
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(20_000);
  const page = await context.newPage();
  const log: PageLog = { consoleErrors: [], pageErrors: [], dialogs: [] };
  page.on("console", (message) => {
    if (message.type() === "error") log.consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => log.pageErrors.push(String(error)));
  page.on("dialog", async (dialog) => {
    log.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    if (options.acceptDialogs) await dialog.accept();
    else await dialog.dismiss();
  });
  return { context, page, log, close: () => context.close() };
}

/** openPage() needs the browser without counting a user: tests acquire it in beforeAll. */
function acquireBrowserOnce(): Promise<Browser> {
  if (!browser) throw new Error("call acquireBrowser() in beforeAll before opening pages");
  return browser;
}

/** Saves test-results/screenshots/<name>-<viewport>.png (the full page, or what the viewport shows). */
export async function screenshot(page: Page, name: string, viewport: ViewportName, fullPage = true): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}-${viewport}.png`);
  await page.screenshot({ path: file, fullPage, animations: "disabled" });
  return file;
}

export interface AxeViolation {
  id: string;
  impact: "minor" | "moderate" | "serious" | "critical" | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

let axeSource: string | undefined;

/**
 * Runs axe-core (WCAG 2.x A/AA rules and best practices) on the page as it is now. axe is
 * evaluated through the DevTools protocol: a <script> tag (addScriptTag) would be refused by
 * our own Content-Security-Policy, which the tests keep on.
 */
export async function runAxe(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(AXE, "utf8");
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(`${axeSource};void 0`);
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected into the page at run time
    const axe = (window as any).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
      resultTypes: ["violations"],
    });
    // biome-ignore lint/suspicious/noExplicitAny: axe's result objects
    return result.violations.map((violation: any) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      // biome-ignore lint/suspicious/noExplicitAny: axe's node results
      nodes: violation.nodes.map((node: any) => ({ target: node.target, failureSummary: node.failureSummary })),
    }));
  });
}

export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help}\n${violation.nodes
          .slice(0, 5)
          .map((node) => `    ${node.target.join(" ")} — ${node.failureSummary?.replace(/\n/g, " ")}`)
          .join("\n")}`,
    )
    .join("\n");
}

let signups = 0;

/** A unique address for a test account. */
export function newEmail(label = "web"): string {
  return `${label}-${++signups}-${Date.now().toString(36)}@example.com`;
}

export const PASSWORD = "correct horse battery staple";

/** Signs up through the real form; ends on the dashboard. */
export async function signUp(page: Page, email = newEmail(), password = PASSWORD): Promise<string> {
  await page.goto("/signup");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await Promise.all([page.waitForURL(/\/dashboard/), page.getByRole("button", { name: "Create account" }).click()]);
  return email;
}

/** The text of an element, whitespace collapsed. */
export async function text(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().textContent()) ?? "").replace(/\s+/g, " ").trim();
}

/** Whether the document is wider than the viewport (horizontal scrolling of the whole page). */
export function overflowsHorizontally(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
}

/** Gives `to` the cookies (the logged-in session) of `from`. */
export async function shareSession(from: TestPage, to: TestPage): Promise<void> {
  await to.context.clearCookies();
  await to.context.addCookies(await from.context.cookies());
}

/** How long the last navigation took, from request to the end of the response (ms). */
export function responseMs(page: Page): Promise<number> {
  return page.evaluate(() => {
    const [entry] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
    return entry ? Math.round(entry.responseEnd - entry.requestStart) : 0;
  });
}

/**
 * The resources the current document loaded (Resource Timing, read in the page: no Playwright
 * request events, whose subscription is not needed here). `foreign`: from another origin.
 */
export function loadedResources(page: Page): Promise<{ url: string; bytes: number; foreign: boolean }[]> {
  return page.evaluate(() =>
    (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).map((entry) => ({
      url: entry.name,
      bytes: entry.decodedBodySize,
      foreign: new URL(entry.name).origin !== location.origin,
    })),
  );
}

/**
 * The visible form controls of the page with no accessible name: no <label>, aria-label or
 * aria-labelledby, or a button without text. Each as the start of its HTML.
 */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll("input, select, textarea, button")]
      .filter((element) => (element as HTMLInputElement).type !== "hidden")
      .filter((element) => {
        const control = element as HTMLInputElement;
        const named =
          (control.labels?.length ?? 0) > 0 ||
          control.getAttribute("aria-label") ||
          control.getAttribute("aria-labelledby") ||
          (element.tagName === "BUTTON" && element.textContent?.trim());
        return !named;
      })
      .map((element) => element.outerHTML.slice(0, 120)),
  );
}

/**
 * Visits `pages` (name → path) with `member`'s session on a phone in the light scheme and on a
 * desktop in the dark one, calling `check(label, page)` on each — the views a desktop-light
 * walk through a feature's pages does not cover.
 */
export async function inOtherViews(
  baseUrl: string,
  member: TestPage,
  pages: Record<string, string>,
  check: (label: string, page: Page) => Promise<void>,
): Promise<void> {
  for (const [viewport, scheme] of [
    ["phone", "light"],
    ["desktop", "dark"],
  ] as const) {
    const other = await openPage(baseUrl, viewport);
    try {
      await shareSession(member, other);
      await other.page.emulateMedia({ colorScheme: scheme });
      for (const [name, path] of Object.entries(pages)) {
        await other.page.goto(path);
        await check(`${name} (${viewport}, ${scheme})`, other.page);
      }
    } finally {
      await other.close();
    }
  }
}
