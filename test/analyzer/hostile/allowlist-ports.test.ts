/**
 * TARGET_ALLOWLIST ports and IPv6 embeddings, against the real POST /api/generate-report.
 *
 * A fake "Redis" (plain TCP) listens on 127.0.0.2 next to the allowed sites and counts
 * connections; it must never see one. Two services share one database:
 *  - `ported`: allowlist `127.0.0.2:<site port>` for each site — the host is allowed on the
 *    sites' ports only, so links and redirects to the Redis port, direct or through a name,
 *    are refused where the connection would be made;
 *  - `plain`: allowlist `127.0.0.2` (every port), for the IPv6 forms that carry 127.0.0.2
 *    (NAT64, 6to4, IPv4-compatible, rfc6145): other hosts, so refused as loopback. Only the
 *    IPv4-mapped form is the same host.
 * Both resolve names with a test DNS server (DNS_SERVERS), so AAAA answers can carry the
 * embeddings too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { request } from "undici/index.js";
import { createSafeAgent } from "../../../server/analyzer/fetch/safe-agent.ts";
import { TargetBlockedError, TargetPolicy } from "../../../server/analyzer/fetch/target-policy.ts";
import type { Logger } from "../../../server/platform/logger.ts";
import { loadConfig } from "../../../server/start/config.ts";
import { createServices } from "../../../server/start/services.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { type DnsServer, startDnsServer } from "./dns-server.ts";
import { HOSTILE_HOST, type HostileSite, HTML, startHostileSite, wordpressPage } from "./servers.ts";

interface FakeRedis {
  port: number;
  connections: number;
  stop(): Promise<void>;
}

/** A TCP listener on 127.0.0.2 that answers like a Redis refusing the command, and counts. */
async function startFakeRedis(): Promise<FakeRedis> {
  const redis: FakeRedis = { port: 0, connections: 0, stop: async () => {} };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    redis.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.end("-ERR unknown command\r\n");
  });
  await new Promise<void>((resolve) => server.listen(0, HOSTILE_HOST, resolve));
  redis.port = (server.address() as net.AddressInfo).port;
  redis.stop = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return redis;
}

let redis: FakeRedis;
let dns: DnsServer;
let ported: TestService;
let plain: TestService;
const tokens = new Map<TestService, string>();
/** Homepage redirects to the Redis port by IP literal. */
let toRedisByIp: HostileSite;
/** Homepage redirects to the Redis port through a name resolving to 127.0.0.2. */
let toRedisByName: HostileSite;
/** A WordPress page linking to the Redis port; every other path redirects there. */
let linking: HostileSite;
/** A plain WordPress page (for `plain`, which may reach every port of 127.0.0.2). */
let benign: HostileSite;

const redisUrl = (path = "/") => `http://${HOSTILE_HOST}:${redis.port}${path}`;

async function generate(service: TestService, url: string) {
  const token = tokens.get(service) as string;
  return service.call("POST", "/api/generate-report", { token, body: { url } });
}

async function expectNotAllowed(service: TestService, url: string) {
  const response = await generate(service, url);
  expect({ status: response.status, code: response.body.code }).toEqual({ status: 422, code: "url_not_allowed" });
  expect(redis.connections).toBe(0);
  return response.body as { detail: string };
}

beforeAll(async () => {
  redis = await startFakeRedis();
  toRedisByIp = startHostileSite({ "/": () => Response.redirect(redisUrl(), 302) });
  toRedisByName = startHostileSite({ "/": () => Response.redirect(`http://site.test:${redis.port}/`, 302) });
  linking = startHostileSite(
    {
      "/": (_request, self) =>
        new Response(
          wordpressPage(
            self.url,
            `<a href="${redisUrl("/")}">cache</a><img src="${redisUrl("/logo.png")}">
<link rel="stylesheet" href="${redisUrl("/style.css")}"><script src="${redisUrl("/app.js")}"></script>`,
          ),
          { headers: HTML },
        ),
    },
    () => Response.redirect(redisUrl("/INFO"), 302),
  );
  benign = startHostileSite({ "/": (_request, self) => new Response(wordpressPage(self.url), { headers: HTML }) });
  dns = await startDnsServer({
    "site.test": { A: [HOSTILE_HOST] },
    "compat.test": { AAAA: ["::7f00:2"] },
    "nat64.test": { AAAA: ["64:ff9b::7f00:2"] },
    "sixtofour.test": { AAAA: ["2002:7f00:2::"] },
    "rfc6145.test": { AAAA: ["::ffff:0:7f00:2"] },
  });
  const sitePorts = [toRedisByIp, toRedisByName, linking].map((site) => `${HOSTILE_HOST}:${site.port}`);
  const common = { DNS_SERVERS: dns.address, ANALYSIS_TIMEOUT_MS: "5000" };
  ported = await startTestService({ env: { ...common, TARGET_ALLOWLIST: sitePorts.join(",") } });
  // Its own database: services sharing one share its job queue (and run each other's jobs).
  plain = await startTestService({ env: { ...common, TARGET_ALLOWLIST: HOSTILE_HOST } });
  for (const service of [ported, plain]) tokens.set(service, (await service.token(undefined, "enterprise")).token);
}, 60_000);

afterAll(async () => {
  for (const site of [toRedisByIp, toRedisByName, linking, benign]) site?.stop();
  await plain?.stop();
  await ported?.stop();
  await dns?.stop();
  await redis?.stop();
});

