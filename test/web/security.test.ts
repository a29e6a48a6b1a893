/**
 * The web interface's defences. Without a browser (fetch): CSRF (missing, mismatched, from
 * another origin), session cookie flags (and Secure behind https), session fixation, log-out,
 * log-in throttling per account and address and per address, open redirects, security headers on every
 * page. In Chromium: a hostile WordPress-looking site's text is shown as text on its report
 * page — nothing runs, with our CSP on and even with it off — and a form without its CSRF
 * field is refused.
 *
 * The instance trusts X-Forwarded-For (TRUST_PROXY), so each test acts from its own address
 * and the per-address log-in counter of one test does not leak into another.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { createApp } from "../../server/start/app.ts";
import type { Report } from "../../shared/report.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import type { TestSite } from "../helpers/sites.ts";
import { acquireBrowser, HAS_CHROMIUM, openPage, PASSWORD, releaseBrowser, SCREENSHOTS, signUp } from "./browser.ts";
import { Browserless, cookieAttributes, textOf } from "./forms.ts";
import { PAYLOADS, PLUGIN_SLUG, startHostileSite, THEME_SLUG } from "./hostile-site.ts";

// Browser steps and real analyses: well under this, but not under bun's default 5 s on a busy CI machine.
setDefaultTimeout(30_000);

let service: TestService;
let addresses = 0;
let emails = 0;
const newAddress = () => `198.51.100.${++addresses}`;
const newEmail = () => `sec-${++emails}-${Date.now().toString(36)}@example.com`;
/** A fresh browser-like client acting from its own address. */
const client = () => new Browserless(service.url, { "x-forwarded-for": newAddress() });

async function signedIn(): Promise<{ web: Browserless; email: string }> {
  const web = client();
  const email = newEmail();
  await web.signUp(email, PASSWORD);
  return { web, email };
}

beforeAll(async () => {
  // The browser is acquired at once, so the one the previous test file used is kept, not relaunched.
  [service] = await Promise.all([
    startTestService({ env: { TRUST_PROXY: "true" } }),
    HAS_CHROMIUM ? acquireBrowser() : null,
  ]);
});
afterAll(async () => {
  if (HAS_CHROMIUM) releaseBrowser();
  await service?.stop();
});

