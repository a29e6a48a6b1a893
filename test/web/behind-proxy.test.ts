/**
 * Issue 21, row 5: the default install behind a plain reverse proxy — Debian's nginx with a
 * bare `proxy_pass`, PUBLIC_BASE_URL unset, no BILLING_MODE, no TRUST_PROXY. Every client then
 * reaches the service from 127.0.0.1 with a loopback Host, exactly like a browser on the
 * service's own machine. Through that proxy:
 * - a stranger cannot give themselves a paid plan (test billing needs BILLING_MODE=test);
 * - an attacker's failed log-ins do not lock every other user out (the proxy's address is not
 *   counted as one client), and the owner of the attacked account gets in with a known browser.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { HAS_NGINX, type NginxProxy, startBareProxy } from "../helpers/nginx-proxy.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { PASSWORD } from "./browser.ts";
import { Browserless, textOf } from "./forms.ts";

// Argon2id on every log-in, on a shared 2-core machine.
setDefaultTimeout(60_000);

let emails = 0;
const newEmail = () => `proxied-${++emails}-${Date.now().toString(36)}@example.com`;

describe.skipIf(!HAS_NGINX)("behind nginx with a bare proxy_pass and no configuration", () => {
  let service: TestService;
  let proxy: NginxProxy;
  beforeAll(async () => {
    service = await startTestService({ env: { PUBLIC_BASE_URL: "" } });
    proxy = await startBareProxy(service.url);
  });
  afterAll(async () => {
    await proxy?.stop();
    await service?.stop();
  });

  test("the proxy is as bare as the attacker's: the service sees the upstream's loopback Host", async () => {
    const web = new Browserless(proxy.url);
    expect((await web.signUp(newEmail(), PASSWORD)).status).toBe(303);
    // With PUBLIC_BASE_URL unset the links name the Host the service was sent: nginx's $proxy_host.
    const created = await web.submit("/tokens", "/tokens", { name: "ci" });
    expect(textOf(created.body)).toContain(`${service.url}/api/usage`);
  });

  test("a stranger cannot switch themselves to Enterprise", async () => {
    const stranger = new Browserless(proxy.url);
    const email = newEmail();
    await stranger.signUp(email, PASSWORD);
    const page = await stranger.get("/billing");
    expect(textOf(page.body)).toContain("Billing is not configured on this service");
    const attempt = await stranger.submit("/billing", "/billing/checkout", { plan: "enterprise" });
    expect(attempt.status).toBe(403);
    expect((await service.running.services.accounts.findByEmail(email))?.planId).toBe("free");
  });

  test("an attacker's 30 failed log-ins through the proxy do not lock other users out", async () => {
    const owner = newEmail();
    const other = newEmail();
    const ownerBrowser = new Browserless(proxy.url);
    await ownerBrowser.signUp(owner, PASSWORD);
    await new Browserless(proxy.url).signUp(other, PASSWORD);

    // More failures than any per-address limit (20 in all, 5 per account), on the owner and on others.
    const attacker = new Browserless(proxy.url);
    for (let attempt = 0; attempt < 30; attempt++) {
      const status = (await attacker.logIn(attempt % 2 === 0 ? owner : newEmail(), `guess ${attempt}`)).status;
      expect([401, 429]).toContain(status);
    }
    // Another user, through the same proxy, in a new browser: not refused.
    expect((await new Browserless(proxy.url).logIn(other, PASSWORD)).status).toBe(303);
    // The attacked account's owner, in the browser they signed up with (logged out): not refused.
    ownerBrowser.cookies.delete("wpr_session");
    expect((await ownerBrowser.logIn(owner, PASSWORD)).status).toBe(303);
  });
});
