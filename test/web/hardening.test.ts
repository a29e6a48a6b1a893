/**
 * Fixes from an outside attack on the web interface, each tried the way the attacker did:
 * - log-in and sign-up throttles keyed by the real client address (distinct loopback source
 *   addresses, no proxy headers), and an account backoff the owner can pass;
 * - no free plans when billing is not configured;
 * - routing on the parsed path whatever the Host header;
 * - forms that work at whatever address the service was opened, when PUBLIC_BASE_URL is unset;
 * - CSRF defences when Origin is missing or `null`, and against planted cookies.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { rawRequest, requestFrom } from "../helpers/http-from.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { acquireBrowser, HAS_CHROMIUM, openPage, PASSWORD, releaseBrowser, signUp } from "./browser.ts";
import { Browserless, textOf } from "./forms.ts";

// Password hashing on every log-in and a real analysis in the browser test.
setDefaultTimeout(60_000);

let emails = 0;
const newEmail = () => `hard-${++emails}-${Date.now().toString(36)}@example.com`;

describe("log-in and sign-up throttles use the real client address", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service?.stop());

  /** A browser at this loopback address (the service sees it as the TCP peer). */
  const from = (address: string) => new Browserless(service.url, {}, address);

  test("an attacker failing 25 times locks out only their own address; the owner logs in from another", async () => {
    const email = newEmail();
    await from("127.0.0.10").signUp(email, PASSWORD);
    const attacker = from("127.0.0.5");
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= 25; attempt++)
      statuses.push((await attacker.logIn(email, `guess ${attempt}`)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    const refused = await attacker.logIn(email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(textOf(refused.body)).toMatch(/Too many attempts\. Try again in \d+ minutes?\./);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);

    const owner = await from("127.0.0.10").logIn(email, PASSWORD);
    expect(owner.status).toBe(303);
    expect(owner.location).toBe("/dashboard");
    const someoneElse = newEmail();
    await from("127.0.0.11").signUp(someoneElse, PASSWORD);
    expect((await from("127.0.0.11").logIn(someoneElse, PASSWORD)).status).toBe(303);
  });

  test("a burst of 30 parallel guesses from one address: only 5 passwords are checked", async () => {
    const email = newEmail();
    await from("127.0.0.20").signUp(email, PASSWORD);
    const attacker = from("127.0.0.21");
    const page = await attacker.get("/login");
    const csrf = Browserless.csrfOf(page.body);
    const statuses = await Promise.all(
      Array.from(
        { length: 30 },
        async (_, i) =>
          (await attacker.request("POST", "/login", { form: { _csrf: csrf, email, password: `guess ${i}` } })).status,
      ),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
    expect((await from("127.0.0.20").logIn(email, PASSWORD)).status).toBe(303);
  });

  test("sign-up trusts the browser that signed up (device cookie)", async () => {
    const web = from("127.0.0.22");
    const response = await web.signUp(newEmail(), PASSWORD);
    expect(response.setCookies.some((line) => line.startsWith("wpr_device="))).toBe(true);
  });

  test("20 failures from one address (many accounts) refuse that address only", async () => {
    const guesser = from("127.0.0.6");
    for (let attempt = 1; attempt <= 20; attempt++) {
      expect((await guesser.logIn(newEmail(), "wrong password")).status).toBe(401);
    }
    const email = newEmail();
    await from("127.0.0.12").signUp(email, PASSWORD);
    expect((await guesser.logIn(email, PASSWORD)).status).toBe(429);
    expect((await from("127.0.0.12").logIn(email, PASSWORD)).status).toBe(303);
  });

  test("sign-ups are limited per address: the 11th from one address waits, another address signs up", async () => {
    for (let count = 1; count <= 10; count++) await from("127.0.0.7").signUp(newEmail(), PASSWORD);
    const eleventh = await from("127.0.0.7").submit("/signup", "/signup", { email: newEmail(), password: PASSWORD });
    expect(eleventh.status).toBe(429);
    expect(textOf(eleventh.body)).toContain("Too many sign-ups from your network.");
    const other = await from("127.0.0.13").submit("/signup", "/signup", { email: newEmail(), password: PASSWORD });
    expect(other.status).toBe(303);
  });

  test("a guess spread over many addresses costs a short backoff, never a lockout; a new address or a known browser skips it", async () => {
    const email = newEmail();
    await from("127.0.0.14").signUp(email, PASSWORD);
    const known = from("127.0.0.14");
    expect((await known.logIn(email, PASSWORD)).status).toBe(303);
    const device = known.cookies.get("wpr_device");
    expect(device).toBeDefined();

    // 10 failures from 5 addresses: no address reaches its own limit, the account reaches its soft limit.
    for (let host = 40; host < 45; host++) {
      for (let attempt = 0; attempt < 2; attempt++) {
        expect((await from(`127.0.0.${host}`).logIn(email, "a guess")).status).toBe(401);
      }
    }
    // An address that failed on the account already waits for the account's cooldown, even with the right password.
    const guesser = await from("127.0.0.40").logIn(email, PASSWORD);
    expect(guesser.status).toBe(429);
    expect(textOf(guesser.body)).toMatch(/Too many failed attempts on this account\. Try again in [1-5] seconds?\./);
    const retryAfter = Number(guesser.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(5);

    // The owner's browser, which logged in before, is not slowed down.
    const returning = from("127.0.0.41");
    returning.cookies.set("wpr_device", device as string);
    expect((await returning.logIn(email, PASSWORD)).status).toBe(303);
    // A forged or foreign device cookie counts for nothing.
    const forged = from("127.0.0.42");
    forged.cookies.set("wpr_device", `${(device as string).slice(0, -4)}AAAA`);
    expect((await forged.logIn(email, PASSWORD)).status).toBe(429);

    // A new browser on an address new to the account is checked at once.
    expect((await from("127.0.0.15").logIn(email, PASSWORD)).status).toBe(303);
    // And after the wait, the guessing address gets its check too.
    await Bun.sleep(retryAfter * 1000 + 200);
    expect((await from("127.0.0.43").logIn(email, PASSWORD)).status).toBe(303);
  });
});

describe("billing without Stripe", () => {
  test("with a public PUBLIC_BASE_URL and no BILLING_MODE, nobody can switch plans; the admin CLI still can", async () => {
    const service = await startTestService({ env: { PUBLIC_BASE_URL: "http://wpreport.example" } });
    try {
      const web = new Browserless(service.url);
      const email = newEmail();
      await web.signUp(email, PASSWORD);
      const page = await web.get("/billing");
      expect(textOf(page.body)).toContain("Billing is not configured on this service");
      expect(page.body).not.toContain('action="/billing/checkout"');
      const attempt = await web.submit("/billing", "/billing/checkout", { plan: "enterprise" });
      expect(attempt.status).toBe(403);
      expect(textOf(attempt.body)).toContain("plans cannot be changed here; ask the operator");
      const account = await service.running.services.accounts.findByEmail(email);
      expect(account?.planId).toBe("free");
      expect((await web.submit("/billing", "/billing/cancel", {})).status).toBe(403);

      // The operator's way still works (the CLI's plan set is this call).
      await service.running.services.accounts.setPlan(account?.id as string, "business");
      expect((await service.running.services.accounts.findByEmail(email))?.planId).toBe("business");
    } finally {
      await service.stop();
    }
  });

  test("BILLING_MODE=test turns test mode on explicitly for a public base URL", async () => {
    const service = await startTestService({
      env: { PUBLIC_BASE_URL: "http://wpreport.example", BILLING_MODE: "test" },
    });
    try {
      const web = new Browserless(service.url);
      await web.signUp(newEmail(), PASSWORD);
      const changed = await web.submit("/billing", "/billing/checkout", { plan: "starter" });
      expect(changed.status).toBe(303);
      expect(changed.location).toBe("http://wpreport.example/billing?notice=plan_changed");
    } finally {
      await service.stop();
    }
  });

  test("PUBLIC_BASE_URL unset and no BILLING_MODE: no browser changes its plan, on this machine or not", async () => {
    const service = await startTestService({ env: { PUBLIC_BASE_URL: "" } });
    try {
      // A browser on this machine looks exactly like every client of a same-host reverse proxy.
      const local = new Browserless(service.url);
      const email = newEmail();
      await local.signUp(email, PASSWORD);
      expect(textOf((await local.get("/billing")).body)).toContain("Billing is not configured on this service");
      const refused = await local.submit("/billing", "/billing/checkout", { plan: "enterprise" });
      expect(refused.status).toBe(403);
      expect((await service.running.services.accounts.findByEmail(email))?.planId).toBe("free");
    } finally {
      await service.stop();
    }
  });
});

describe("routing reads the requested path, whatever the Host header", () => {
  let service: TestService;
  let token: string;
  beforeAll(async () => {
    service = await startTestService();
    token = (await service.token()).token;
  });
  afterAll(() => service?.stop());

  for (const host of ["x", "x:1", "ab", "[::1]", "[::1]:9", "127.0.0.1", ""]) {
    test(`Host "${host}": /abc/api/usage is 404, /api/usage is 200`, async () => {
      const headers = { host, authorization: `Bearer ${token}`, accept: "application/json" };
      const wrong = await requestFrom(`${service.url}/abc/api/usage`, { headers });
      expect({ host, status: wrong.status }).toEqual({ host, status: 404 });
      expect(JSON.parse(wrong.body).detail).toBe("Nothing at GET /abc/api/usage.");
      const right = await requestFrom(`${service.url}/api/usage?x=1`, { headers });
      expect({ host, status: right.status }).toEqual({ host, status: 200 });
    });
  }

  test("an oversized streamed body on a rebuilt request still answers 413 at once", async () => {
    const started = performance.now();
    const response = await requestFrom(`${service.url}/api/generate-report`, {
      method: "POST",
      // No Content-Length: Node sends the body chunked, so only counting bytes can stop it.
      headers: { host: "x", "content-type": "application/json", authorization: `Bearer ${token}` },
      body: `{"url":"${"a".repeat(200_000)}"}`,
    });
    expect(response.status).toBe(413);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  test("an HTTP/1.0 request without any Host header routes on its path too", async () => {
    const port = Number(new URL(service.url).port);
    const wrong = await rawRequest(port, `GET /abc/api/usage HTTP/1.0\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    expect(wrong.status).toBe(404);
    const right = await rawRequest(port, `GET /api/usage HTTP/1.0\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    expect(right.status).toBe(200);
  });
});

describe("PUBLIC_BASE_URL unset: the address the browser used is ours", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { PUBLIC_BASE_URL: "" } });
  });
  afterAll(() => service?.stop());

  test("forms posted with Origin http://127.0.0.1:<port> work, and the links name that origin", async () => {
    const web = new Browserless(service.url, { origin: service.url });
    await web.signUp(newEmail(), PASSWORD);
    const created = await web.submit("/tokens", "/tokens", { name: "ci" });
    expect(created.status).toBe(201);
    expect(textOf(created.body)).toContain(`${service.url}/api/usage`);
  });

  test("the same service opened as localhost works with Origin http://localhost:<port>", async () => {
    const localhost = service.url.replace("127.0.0.1", "localhost");
    const web = new Browserless(service.url, { host: new URL(localhost).host, origin: localhost }, "127.0.0.1");
    await web.signUp(newEmail(), PASSWORD);
    const created = await web.submit("/tokens", "/tokens", { name: "ci" });
    expect(textOf(created.body)).toContain(`${localhost}/api/usage`);
  });

  test("a name that is not ours (DNS rebinding to the local trial) is not our origin", async () => {
    const port = new URL(service.url).port;
    const rebound = `http://attacker.example:${port}`;
    const web = new Browserless(service.url, { host: `attacker.example:${port}`, origin: rebound }, "127.0.0.1");
    const response = await web.submit("/signup", "/signup", { email: newEmail(), password: PASSWORD });
    expect(response.status).toBe(403);
    expect(textOf(response.body)).toContain("This form was sent from another site.");
  });

  test("a form from another origin is still refused", async () => {
    const web = new Browserless(service.url, { origin: "http://evil.example" });
    const response = await web.submit("/signup", "/signup", { email: newEmail(), password: PASSWORD });
    expect(response.status).toBe(403);
    expect(textOf(response.body)).toContain("This form was sent from another site.");
  });

  test("with PUBLIC_BASE_URL set, only that origin is ours", async () => {
    const strict = await startTestService({ env: { PUBLIC_BASE_URL: "http://wpreport.example" } });
    try {
      const web = new Browserless(strict.url, { origin: strict.url });
      const response = await web.submit("/signup", "/signup", { email: newEmail(), password: PASSWORD });
      expect(response.status).toBe(403);
      const ours = new Browserless(strict.url, { origin: "http://wpreport.example" });
      expect((await ours.submit("/signup", "/signup", { email: newEmail(), password: PASSWORD })).status).toBe(303);
    } finally {
      await strict.stop();
    }
  });
});

