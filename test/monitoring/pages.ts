/**
 * What the monitoring pages' browser tests share (alerts-pages, monitors-pages): a member
 * signed up in Chromium against a real service, the stub servers they send to, following a
 * navigation link, the axe and width check of a page state, and the closing check of every
 * visited page on a phone and in the dark scheme, every control labelled.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import type { Page } from "playwright-core";
import { startTestService, type TestService } from "../helpers/service.ts";
import {
  acquireBrowser,
  describeViolations,
  inOtherViews,
  openPage,
  overflowsHorizontally,
  releaseBrowser,
  runAxe,
  signUp,
  type TestPage,
  unlabelledControls,
} from "../web/browser.ts";

/**
 * Registers the describe's beforeAll and afterAll: the service, the shared browser and a
 * signed-up member's desktop page (dialogs accepted). The fields are set once beforeAll has run.
 */
export function signedUpMember(): { service: TestService; member: TestPage } {
  const session = {} as { service: TestService; member: TestPage };
  beforeAll(async () => {
    [session.service] = await Promise.all([startTestService(), acquireBrowser()]);
    session.member = await openPage(session.service.url, "desktop", { acceptDialogs: true });
    await signUp(session.member.page);
  });
  afterAll(async () => {
    await session.member?.close();
    releaseBrowser();
    await session.service?.stop();
  });
  return session;
}

/**
 * Registers the describe's beforeAll and afterAll for stub servers (a site, a webhook receiver),
 * by name: each is started before the tests and stopped after them. The fields are set once
 * beforeAll has run.
 */
export function stubServers<S extends Record<string, { stop(): void }>>(start: { [K in keyof S]: () => S[K] }): S {
  const stubs = {} as S;
  beforeAll(() => {
    for (const name in start) stubs[name] = start[name]();
  });
  afterAll(() => {
    for (const stub of Object.values(stubs)) stub.stop();
  });
  return stubs;
}

/** Follows the navigation's link `name` to its page (at `path`), whose heading is `name` too. */
export async function followNavLink(page: Page, name: string, path: RegExp): Promise<void> {
  await page.getByRole("link", { name }).click();
  await page.waitForURL(path);
  expect(await page.locator("h1").textContent()).toBe(name);
}

/** axe-core finds nothing on the page state `name`, and it is no wider than its viewport. */
export async function axeClean(name: string, page: Page): Promise<void> {
  expect({ name, violations: describeViolations(await runAxe(page)) }).toEqual({ name, violations: "" });
  expect({ name, overflows: await overflowsHorizontally(page) }).toEqual({ name, overflows: false });
}

/** Each of `pages` (name → path) is clean on a phone and in the dark scheme, and labels every control. */
export async function expectCleanElsewhereAndLabelled(
  baseUrl: string,
  member: TestPage,
  pages: Record<string, string>,
): Promise<void> {
  await inOtherViews(baseUrl, member, pages, axeClean);
  const unlabelled: string[] = [];
  for (const path of Object.values(pages)) {
    await member.page.goto(path);
    unlabelled.push(...(await unlabelledControls(member.page)));
  }
  expect(unlabelled).toEqual([]);
}
