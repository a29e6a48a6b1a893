/**
 * Accessibility and feel, in Chromium: axe-core (WCAG 2.0–2.2 A/AA and best practices) on every
 * main page, on desktop and on a phone, in the light and the dark colour scheme; every form
 * control labelled; the whole sign-up → analyze → token → revoke path done with the keyboard
 * alone, with a visible focus; nothing wider than a phone's screen; pages that load fast and
 * light, from our own origin only.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startBlog, type TestSite } from "../helpers/sites.ts";
import {
  acquireBrowser,
  describeViolations,
  HAS_CHROMIUM,
  loadedResources,
  newEmail,
  openPage,
  overflowsHorizontally,
  PASSWORD,
  releaseBrowser,
  responseMs,
  runAxe,
  screenshot,
  shareSession,
  signUp,
  type TestPage,
  unlabelledControls,
  type ViewportName,
} from "./browser.ts";

// Browser steps and real analyses: well under this, but not under bun's default 5 s on a busy CI machine.
setDefaultTimeout(30_000);

describe.skipIf(!HAS_CHROMIUM)("accessibility of the web interface", () => {
  let service: TestService;
  let blog: TestSite | undefined;
  let target = "";
  let signedIn: TestPage;
  /** name → path, for a signed-in person with two reports of one site and a token. */
  const pages: Record<string, string> = {};

  /** Visits every page in the given viewport and colour scheme; returns `name → violations`. */
  async function audit(viewport: ViewportName, colorScheme: "light" | "dark") {
    const visitor = await openPage(service.url, viewport);
    const member = await openPage(service.url, viewport);
    await shareSession(signedIn, member);
    const found: Record<string, string> = {};
    try {
      for (const { page } of [visitor, member]) await page.emulateMedia({ colorScheme });
      const run = async (name: string, page: Page) => {
        const violations = await runAxe(page);
        if (violations.length > 0) found[name] = describeViolations(violations);
        expect({ name, overflows: await overflowsHorizontally(page) }).toEqual({ name, overflows: false });
      };
      for (const path of ["/", "/signup", "/login", "/no-such-page"]) {
        await visitor.page.goto(path);
        await run(`anonymous ${path}`, visitor.page);
      }
      // Error states of the forms.
      await visitor.page.goto("/login");
      await visitor.page.getByLabel("Email").fill("nobody@example.com");
      await visitor.page.getByLabel("Password").fill("wrong password");
      await visitor.page.getByRole("button", { name: "Log in" }).click();
      await visitor.page.waitForSelector("[role=alert]");
      await run("login error", visitor.page);
      for (const [name, path] of Object.entries(pages)) {
        await member.page.goto(path);
        await member.page.evaluate(() => {
          for (const details of document.querySelectorAll("details")) details.open = true;
        });
        await run(name, member.page);
        if (colorScheme === "dark" && ["dashboard", "report", "billing"].includes(name))
          await screenshot(member.page, `${name}-dark`, viewport, false);
      }
      await member.page.goto("/tokens");
      await member.page.getByLabel(/^Name/).fill(`audit ${viewport} ${colorScheme}`);
      await member.page.getByRole("button", { name: "Create token" }).click();
      await member.page.waitForSelector("#new-token");
      await run("token created", member.page);
      await member.page.goto("/dashboard");
      await member.page.getByLabel(/Site URL/).fill("not a url");
      await member.page.locator("form[action='/analyze']").evaluate((form) => (form as HTMLFormElement).submit());
      await member.page.waitForSelector("[role=alert]");
      await run("analyze error", member.page);
    } finally {
      await visitor.close();
      await member.close();
    }
    return found;
  }

  beforeAll(async () => {
    if (!HAS_WORDPRESS) blog = startBlog();
    target = HAS_WORDPRESS ? WORDPRESS_URL : (blog?.url ?? "");
    [service] = await Promise.all([startTestService({ env: { BILLING_MODE: "test" } }), acquireBrowser()]);
    signedIn = await openPage(service.url, "desktop");
    await signUp(signedIn.page);
    const { page } = signedIn;
    for (let index = 0; index < 2; index++) {
      await page.goto("/dashboard");
      await page.getByLabel(/Site URL/).fill(target);
      await Promise.all([
        page.waitForURL(/\/reports\/rep_/, { timeout: 30_000 }),
        page.getByRole("button", { name: "Analyze" }).click(),
      ]);
    }
    const report = new URL(page.url()).pathname;
    await page.goto("/tokens");
    await page.getByLabel(/^Name/).fill("CI");
    await page.getByRole("button", { name: "Create token" }).click();
    await page.waitForSelector("#new-token");
    await page.goto(report);
    const base = await page.getByLabel("Compare with an earlier report of this site").inputValue();
    Object.assign(pages, {
      dashboard: "/dashboard",
      report,
      compare: `${report}/compare?base=${base}`,
      reports: "/reports",
      tokens: "/tokens",
      billing: "/billing",
      account: "/account",
      "landing signed in": "/",
      "missing report": "/reports/rep_00000000000000000000000000",
    });
  });
  afterAll(async () => {
    await signedIn?.close();
    releaseBrowser();
    await service?.stop();
    blog?.stop();
  });

  for (const [viewport, colorScheme] of [
    ["desktop", "light"],
    ["phone", "light"],
    ["desktop", "dark"],
  ] as const) {
    test(`axe finds no violations on the main pages (${viewport}, ${colorScheme})`, async () => {
      const found = await audit(viewport, colorScheme);
      // The bar is "no serious or critical"; the pages meet a stricter one: none at all.
      expect(
        Object.entries(found)
          .map(([name, text]) => `${name}:\n${text}`)
          .join("\n\n"),
      ).toBe("");
    });
  }

  // A long public page (every check of the catalogue), so on its own rather than in the loop above.
  test("the check catalogue (/docs/checks): no axe violations, nothing wider than a phone", async () => {
    for (const viewport of ["desktop", "phone"] as const) {
      const visitor = await openPage(service.url, viewport);
      try {
        await visitor.page.goto("/docs/checks");
        expect(describeViolations(await runAxe(visitor.page))).toBe("");
        expect({ viewport, overflows: await overflowsHorizontally(visitor.page) }).toEqual({
          viewport,
          overflows: false,
        });
      } finally {
        await visitor.close();
      }
    }
  }, 60_000);

  test("every form control has a label, every button a name", async () => {
    const { page } = signedIn;
    const unlabelled: string[] = [];
    for (const path of [...Object.values(pages), "/"]) {
      await page.goto(path);
      const found = await unlabelledControls(page);
      unlabelled.push(...found.map((html) => `${path}: ${html}`));
    }
    expect(unlabelled).toEqual([]);
  });

  test("each page has its own title and one h1", async () => {
    const { page } = signedIn;
    const titles = new Set<string>();
    for (const path of ["/dashboard", "/reports", "/tokens", "/billing", "/account", pages.report ?? ""]) {
      await page.goto(path);
      titles.add(await page.title());
      expect(await page.locator("h1").count()).toBe(1);
    }
    expect(titles.size).toBe(6);
  });

  test("the keyboard alone: skip link, sign up, analyze, create and revoke a token — with a visible focus", async () => {
    const { page, log, close } = await openPage(service.url, "desktop", { acceptDialogs: true });
    /** Presses Tab until `selector` has the focus (at most 25 times); checks the focus is visible. */
    const tabTo = async (selector: string) => {
      for (let step = 0; step < 25; step++) {
        await page.keyboard.press("Tab");
        if (await page.evaluate((wanted) => document.activeElement?.matches(wanted) ?? false, selector)) {
          const outline = await page.evaluate(() => {
            const style = getComputedStyle(document.activeElement as Element);
            return { style: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) };
          });
          expect({ selector, outline: outline.style !== "none" && outline.width >= 2 }).toEqual({
            selector,
            outline: true,
          });
          return;
        }
      }
      throw new Error(`Tab never reached ${selector}`);
    };
    try {
      await page.goto("/");
      await page.keyboard.press("Tab");
      const skip = page.locator(".skip-link");
      expect(await skip.evaluate((element) => element === document.activeElement)).toBe(true);
      const box = await skip.boundingBox();
      expect(box !== null && box.x >= 0 && box.y >= 0).toBe(true); // on screen when focused
      await page.keyboard.press("Enter");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("content");

      await tabTo('a[href="/signup"].button');
      await Promise.all([page.waitForURL(/\/signup$/), page.keyboard.press("Enter")]);
      await tabTo("#email");
      await page.keyboard.type(newEmail("keyboard"));
      await tabTo("#password");
      await page.keyboard.type(PASSWORD);
      await Promise.all([page.waitForURL(/\/dashboard/), page.keyboard.press("Enter")]);

      await tabTo("#url");
      await page.keyboard.type(target);
      await Promise.all([page.waitForURL(/\/reports\/rep_/, { timeout: 30_000 }), page.keyboard.press("Enter")]);
      // Evidence opens from the keyboard.
      await tabTo("tr[data-component=wordpress] summary");
      await page.keyboard.press("Enter");
      expect(await page.locator("tr[data-component=wordpress] details").getAttribute("open")).not.toBeNull();

      await page.goto("/tokens");
      await tabTo("#name");
      await page.keyboard.type("keyboard token");
      await tabTo("#expires");
      await page.keyboard.press("ArrowDown"); // 90 days → a year
      await tabTo("form[action='/tokens'] button[type=submit]");
      await page.keyboard.press("Enter");
      await page.waitForSelector("#new-token");
      expect(await page.locator("#new-token").textContent()).toMatch(/^wpr_/);
      expect(await page.locator("tr", { hasText: "keyboard token" }).locator("td").nth(4).textContent()).toMatch(
        /^\d{4}-/,
      );
      await tabTo("button[data-copy]");
      await tabTo('button[aria-label="Revoke token keyboard token"]');
      await Promise.all([page.waitForURL(/notice=token_revoked/), page.keyboard.press("Enter")]);
      expect(log.dialogs).toEqual(["confirm: Revoke “keyboard token”? Anything using it stops working at once."]);
      expect(await page.locator("tr", { hasText: "keyboard token" }).locator(".status-revoked").count()).toBe(1);
    } finally {
      await close();
    }
  });

  test("the analyze button says it is busy and cannot be pressed twice", async () => {
    const site = startBlog();
    const busy = await openPage(service.url, "desktop");
    const { page, close } = busy;
    try {
      await shareSession(signedIn, busy);
      await page.goto("/dashboard");
      await page.getByLabel(/Site URL/).fill(site.url);
      // Hold the POST so the busy state can be seen, and count the submissions.
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let posts = 0;
      await page.route("**/analyze", async (route) => {
        posts++;
        await held;
        await route.continue();
      });
      // Clicked twice from inside the page, and the state read at once (Playwright's own
      // actions would wait for the held navigation).
      const state = await page.evaluate(() => {
        const button = document.querySelector<HTMLButtonElement>("form[action='/analyze'] button");
        button?.click();
        button?.click();
        return {
          text: button?.textContent,
          disabled: button?.disabled,
          busy: button?.form?.getAttribute("aria-busy"),
        };
      });
      expect(state).toEqual({ text: "Analyzing…", disabled: true, busy: "true" });
      release();
      await page.waitForURL(/\/reports\/rep_/, { timeout: 30_000 });
      expect(posts).toBe(1);
    } finally {
      await close();
      site.stop();
    }
  });

  test("fast and light: every page is served in well under a second, from our origin only", async () => {
    const { page } = signedIn;
    const timings: Record<string, number> = {};
    let assetBytes = 0;
    const foreign: string[] = [];
    for (const [name, path] of Object.entries(pages)) {
      await page.goto(path);
      timings[name] = await responseMs(page);
      for (const resource of await loadedResources(page)) {
        if (resource.foreign) foreign.push(resource.url);
      }
    }
    // The stylesheet, script and icon every page references (fetched once, then cached for an hour).
    const assets = await page.evaluate(() =>
      [
        ...document.querySelectorAll<HTMLLinkElement | HTMLScriptElement>(
          "link[href^='/assets/'], script[src^='/assets/']",
        ),
      ].map((element) => ("href" in element ? element.href : element.src)),
    );
    expect(assets.length).toBe(3);
    for (const asset of assets) {
      const response = await page.request.get(asset);
      expect(response.headers()["cache-control"]).toBe("public, max-age=3600");
      assetBytes += (await response.body()).length;
    }
    console.log(`[web] server response times (ms): ${JSON.stringify(timings)}`);
    for (const [name, ms] of Object.entries(timings)) expect({ name, fast: ms < 1000 }).toEqual({ name, fast: true });
    console.log(`[web] CSS + JS + icon: ${assetBytes} bytes`);
    expect(assetBytes).toBeLessThan(40_000);
    expect(foreign).toEqual([]);
  });
});
