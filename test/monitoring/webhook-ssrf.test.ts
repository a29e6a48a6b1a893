/**
 * No SSRF through webhooks, on both backends. A trap listens on 127.0.0.1 and [::1] (the
 * service's own machine, which no webhook may reach); it must never see a request.
 *
 * The service's TARGET_ALLOWLIST is `127.0.0.2` only — a loopback address standing in for "a
 * public site" (all of 127/8 is loopback on Linux, so 127.0.0.1 stays forbidden) — and it
 * resolves names with a tiny hostile DNS server (DNS_SERVERS), so names can point anywhere,
 * and change their answer between creation and delivery.
 *
 * - At creation (and on PATCH): loopback, the metadata address 169.254.169.254, private
 *   ranges, odd spellings of them, names resolving to them → 422, nothing stored.
 * - At delivery: a name that resolved to the allowed address at creation and to 127.0.0.1 by
 *   the time of the delivery is refused by the connection's own check; a receiver that
 *   redirects to the trap or to the metadata address is not followed.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { CreatedWebhook, Delivery } from "../../shared/monitoring-api.ts";
import { type DnsServer, startDnsServer } from "../analyzer/hostile/dns-server.ts";
import { startTrap, type Trap } from "../analyzer/hostile/servers.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { eventually } from "./helpers.ts";

setDefaultTimeout(60_000);

let trap: Trap;
let dns: DnsServer;
/** On 127.0.0.2 (allowed): answers every delivery with a redirect to where `redirects` says. */
let redirector: ReturnType<typeof Bun.serve>;
const redirects: string[] = [];

beforeAll(async () => {
  trap = startTrap();
  dns = await startDnsServer({
    "loopback.test": { A: ["127.0.0.1"] },
    "metadata.test": { A: ["169.254.169.254"] },
    "private.test": { A: ["10.0.0.7"] },
    // One forbidden answer among allowed ones taints the name.
    "mixed.test": { A: ["127.0.0.2", "192.168.1.20"] },
    "v6private.test": { AAAA: ["fd00::1"] },
    // Rebinding: the allowed address when the webhook is created, loopback ever after.
    "rebind.test": { A: (nth) => (nth === 1 ? ["127.0.0.2"] : ["127.0.0.1"]) },
    "rebind-two.test": { A: (nth) => (nth === 1 ? ["127.0.0.2"] : ["127.0.0.1"]) },
  });
  redirector = Bun.serve({
    hostname: "127.0.0.2",
    port: 0,
    fetch: () => {
      const location = redirects.shift() ?? `http://127.0.0.1:${trap.port}/`;
      return new Response(null, { status: 307, headers: { location } });
    },
  });
});

afterAll(async () => {
  trap?.stop();
  redirector?.stop(true);
  await dns?.stop();
});