describe("an allowlisted host is reachable on its allowlisted ports only", () => {
  test("a report of http://127.0.0.2:<redis port>/ is refused before anything connects", async () => {
    const body = await expectNotAllowed(ported, redisUrl());
    expect(body.detail).toBe(`The url cannot be analyzed: port ${redis.port} is not allowlisted for 127.0.0.2.`);
  });

  test("a name resolving to the allowlisted host is refused on another port, at connection time", async () => {
    const asked = dns.count("site.test", "A");
    const body = await expectNotAllowed(ported, `http://site.test:${redis.port}/`);
    expect(body.detail).toContain(`port ${redis.port} is not allowlisted for 127.0.0.2`);
    expect(dns.count("site.test", "A")).toBeGreaterThan(asked);
  });

  test("the same name on an allowlisted port is analyzed", async () => {
    const response = await generate(ported, `http://site.test:${linking.port}/`);
    expect(response.status).toBe(201);
    expect(redis.connections).toBe(0);
  });

  test.each([
    ["by IP literal", () => toRedisByIp],
    ["through a name", () => toRedisByName],
  ])("a homepage redirect to the Redis port (%s) is refused", async (_how, site) => {
    const body = await expectNotAllowed(ported, site().url);
    expect(body.detail).toContain(`port ${redis.port} is not allowlisted for 127.0.0.2`);
    expect(site().hits).toEqual(["GET /"]);
  });

  test("links and probe redirects to the Redis port become refused rows, never connections", async () => {
    const response = await generate(ported, linking.url);
    expect(response.status).toBe(201);
    const report = response.body as {
      status: string;
      errors: { kind: string; message: string }[];
      performance: { requests: { url: string; status: number | null; error?: string }[] };
    };
    expect(report.status).toBe("completed");
    const blocked = report.errors.filter((error) => error.kind === "blocked");
    expect(blocked.length).toBeGreaterThan(10);
    for (const error of blocked) expect(error.message).toContain(`port ${redis.port} is not allowlisted`);
    const hops = report.performance.requests.filter((row) => new URL(row.url).port === String(redis.port));
    expect(hops.length).toBeGreaterThan(0);
    for (const row of hops) expect(row).toMatchObject({ status: null, error: "blocked" });
    expect(redis.connections).toBe(0);
  });
});

describe("the Agent checks the port on every connection, without SafeClient's own check", () => {
  test("IP literals and names on a port the allowlist does not name never reach a socket", async () => {
    const policy = new TargetPolicy([`${HOSTILE_HOST}:${linking.port}`, `localhost:${linking.port}`]);
    const agent = createSafeAgent(policy);
    try {
      const ok = await request(linking.url, { dispatcher: agent });
      await ok.body.dump();
      expect(ok.statusCode).toBe(200);
      for (const url of [redisUrl(), `http://localhost:${redis.port}/`]) {
        const error = await request(url, { dispatcher: agent }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        const blocked = error instanceof TargetBlockedError ? error : (error as { cause?: unknown })?.cause;
        expect(blocked).toBeInstanceOf(TargetBlockedError);
        expect((blocked as Error).message).toContain(`port ${redis.port} is not allowlisted`);
      }
    } finally {
      await agent.close();
    }
    expect(redis.connections).toBe(0);
  });
});

describe("IPv6 forms carrying an allowlisted IPv4 address (allowlist 127.0.0.2)", () => {
  test.each([
    ["64:ff9b::7f00:2", "NAT64"],
    ["2002:7f00:2::", "6to4"],
    ["::7f00:2", "IPv4-compatible"],
    ["::ffff:0:7f00:2", "rfc6145"],
  ])("http://[%s]:<port>/ is refused as loopback (%s)", async (address) => {
    const before = benign.hits.length;
    const body = await expectNotAllowed(plain, `http://[${address}]:${benign.port}/`);
    expect(body.detail).toContain("loopback address");
    expect(benign.hits.length).toBe(before);
  });

  test.each([
    ["nat64.test", "NAT64"],
    ["sixtofour.test", "6to4"],
    ["compat.test", "IPv4-compatible, which resolvers print as ::127.0.0.2"],
    ["rfc6145.test", "rfc6145"],
  ])("a name answering AAAA %s is refused as loopback (%s)", async (name) => {
    const before = benign.hits.length;
    const body = await expectNotAllowed(plain, `http://${name}:${benign.port}/`);
    expect(body.detail).toContain("resolves to a loopback address");
    expect(benign.hits.length).toBe(before);
  });

  test("the IPv4-mapped form is the same host and is analyzed", async () => {
    const before = benign.hits.length;
    const response = await generate(plain, `http://[::ffff:127.0.0.2]:${benign.port}/`);
    expect(response.status).toBe(201);
    expect(benign.hits.slice(before)).toContain("GET /");
  });
});

test("entries without a port are warned about at start-up, once each", async () => {
  const warnings: { msg: string; entry?: unknown }[] = [];
  const quiet = () => {};
  const logger: Logger = {
    debug: quiet,
    info: quiet,
    error: quiet,
    warn: (msg, fields) => warnings.push({ msg, entry: fields?.entry }),
  };
  const config = loadConfig({ TARGET_ALLOWLIST: "127.0.0.1,localhost:8088,[::1]:8080,10.0.0.0/8,wp.internal" });
  const services = await createServices(config, logger, ported.db);
  await services.close();
  const allowlist = warnings.filter((warning) => warning.msg.startsWith("TARGET_ALLOWLIST"));
  expect(allowlist.map((warning) => warning.entry)).toEqual(["127.0.0.1", "10.0.0.0/8", "wp.internal"]);
  expect(allowlist[0]?.msg).toContain("every port");
});

test("the fake Redis never saw a connection, over the whole file", () => {
  expect(redis.connections).toBe(0);
});
