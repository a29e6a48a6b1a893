/**
 * The alert and webhook pages in Chromium (Debian's, through playwright-core): a person sets
 * email recipients and the digest, adds a webhook (its secret shown once, copied from the
 * page), sends a test and sees it delivered in the log, redelivers, rotates the secret,
 * disables and enables, deletes — the receiver verifying every delivery with the secret the
 * page showed. axe-core finds nothing on any of these pages, on desktop and phone, in the
 * light and dark schemes; no page is wider than a phone.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { HAS_CHROMIUM, screenshot } from "../web/browser.ts";
import { eventually, startReceiver } from "./helpers.ts";
import { axeClean, expectCleanElsewhereAndLabelled, followNavLink, signedUpMember, stubServers } from "./pages.ts";

setDefaultTimeout(60_000);

describe.skipIf(!HAS_CHROMIUM)("the alerts and webhook pages in a browser", () => {
  const stubs = stubServers({ receiver: () => startReceiver() });
  const session = signedUpMember();
  /** name → path of every page state checked with axe. */
  const visited: Record<string, string> = {};

  test("email alerts: recipients, digest and events saved; a bad address is shown as an error", async () => {
    const { page } = session.member;
    await followNavLink(page, "Alerts", /\/alerts$/);
    await axeClean("alerts", page);

    await page.getByLabel(/^Recipients/).fill("ops@agency.example\nnot-an-address");
    await page.getByRole("button", { name: "Save email alerts" }).click();
    await page.waitForSelector("[role=alert]");
    expect(await page.locator("[role=alert]").textContent()).toBe("“not-an-address” is not an email address.");
    expect(await page.getByLabel(/^Recipients/).inputValue()).toBe("ops@agency.example\nnot-an-address");
    await axeClean("alerts error", page);
    await screenshot(page, "alerts-error", "desktop");

    await page.getByLabel(/^Recipients/).fill("ops@agency.example, lead@agency.example");
    await page.getByLabel(/A daily digest/).check();
    await page.getByLabel(/report\.completed/).check();
    await Promise.all([
      page.waitForURL(/notice=alerts_saved/),
      page.getByRole("button", { name: "Save email alerts" }).click(),
    ]);
    expect(await page.getByLabel(/^Recipients/).inputValue()).toBe("ops@agency.example\nlead@agency.example");
    expect(await page.getByLabel(/A daily digest/).isChecked()).toBe(true);
    expect(await page.getByLabel(/report\.completed/).isChecked()).toBe(true);
    expect(await page.getByLabel(/monitor\.regressed/).isChecked()).toBe(true);
    // Email is off in this service: the page says so.
    expect(await page.locator("[role=status]").allTextContents()).toContain(
      "Email is off on this server (its operator has not set SMTP_URL): your settings are kept, but no email is sent until it is. Webhooks work regardless.",
    );
    visited.alerts = "/alerts?notice=alerts_saved";
  });

  test("webhooks: add one (secret shown once), send a test, see it delivered, redeliver, rotate, disable, enable, delete", async () => {
    const { page } = session.member;
    await page.goto("/alerts/webhooks");
    await axeClean("webhooks empty", page);
    // A hostile URL is refused with the reason, and the form keeps what was typed.
    await page.getByLabel(/^Endpoint URL/).fill("http://169.254.169.254/latest/meta-data/");
    await page.getByRole("button", { name: "Add webhook" }).click();
    await page.waitForSelector("[role=alert]");
    expect(await page.locator("[role=alert]").textContent()).toContain("link-local address");
    await axeClean("webhooks error", page);

    await page.getByLabel(/^Endpoint URL/).fill(stubs.receiver.url);
    await page.getByLabel(/^Note/).fill("Team <b>channel</b>");
    await page.getByLabel(/vulnerability\.found/).check();
    await page.getByRole("button", { name: "Add webhook" }).click();
    await page.waitForSelector("#new-secret");
    const secret = ((await page.locator("#new-secret").textContent()) ?? "").trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await axeClean("webhook created", page);
    // The note is text, not markup; the secret is on this page only.
    expect(await page.locator("td", { hasText: "Team <b>channel</b>" }).count()).toBe(1);
    await page.goto("/alerts/webhooks");
    expect(await page.locator("#new-secret").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    visited.webhooks = "/alerts/webhooks";

    await page.getByRole("link", { name: stubs.receiver.url }).click();
    await page.waitForURL(/\/alerts\/webhooks\/whk_/);
    const detail = new URL(page.url()).pathname;
    visited.webhook = detail;
    expect(await page.getByText("No deliveries yet. Send a test to see one.").count()).toBe(1);
    await axeClean("webhook", page);

    await Promise.all([
      page.waitForURL(/notice=webhook_test_sent/),
      page.getByRole("button", { name: "Send test" }).click(),
    ]);
    await eventually("the test delivery", () => stubs.receiver.received.length === 1);
    expect(stubs.receiver.verify(secret, stubs.receiver.received[0] as never)).toMatchObject({ type: "webhook.test" });
    // The log shows it delivered (reload until the worker has recorded it).
    await eventually("the delivery log to show it", async () => {
      await page.goto(detail);
      return (await page.locator("tr[data-status=succeeded]").count()) === 1;
    });
    expect(await page.locator("tr[data-status=succeeded] td[data-label=Answer]").textContent()).toMatch(
      /^200 in \d+ msthanks$/,
    );
    await axeClean("webhook with log", page);
    await screenshot(page, "webhook-delivery-log", "desktop");

    await Promise.all([
      page.waitForURL(/notice=webhook_redelivered/),
      page.getByRole("button", { name: /^Redeliver webhook\.test/ }).click(),
    ]);
    await eventually("the redelivery", () => stubs.receiver.received.length === 2);
    expect(stubs.receiver.received[1]?.headers["webhook-id"]).toBe(
      stubs.receiver.received[0]?.headers["webhook-id"] as string,
    );

    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.waitForSelector("#new-secret");
    const rotated = ((await page.locator("#new-secret").textContent()) ?? "").trim();
    expect(rotated).not.toBe(secret);
    expect(session.member.log.dialogs).toContain(
      "confirm: Make a new signing secret? The current one keeps signing for 24 hours.",
    );
    await axeClean("secret rotated", page);
    await page.goto(detail);
    await Promise.all([
      page.waitForURL(/notice=webhook_test_sent/),
      page.getByRole("button", { name: "Send test" }).click(),
    ]);
    await eventually("the test after rotation", () => stubs.receiver.received.length === 3);
    const third = stubs.receiver.received[2];
    if (!third) throw new Error("no delivery");
    // Both the old and the new secret verify it during the overlap.
    expect(stubs.receiver.verify(secret, third)).toMatchObject({ type: "webhook.test" });
    expect(stubs.receiver.verify(rotated, third)).toMatchObject({ type: "webhook.test" });

    await Promise.all([
      page.waitForURL(/notice=webhook_disabled/),
      page.getByRole("button", { name: "Disable" }).click(),
    ]);
    expect(await page.locator(".alert.error").textContent()).toContain(
      "This webhook is disabled and receives no events.",
    );
    await axeClean("webhook disabled", page);
    visited.disabled = new URL(page.url()).pathname + new URL(page.url()).search;
    await Promise.all([
      page.waitForURL(/notice=webhook_enabled/),
      page.getByRole("button", { name: "Enable" }).click(),
    ]);

    await Promise.all([
      page.waitForURL(/notice=webhook_deleted/),
      page.getByRole("button", { name: "Delete" }).click(),
    ]);
    expect(await page.getByText("No webhooks yet.").count()).toBe(1);
    expect((await page.goto(detail))?.status()).toBe(404);
  });

  test("axe on phone and in the dark scheme; every control labelled", async () => {
    // A webhook to show again (the previous test deleted its own).
    await session.member.page.goto("/alerts/webhooks");
    await session.member.page.getByLabel(/^Endpoint URL/).fill(stubs.receiver.url);
    await session.member.page.getByRole("button", { name: "Add webhook" }).click();
    await session.member.page.waitForSelector("#new-secret");
    await session.member.page.getByRole("link", { name: stubs.receiver.url }).click();
    await session.member.page.waitForURL(/\/alerts\/webhooks\/whk_/);
    const pages = { ...visited, webhook: new URL(session.member.page.url()).pathname };
    await expectCleanElsewhereAndLabelled(session.service.url, session.member, pages);
  });
});