describe("CSRF when Origin is missing or null", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service?.stop());

  async function signedIn(headers: Record<string, string> = {}) {
    const web = new Browserless(service.url, headers);
    await web.signUp(newEmail(), PASSWORD);
    return web;
  }

  const tokenNames = async (web: Browserless) => textOf((await web.get("/tokens")).body);

  test("Origin: null (sandboxed frame, data: page) is refused even with the right token", async () => {
    const web = await signedIn();
    const response = await web.submit("/tokens", "/tokens", { name: "from-null" }, { origin: "null" });
    expect(response.status).toBe(403);
    expect(await tokenNames(web)).not.toContain("from-null");
  });

  test("no Origin: Sec-Fetch-Site other than same-origin is refused, same-origin passes", async () => {
    const web = await signedIn();
    for (const site of ["cross-site", "same-site"]) {
      const response = await web.submit("/tokens", "/tokens", { name: `from-${site}` }, { "sec-fetch-site": site });
      expect({ site, status: response.status }).toEqual({ site, status: 403 });
    }
    const same = await web.submit("/tokens", "/tokens", { name: "from-same" }, { "sec-fetch-site": "same-origin" });
    expect(same.status).toBe(201);
  });

  test("no Origin and no Sec-Fetch-Site: a foreign Referer is refused, ours passes", async () => {
    const web = await signedIn();
    const foreign = await web.submit("/tokens", "/tokens", { name: "x" }, { referer: "http://evil.example/page" });
    expect(foreign.status).toBe(403);
    const ours = await web.submit("/tokens", "/tokens", { name: "y" }, { referer: `${service.url}/tokens` });
    expect(ours.status).toBe(201);
  });

  test("a CSRF cookie planted from a sibling subdomain does not pass: the token is bound to the session", async () => {
    const victim = await signedIn();
    const page = await victim.get("/tokens");
    // The form's token is not the cookie's value: it cannot be derived from anything a sibling can set.
    expect(Browserless.csrfOf(page.body)).not.toBe(victim.cookies.get("wpr_csrf"));
    const planted = "A".repeat(43);
    victim.cookies.set("wpr_csrf", planted); // what `Set-Cookie: wpr_csrf=…; Domain=.example` from a sibling does
    const forged = await victim.request("POST", "/tokens", { form: { _csrf: planted, name: "planted" } });
    expect(forged.status).toBe(403);
    expect(await tokenNames(victim)).not.toContain("planted");
  });
});