for (const backend of BACKENDS) {
  describe(`hostile webhook URLs (${backend})`, () => {
    let service: TestService;
    let token: string;

    beforeAll(async () => {
      service = await startTestService({
        backend,
        env: {
          TARGET_ALLOWLIST: "127.0.0.2",
          DNS_SERVERS: dns.address,
          WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
          WEBHOOK_RETRY_SCHEDULE: "1s",
        },
      });
      const account = await service.token();
      token = account.token;
      await service.db.sql`update accounts set rate_limit_per_minute = 100000 where id = ${account.accountId}`;
    });
    afterAll(async () => {
      await service?.stop();
    });

    const create = (url: string) =>
      service.call<CreatedWebhook & { code?: string; detail?: string }>("POST", "/api/webhooks", {
        token,
        body: { url, events: ["report.completed"] },
      });

    const REFUSED: [string, "url_not_allowed" | "invalid_url", string][] = [
      ["http://127.0.0.1:P/hook", "url_not_allowed", "loopback"],
      ["http://127.0.0.1/hook", "url_not_allowed", "loopback"],
      ["http://localhost:P/hook", "url_not_allowed", "loopback"],
      ["http://[::1]:P/hook", "url_not_allowed", "loopback"],
      ["http://[::ffff:127.0.0.1]:P/hook", "url_not_allowed", ""],
      ["http://2130706433:P/hook", "url_not_allowed", "unusual numeric form"],
      ["http://0x7f.1:P/hook", "url_not_allowed", "unusual numeric form"],
      ["http://169.254.169.254/latest/meta-data/", "url_not_allowed", "link-local"],
      ["http://[fd00::1]/hook", "url_not_allowed", "unique local"],
      ["http://10.0.0.7/hook", "url_not_allowed", "private"],
      ["https://192.168.1.1/hook", "url_not_allowed", "private"],
      ["http://100.64.0.1/hook", "url_not_allowed", "carrier-grade"],
      ["http://0.0.0.0:P/hook", "url_not_allowed", ""],
      ["http://loopback.test:P/hook", "url_not_allowed", "resolves to a loopback address"],
      ["http://metadata.test/latest/meta-data/", "url_not_allowed", "resolves to a link-local address"],
      ["http://private.test/hook", "url_not_allowed", "resolves to a private network address"],
      ["http://mixed.test/hook", "url_not_allowed", "resolves to a private network address"],
      ["http://v6private.test/hook", "url_not_allowed", "resolves to a private (unique local) IPv6 address"],
      ["http://nowhere.test/hook", "invalid_url", "does not resolve"],
      ["http://intranet/hook", "url_not_allowed", "no dot"],
      ["http://user:pass@127.0.0.2/hook", "url_not_allowed", "user name or password"],
      ["ftp://127.0.0.2/hook", "url_not_allowed", "http and https"],
      ["file:///etc/passwd", "url_not_allowed", "http and https"],
      ["not a url", "invalid_url", "absolute URL"],
    ];

    test("hostile URLs are refused at creation with a clear problem, and nothing is stored", async () => {
      const answers: string[] = [];
      for (const [template, code, reason] of REFUSED) {
        const url = template.replaceAll(":P", `:${trap.port}`);
        const response = await create(url);
        expect(response.headers.get("content-type") ?? "").toStartWith("application/problem+json");
        expect({ url, status: response.status, code: response.body.code }).toEqual({ url, status: 422, code });
        expect({ url, detail: response.body.detail?.includes(reason) }).toEqual({ url, detail: true });
        answers.push(response.body.detail ?? "");
      }
      // The words speak of webhooks, not of analyses.
      expect(answers.filter((detail) => detail.includes("analyzed"))).toEqual([]);
      const list = await service.call<{ data: unknown[] }>("GET", "/api/webhooks", { token });
      expect(list.body.data).toEqual([]);
      expect(trap.hits).toEqual([]);
    });

    test("a webhook's URL cannot be changed to a hostile one either", async () => {
      const hook = await create(`http://127.0.0.2:${redirector.port}/fine`);
      expect(hook.status).toBe(201);
      for (const url of ["http://169.254.169.254/", `http://loopback.test:${trap.port}/`]) {
        const patched = await service.call("PATCH", `/api/webhooks/${hook.body.id}`, { token, body: { url } });
        expect({ url, status: patched.status, code: patched.body.code }).toEqual({
          url,
          status: 422,
          code: "url_not_allowed",
        });
      }
      const kept = await service.call<{ url: string }>("GET", `/api/webhooks/${hook.body.id}`, { token });
      expect(kept.body.url).toBe(`http://127.0.0.2:${redirector.port}/fine`);
      await service.call("DELETE", `/api/webhooks/${hook.body.id}`, { token });
    });

    test("DNS rebinding: a name allowed at creation that points to loopback at delivery is refused by the delivery's own check", async () => {
      const name = backend === "pglite" ? "rebind.test" : "rebind-two.test";
      const hook = await create(`http://${name}:${trap.port}/hook`);
      expect(hook.status).toBe(201);
      const sent = await service.call<Delivery>("POST", `/api/webhooks/${hook.body.id}/test`, { token });
      expect(sent.status).toBe(202);
      const done = await eventually("the delivery to be given up", async () => {
        const { body } = await service.call<Delivery>(
          "GET",
          `/api/webhooks/${hook.body.id}/deliveries/${sent.body.id}`,
          { token },
        );
        return body.status === "failed" ? body : undefined;
      });
      // The attempt (a test is tried once) was refused before connecting.
      expect(done).toMatchObject({ attempts: 1, last_status: null });
      expect(done.last_error).toBe(
        `Refused by the target policy: ${name} is not allowed: resolves to a loopback address.`,
      );
      expect(dns.count(name, "A")).toBeGreaterThanOrEqual(2);
      expect(trap.hits).toEqual([]);
    });

    test("redirects are not followed: to loopback, or to the metadata address", async () => {
      const hook = await create(`http://127.0.0.2:${redirector.port}/hook`);
      expect(hook.status).toBe(201);
      redirects.push(
        `http://127.0.0.1:${trap.port}/stolen`,
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
      );
      const sent = await service.call<Delivery>("POST", `/api/webhooks/${hook.body.id}/test`, { token });
      const done = await eventually("the delivery to be given up", async () => {
        const { body } = await service.call<Delivery>(
          "GET",
          `/api/webhooks/${hook.body.id}/deliveries/${sent.body.id}`,
          { token },
        );
        return body.status === "failed" ? body : undefined;
      });
      expect(done).toMatchObject({ attempts: 1, last_status: 307 });
      expect(done.last_error).toContain("redirects are not followed");
      expect(trap.hits).toEqual([]);
    });
  });
}