describe("CSRF", () => {
  test("a form without its CSRF field is refused with a 403 page, and nothing happens", async () => {
    const web = client();
    await web.get("/signup"); // has the CSRF cookie, but does not send the field
    const email = newEmail();
    const response = await web.request("POST", "/signup", { form: { email, password: PASSWORD } });
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(textOf(response.body)).toContain("Not allowed");
    expect(textOf(response.body)).toContain(
      "The form has expired or was not sent from this site. Reload the page and try again.",
    );
    const login = await client().logIn(email, PASSWORD);
    expect(login.status).toBe(401); // no account was made
  });

  test("every signed-in form refuses a missing CSRF field", async () => {
    const { web } = await signedIn();
    const tokens = await web.get("/tokens");
    expect(tokens.status).toBe(200);
    for (const [action, form] of [
      ["/tokens", { name: "sneaky" }],
      ["/analyze", { url: "http://127.0.0.1:9/" }],
      ["/billing/checkout", { plan: "enterprise" }],
      ["/billing/cancel", {}],
      ["/account/password", { password: "another long password" }],
      ["/logout", {}],
    ] as const) {
      const response = await web.request("POST", action, { form });
      expect({ action, status: response.status }).toEqual({ action, status: 403 });
    }
    // Still signed in, on the plan it had, with no token.
    const billing = await web.get("/billing");
    expect(billing.status).toBe(200);
    expect(billing.body).toContain('<strong id="current-plan">Free</strong>');
    expect((await web.get("/tokens")).body).toContain("No tokens yet.");
  });

  test("every form route of the web, read from the app's routes, refuses a missing CSRF token; signed out, it sends to log in first", async () => {
    // Every POST outside the API and Stripe's webhook is a form of the web interface: a new one
    // is covered here without being listed. Ids in paths are placeholders.
    const forms = createApp(service.running.services)
      .routes.filter((route) => route.method === "POST" && !/^\/(api|webhooks)\//.test(route.path))
      .map((route) => route.path.replaceAll(":id", "tok_00000000000000000000000000"));
    expect(forms).toContain("/tokens");
    expect(forms).toContain("/signup");
    const refusal = (response: { status: number; body: string; location: string | null }) => ({
      status: response.status,
      location: response.location,
      csrf: textOf(response.body).includes("The form has expired or was not sent from this site."),
    });
    const { web } = await signedIn();
    const anonymous = client();
    await anonymous.get("/login");
    // A recipient confirms alert emails from a link, signed in or not (docs/monitoring.md).
    const signedOutForms = ["/signup", "/login", "/logout", "/alerts/confirm"];
    for (const path of forms) {
      const withSession = await web.request("POST", path, { form: { name: "sneaky" } });
      expect({ path, ...refusal(withSession) }).toEqual({ path, status: 403, location: null, csrf: true });
      const signedOut = await anonymous.request("POST", path, { form: { name: "sneaky" } });
      const expected = signedOutForms.includes(path)
        ? { status: 403, location: null, csrf: true }
        : { status: 303, location: `/login?next=${encodeURIComponent(path)}`, csrf: false };
      expect({ path, ...refusal(signedOut) }).toEqual({ path, ...expected });
    }
    expect((await web.get("/tokens")).body).toContain("No tokens yet.");
  });

  test("another browser's CSRF token (a mismatch) is refused", async () => {
    const victim = await signedIn();
    const attacker = client();
    const attackerToken = Browserless.csrfOf((await attacker.get("/login")).body);
    const response = await victim.web.request("POST", "/tokens", { form: { _csrf: attackerToken, name: "planted" } });
    expect(response.status).toBe(403);
    expect((await victim.web.get("/tokens")).body).not.toContain("planted");
  });

  test("a form posted from another origin is refused even with the right token", async () => {
    const { web } = await signedIn();
    const csrf = Browserless.csrfOf((await web.get("/tokens")).body);
    const response = await web.request("POST", "/tokens", {
      form: { _csrf: csrf, name: "cross-site" },
      headers: { origin: "https://evil.example" },
    });
    expect(response.status).toBe(403);
    expect(textOf(response.body)).toContain("This form was sent from another site.");
    // The same request from our own origin works.
    const same = await web.request("POST", "/tokens", {
      form: { _csrf: csrf, name: "same-site" },
      headers: { origin: service.url },
    });
    expect(same.status).toBe(201);
  });

  test("a cross-site POST without any cookie cannot log in or sign up", async () => {
    for (const action of ["/login", "/signup"]) {
      const response = await fetch(`${service.url}${action}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": newAddress() },
        body: new URLSearchParams({ email: newEmail(), password: PASSWORD, _csrf: "x".repeat(43) }),
        redirect: "manual",
      });
      expect(response.status).toBe(403);
      expect(response.headers.getSetCookie().some((line) => line.startsWith("wpr_session="))).toBe(false);
    }
  });
});

describe("sessions", () => {
  test("the session and CSRF cookies are HttpOnly, SameSite=Lax, Path=/ and not Secure on plain http", async () => {
    const web = client();
    const response = await web.signUp(newEmail(), PASSWORD);
    const session = response.setCookies.find((line) => line.startsWith("wpr_session="));
    const csrf = response.setCookies.find((line) => line.startsWith("wpr_csrf="));
    for (const line of [session, csrf]) {
      expect(line).toBeDefined();
      const attributes = cookieAttributes(line ?? "");
      expect(attributes.has("httponly")).toBe(true);
      expect(attributes.get("samesite")?.toLowerCase()).toBe("lax");
      expect(attributes.get("path")).toBe("/");
      expect(attributes.has("secure")).toBe(false);
      expect(Number(attributes.get("max-age"))).toBe(30 * 86_400);
    }
    expect(/^wpr_session=([A-Za-z0-9_-]{43});/.test(session ?? "")).toBe(true);
  });

  test("with an https PUBLIC_BASE_URL the cookies are Secure and HSTS is sent", async () => {
    const https = await startTestService({ env: { PUBLIC_BASE_URL: "https://wpreport.example" } });
    try {
      const web = new Browserless(https.url);
      const signup = await web.get("/signup");
      expect(signup.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
      const response = await web.signUp(newEmail(), PASSWORD);
      const lines = response.setCookies.filter((line) => /^wpr_(session|csrf)=/.test(line));
      expect(lines.length).toBe(2);
      for (const line of lines) {
        const attributes = cookieAttributes(line);
        expect(attributes.has("secure")).toBe(true);
        expect(attributes.has("httponly")).toBe(true);
        expect(attributes.get("samesite")?.toLowerCase()).toBe("lax");
      }
      // A form from the public origin is ours; the instance's own loopback address is not.
      const csrf = Browserless.csrfOf((await web.get("/tokens")).body);
      const ours = await web.request("POST", "/tokens", {
        form: { _csrf: csrf, name: "t" },
        headers: { origin: "https://wpreport.example" },
      });
      expect(ours.status).toBe(201);
    } finally {
      await https.stop();
    }
  });

  test("log-in issues a new session id and a new CSRF token (no fixation)", async () => {
    const { email } = await signedIn();
    const web = client();
    await web.get("/login");
    // An attacker plants a session id (and knows the CSRF cookie) before the victim logs in.
    const planted = "A".repeat(43);
    web.cookies.set("wpr_session", planted);
    const csrfBefore = web.cookies.get("wpr_csrf");
    const response = await web.logIn(email, PASSWORD);
    expect(response.status).toBe(303);
    expect(response.location).toBe("/dashboard");
    const session = web.cookies.get("wpr_session");
    expect(session).toBeDefined();
    expect(session).not.toBe(planted);
    expect(web.cookies.get("wpr_csrf")).not.toBe(csrfBefore);
    expect((await web.get("/dashboard")).status).toBe(200);
    // The planted id opens nothing.
    const attacker = client();
    attacker.cookies.set("wpr_session", planted);
    const denied = await attacker.get("/dashboard");
    expect(denied.status).toBe(303);
    expect(denied.location).toBe("/login?next=%2Fdashboard");

    // A second log-in from another browser gets yet another id; both work independently.
    const other = client();
    await other.logIn(email, PASSWORD);
    expect(other.cookies.get("wpr_session")).not.toBe(session);
  });

  test("log-out ends the session on the server: the old cookie no longer works", async () => {
    const { web } = await signedIn();
    const old = web.cookies.get("wpr_session") ?? "";
    const out = await web.submit("/dashboard", "/logout", {});
    expect(out.status).toBe(303);
    expect(out.location).toBe("/login?notice=logged_out");
    expect(out.setCookies.some((line) => /^wpr_session=;/.test(line) && /max-age=0/i.test(line))).toBe(true);
    const replay = new Browserless(service.url);
    replay.cookies.set("wpr_session", old);
    expect((await replay.get("/dashboard")).status).toBe(303);
  });

  test("protected pages send to log-in; ?next= only ever leads to a local path", async () => {
    const anonymous = client();
    for (const path of ["/dashboard", "/reports", "/tokens", "/billing", "/account", "/reports/rep_x"]) {
      const response = await anonymous.get(path);
      expect(response.status).toBe(303);
      expect(response.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    const { email } = await signedIn();
    for (const [next, expected] of [
      ["/tokens", "/tokens"],
      ["//evil.example/", "/dashboard"],
      ["https://evil.example/", "/dashboard"],
      ["/\\evil.example", "/dashboard"],
      ["javascript:alert(1)", "/dashboard"],
    ] as const) {
      const web = client();
      const response = await web.logIn(email, PASSWORD, next);
      expect({ next, location: response.location }).toEqual({ next, location: expected });
    }
  });
});

describe("log-in throttling", () => {
  test("per account and address: after 5 failures the 6th from that address is refused, even with the right password; the owner passes elsewhere", async () => {
    const { email } = await signedIn();
    const attacker = client();
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await attacker.logIn(email, `wrong password ${attempt}`);
      expect(response.status).toBe(401);
      expect(textOf(response.body)).toContain("Email or password is wrong.");
    }
    const throttled = await attacker.logIn(email, PASSWORD);
    expect(throttled.status).toBe(429);
    expect(textOf(throttled.body)).toMatch(/Too many attempts\. Try again in 1[45] minutes\./);
    expect(throttled.body).toContain('role="alert"');
    expect(throttled.setCookies.some((line) => line.startsWith("wpr_session="))).toBe(false);
    // Only that address is refused for that account: the owner logs in from anywhere else.
    const fine = await client().logIn(email, PASSWORD);
    expect(fine.status).toBe(303);
  });

  test("per address: after 20 attempts from one address the next is refused, other addresses are not", async () => {
    const address = newAddress();
    const web = new Browserless(service.url, { "x-forwarded-for": address });
    for (let attempt = 1; attempt <= 20; attempt++) {
      // A different (unknown) account each time: only the address's counter can trip.
      const response = await web.logIn(newEmail(), "wrong password");
      expect(response.status).toBe(401);
    }
    const { email } = await signedIn();
    const throttled = await web.logIn(email, PASSWORD);
    expect(throttled.status).toBe(429);
    expect(textOf(throttled.body)).toMatch(/Too many attempts\. Try again in 1[45] minutes\./);
    const elsewhere = await client().logIn(email, PASSWORD);
    expect(elsewhere.status).toBe(303);
  });
});

describe("security headers", () => {
  test("every page, redirect, error page and asset carries them; the CSP allows no inline script", async () => {
    const anonymous = client();
    const { web } = await signedIn();
    const responses: [string, Response | Awaited<ReturnType<Browserless["get"]>>][] = [];
    for (const path of ["/", "/signup", "/login", "/dashboard", "/no-such-page", "/assets/app.css", "/assets/app.js"])
      responses.push([`anonymous ${path}`, await anonymous.get(path)]);
    for (const path of ["/dashboard", "/reports", "/tokens", "/billing", "/account", "/signup", "/reports/rep_nope"])
      responses.push([`signed in ${path}`, await web.get(path)]);
    responses.push(["403 CSRF", await web.request("POST", "/tokens", { form: { name: "x" } })]);
    expect(responses.map(([name, response]) => `${name} ${response.status}`)).toContain(
      "signed in /reports/rep_nope 404",
    );
    for (const [name, response] of responses) {
      const headers = response.headers;
      const csp = headers.get("content-security-policy") ?? "";
      const scriptSrc = /script-src ([^;]+)/.exec(csp)?.[1] ?? /default-src ([^;]+)/.exec(csp)?.[1] ?? "";
      expect({ name, scriptSrc }).toEqual({ name, scriptSrc: "'self'" });
      expect({ name, frameAncestors: csp.includes("frame-ancestors 'none'") }).toEqual({ name, frameAncestors: true });
      expect({ name, styles: /style-src [^;]*unsafe-inline/.test(csp) }).toEqual({ name, styles: false });
      expect({ name, nosniff: headers.get("x-content-type-options") }).toEqual({ name, nosniff: "nosniff" });
      expect({ name, referrer: headers.get("referrer-policy") }).toEqual({ name, referrer: "same-origin" });
      expect({ name, frame: headers.get("x-frame-options") }).toEqual({ name, frame: "DENY" });
      if (headers.get("content-type")?.includes("text/html"))
        expect({ name, cache: headers.get("cache-control") }).toEqual({ name, cache: "no-store" });
    }
  });

  test("pages carry no inline script or style attribute (the CSP would block them)", async () => {
    const { web } = await signedIn();
    for (const path of ["/", "/dashboard", "/reports", "/tokens", "/billing", "/account"]) {
      const { body } = await web.get(path);
      const scripts = [...body.matchAll(/<script\b([^>]*)>/g)].map((match) => match[1] ?? "");
      expect(scripts.length).toBeGreaterThan(0);
      for (const attributes of scripts) expect(attributes).toMatch(/\bsrc="\/assets\//);
      expect(body).not.toMatch(/\sstyle=/);
      expect(body).not.toMatch(/\son[a-z]+=/);
    }
  });
});

describe.skipIf(!HAS_CHROMIUM)("XSS in the browser", () => {
  let site: TestSite;
  let report: Report;
  let reportPath = "";
  let cookies: Awaited<ReturnType<import("playwright-core").BrowserContext["cookies"]>> = [];

  beforeAll(async () => {
    site = startHostileSite();
    const { page, context, close } = await openPage(service.url, "desktop");
    try {
      await page.setExtraHTTPHeaders({ "x-forwarded-for": newAddress() });
      await signUp(page, newEmail());
      await page.getByLabel(/Site URL/).fill(site.url);
      await Promise.all([
        page.waitForURL(/\/reports\/rep_/, { timeout: 30_000 }),
        page.getByRole("button", { name: "Analyze" }).click(),
      ]);
      reportPath = new URL(page.url()).pathname;
      report = (await (await page.request.get(`${reportPath}/report.json`)).json()) as Report;
      cookies = await context.cookies();
    } finally {
      await close();
    }
  });
  afterAll(() => site?.stop());

  test("the hostile site's text reached the report unchanged (the test is meaningful)", () => {
    expect(report.seo?.title).toBe(PAYLOADS.title);
    expect(report.seo?.headings.h1).toEqual([PAYLOADS.h1]);
    expect(report.seo?.meta_description).toBe(PAYLOADS.description);
    expect(report.theme?.slug).toBe(THEME_SLUG);
    expect(report.theme?.name).toBe(PAYLOADS.themeName);
    expect(report.plugins.find((plugin) => plugin.slug === PLUGIN_SLUG)?.name).toBe(PAYLOADS.pluginName);
    expect(report.security?.users[0]?.display_name).toBe(PAYLOADS.displayName);
  });

  for (const bypassCSP of [false, true]) {
    test(`the report page renders every payload inert and visible as text (${bypassCSP ? "CSP off: escaping alone" : "CSP on"})`, async () => {
      const { page, context, log, close } = await openPage(service.url, "desktop", { bypassCSP });
      try {
        await context.addCookies(cookies);
        // Open every <details> (evidence, passed checks, requests) so that all text is rendered and visible.
        await page.goto(reportPath);
        await page.evaluate(() => {
          for (const details of document.querySelectorAll("details")) details.open = true;
        });
        await page.waitForTimeout(150); // give any injected handler (img onerror, svg onload) its chance
        expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
        expect(log.dialogs).toEqual([]);
        expect(log.pageErrors).toEqual([]);
        const injected = await page.evaluate(() => ({
          handlers: [...document.querySelectorAll("*")].filter((element) =>
            [...element.attributes].some((attribute) => attribute.name.startsWith("on")),
          ).length,
          scripts: [...document.scripts].map((script) => script.getAttribute("src")),
          iframes: document.querySelectorAll("iframe, svg, img, object, embed").length,
          bold: [...document.querySelectorAll("main b")].length,
        }));
        expect(injected).toEqual({ handlers: 0, scripts: ["/assets/app.js"], iframes: 0, bold: 0 });
        // Each payload is on the page as the very text the site sent.
        // biome-ignore lint/performance/useDomNodeTextContent: what is rendered visibly is the point here
        const visible = await page.locator("main").innerText();
        for (const payload of [
          PAYLOADS.title,
          PAYLOADS.themeName,
          PAYLOADS.pluginName,
          PAYLOADS.displayName,
          PAYLOADS.description,
          PAYLOADS.h1,
        ])
          expect(visible).toContain(payload);
        expect(await page.locator(`tr[data-plugin="${PLUGIN_SLUG}"] .name`).textContent()).toBe(PAYLOADS.pluginName);
        expect(await page.locator('tr[data-component="theme"] .name').textContent()).toBe(PAYLOADS.themeName);
        if (!bypassCSP) {
          // The components and the SEO facts, where most of the payloads are.
          const dir = `${SCREENSHOTS}`;
          mkdirSync(dir, { recursive: true });
          await page
            .locator("section[aria-labelledby=components-heading]")
            .screenshot({ path: `${dir}/report-hostile-components-desktop.png` });
          await page
            .locator("section[aria-labelledby=seo-heading]")
            .screenshot({ path: `${dir}/report-hostile-seo-desktop.png` });
        }

        // The dashboard and the list show the report too (by its URL): still nothing runs.
        for (const path of ["/dashboard", "/reports"]) {
          await page.goto(path);
          expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
        }
        expect(log.dialogs).toEqual([]);
      } finally {
        await close();
      }
    });
  }

  test("a token name with markup stays text, in the table and in the revoke confirmation", async () => {
    const { page, context, log, close } = await openPage(service.url, "desktop", { bypassCSP: true });
    try {
      await context.addCookies(cookies);
      await page.goto("/tokens");
      const name = `<img src=x onerror="window.__xss=20">"quoted"`;
      await page.getByLabel(/^Name/).fill(name);
      await page.getByRole("button", { name: "Create token" }).click();
      await page.waitForSelector("#new-token");
      expect(await page.locator("#new-token-heading").textContent()).toBe(`Your new token “${name}”`);
      expect(await page.locator("main img").count()).toBe(0);
      await page.getByRole("button", { name: `Revoke token ${name}` }).click(); // the confirm is dismissed
      expect(log.dialogs).toEqual([`confirm: Revoke “${name}”? Anything using it stops working at once.`]);
      expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    } finally {
      await close();
    }
  });

  test("in the browser, a form whose CSRF field was removed gets the 403 page", async () => {
    const { page, context, close } = await openPage(service.url, "desktop");
    try {
      await context.addCookies(cookies);
      await page.goto("/tokens");
      await page.evaluate(() => {
        for (const field of document.querySelectorAll('input[name="_csrf"]')) field.remove();
      });
      await page.getByLabel(/^Name/).fill("no csrf");
      const [response] = await Promise.all([
        page.waitForResponse((candidate) => candidate.request().method() === "POST"),
        page.getByRole("button", { name: "Create token" }).click(),
      ]);
      expect(response.status()).toBe(403);
      await page.waitForLoadState();
      expect(await page.locator("h1").textContent()).toBe("Not allowed");
      expect(await page.locator("main").textContent()).toContain("Reload the page and try again.");
    } finally {
      await close();
    }
  });
});