describe.skipIf(!HAS_CHROMIUM || !HAS_WORDPRESS)("in Chromium, at http://127.0.0.1 with PUBLIC_BASE_URL unset", () => {
  let service: TestService;
  beforeAll(async () => {
    [service] = await Promise.all([startTestService({ env: { PUBLIC_BASE_URL: "" } }), acquireBrowser()]);
  });
  afterAll(async () => {
    releaseBrowser();
    await service?.stop();
  });

  test("sign up → analyze the WordPress fixture → read the report", async () => {
    expect(service.url).toStartWith("http://127.0.0.1:");
    const { page, log, close } = await openPage(service.url);
    try {
      await page.goto("/");
      await signUp(page);
      expect(new URL(page.url()).pathname).toBe("/dashboard");
      await page.getByLabel(/Site URL/).fill(WORDPRESS_URL);
      await Promise.all([
        page.waitForURL(/\/reports\/rep_/, { timeout: 30_000 }),
        page.getByRole("button", { name: "Analyze" }).click(),
      ]);
      expect(page.url()).toStartWith(`${service.url}/reports/rep_`);
      expect(await page.locator("h1").textContent()).toContain(WORDPRESS_URL);
      expect(await page.locator('tr[data-component="wordpress"] td.version').textContent()).toContain("6.1.9");
      expect(log.pageErrors).toEqual([]);
    } finally {
      await close();
    }
  });
});
