/**
 * SSRF: every way we know of to point the analyzer at something it must not reach, sent to
 * the real POST /api/generate-report. A trap server listens on 127.0.0.1 and [::1] on the
 * port the URLs name; it must never see a request.
 *
 * Three services share one database:
 *  - `strict`: empty allowlist, system resolver — the production default — for URL forms;
 *  - `resolving`: empty allowlist, DNS_SERVERS = a tiny hostile DNS server (dns-server.ts)
 *    — for names that resolve to private addresses;
 *  - `relay`: allowlist 127.0.0.2 (a loopback address standing in for "a public site we may
 *    reach"; all of 127/8 is loopback on Linux, so 127.0.0.1 stays forbidden) and the name
 *    `localhost`, DNS_SERVERS as above — for redirects from an allowed site, DNS rebinding,
 *    and proof that DNS_SERVERS replaces the system resolver.
 *
 * Expected outcomes: `url_not_allowed` wherever the target is (or resolves to) a forbidden
 * address or the URL carries credentials; `site_unreachable` only where the host is a name
 * that does not resolve at all (nothing to connect to); `invalid_url` where the URL parser
 * itself refuses the form. Each row says why.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseDnsServers } from "../../../server/analyzer/fetch/dns-servers.ts";
import { ConfigError, loadConfig } from "../../../server/start/config.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { type DnsServer, startDnsServer } from "./dns-server.ts";
import { type HostileSite, HTML, startHostileSite, startTrap, type Trap, wordpressPage } from "./servers.ts";

type Expected = "url_not_allowed" | "site_unreachable" | "invalid_url";

let trap: Trap;
let dns: DnsServer;
let strict: TestService;
let resolving: TestService;
let relay: TestService;
const tokens = new Map<TestService, string>();
const sites: HostileSite[] = [];

/** `P` in a URL stands for the trap's port. */
const withPort = (url: string) => url.replaceAll(":P", `:${trap.port}`);

async function generate(service: TestService, url: string) {
  const token = tokens.get(service) as string;
  return service.call("POST", "/api/generate-report", { token, body: { url } });
}

async function expectRefused(service: TestService, url: string, expected: Expected) {
  const before = trap.hits.length;
  const response = await generate(service, url);
  expect(response.headers.get("content-type") ?? "").toStartWith("application/problem+json");
  expect({ status: response.status, code: response.body.code }).toEqual({ status: 422, code: expected });
  expect(trap.hits.slice(before)).toEqual([]);
  return response;
}

beforeAll(async () => {
  trap = startTrap();
  dns = await startDnsServer({
    "evil.test": { A: ["127.0.0.1"] },
    "metadata.test": { A: ["169.254.169.254"] },
    "metadata.google.internal": { A: ["169.254.169.254"] },
    "instance-data.ec2.internal": { A: ["169.254.169.254"] },
    "db.corp.test": { A: ["10.1.2.3"] },
    "cgnat.test": { A: ["100.100.100.200"] },
    "zero.test": { A: ["0.0.0.0"] },
    "mixed.test": { A: ["93.184.216.34", "10.0.0.5"] },
    "mixed-family.test": { A: ["93.184.216.34"], AAAA: ["::1"] },
    "v6.test": { AAAA: ["::1"] },
    "mapped.test": { AAAA: ["::ffff:127.0.0.1"] },
    "nat64.test": { AAAA: ["64:ff9b::a9fe:a9fe"] },
    "ula.test": { AAAA: ["fd00:ec2::254"] },
    "cname.test": { CNAME: "evil.test" },
    "127.0.0.1.nip.test": { A: ["127.0.0.1"] },
    "xn--vil-9la.test": { A: ["127.0.0.1"] }, // évil.test
    "servfail.test": { rcode: "SERVFAIL" },
    // Public first, then private: see the rebinding test.
    // The first question is the per-target limits' (reports/target-limits.ts: they count a target
    // under its addresses), the second the first connection's.
    "rebind.test": { A: (nth) => (nth <= 2 ? ["127.0.0.2"] : ["127.0.0.1"]) },
  });
  strict = await startTestService({ env: { TARGET_ALLOWLIST: "", ANALYSIS_TIMEOUT_MS: "5000" } });
  // Each its own database: services sharing one share its job queue, and any of their workers
  // may run any job — instances of one deployment must be configured alike.
  resolving = await startTestService({
    env: { TARGET_ALLOWLIST: "", DNS_SERVERS: dns.address, ANALYSIS_TIMEOUT_MS: "5000" },
  });
  relay = await startTestService({
    env: { TARGET_ALLOWLIST: "127.0.0.2,localhost", DNS_SERVERS: dns.address, ANALYSIS_TIMEOUT_MS: "5000" },
  });
  for (const service of [strict, resolving, relay]) {
    tokens.set(service, (await service.token(undefined, "enterprise")).token);
  }
}, 60_000);

afterAll(async () => {
  for (const site of sites) site.stop();
  await relay?.stop();
  await resolving?.stop();
  await strict?.stop();
  await dns?.stop();
  trap?.stop();
});

// [url ("P" = trap port), expected, why]
const URL_FORMS: [string, Expected, string][] = [
  ["http://127.0.0.1:P/", "url_not_allowed", "loopback"],
  ["https://127.0.0.1:P/", "url_not_allowed", "loopback over https"],
  ["http://2130706433:P/", "url_not_allowed", "decimal 127.0.0.1: refused as an unusual numeric form"],
  ["http://017700000001:P/", "url_not_allowed", "octal single number = 127.0.0.1"],
  ["http://0x7f000001:P/", "url_not_allowed", "hex single number = 127.0.0.1"],
  ["http://0177.0.0.1:P/", "url_not_allowed", "octal dotted = 127.0.0.1"],
  ["http://0x7f.0x0.0x0.0x1:P/", "url_not_allowed", "hex dotted = 127.0.0.1"],
  ["http://127.1:P/", "url_not_allowed", "short a.d form = 127.0.0.1"],
  ["http://127.0.1:P/", "url_not_allowed", "short a.b.d form = 127.0.0.1"],
  ["http://127.000.000.001:P/", "url_not_allowed", "zero-padded (octal) = 127.0.0.1"],
  ["http://0300.0250.0.1/", "url_not_allowed", "octal 192.168.0.1"],
  ["http://[::ffff:127.0.0.1]:P/", "url_not_allowed", "IPv4-mapped IPv6, dotted: the embedded IPv4 decides"],
  ["http://[::ffff:7f00:1]:P/", "url_not_allowed", "IPv4-mapped IPv6, hex"],
  ["http://[0:0:0:0:0:ffff:127.0.0.1]:P/", "url_not_allowed", "IPv4-mapped IPv6, long form"],
  ["http://[::127.0.0.1]:P/", "url_not_allowed", "IPv4-compatible IPv6 (deprecated form)"],
  ["http://[::ffff:169.254.169.254]/", "url_not_allowed", "IPv4-mapped cloud metadata"],
  ["http://[::]:P/", "url_not_allowed", "IPv6 unspecified (connects to this host)"],
  ["http://[::1]:P/", "url_not_allowed", "IPv6 loopback"],
  ["http://[0000:0000::0001]:P/", "url_not_allowed", "IPv6 loopback, padded"],
  ["http://0.0.0.0:P/", "url_not_allowed", "IPv4 unspecified (Linux connects it to loopback)"],
  ["http://0:P/", "url_not_allowed", "0 = 0.0.0.0, unusual numeric form"],
  [
    "http://example.com@127.0.0.1:P/",
    "url_not_allowed",
    "userinfo: the host is 127.0.0.1 (and credentials are refused)",
  ],
  ["http://127.0.0.1:P#@example.com/", "url_not_allowed", "the fragment hides nothing: the host is 127.0.0.1"],
  ["http://127.0.0.1%2f@example.com/", "url_not_allowed", "host example.com with user '127.0.0.1%2f': credentials"],
  [
    "http://127.0.0.1:P\\@example.com/",
    "url_not_allowed",
    "backslash is a path separator in http URLs: host 127.0.0.1",
  ],
  ["http://127。0。0。1:P/", "url_not_allowed", "ideographic full stops map to dots (IDNA): 127.0.0.1"],
  ["http://127｡0｡0｡1:P/", "url_not_allowed", "halfwidth ideographic full stops: 127.0.0.1"],
  ["http://１２７.０.０.１:P/", "url_not_allowed", "fullwidth digits: 127.0.0.1"],
  ["http://①②⑦.⓪.⓪.①:P/", "url_not_allowed", "enclosed alphanumerics: 127.0.0.1"],
  ["http://%31%32%37.0.0.1:P/", "url_not_allowed", "percent-encoded host: 127.0.0.1"],
  ["http://127.0.0.1.:P/", "url_not_allowed", "trailing-dot IPv4: unusual form of 127.0.0.1"],
  ["http://localhost:P/", "url_not_allowed", "single-label name"],
  ["http://LOCALHOST.:P/", "url_not_allowed", "single-label name with a trailing dot (absolute name)"],
  ["http://localhost%2e:P/", "url_not_allowed", "percent-encoded trailing dot"],
  ["http://metadata/computeMetadata/v1/", "url_not_allowed", "GCP metadata short name (single label)"],
  ["http://instance-data/latest/meta-data/", "url_not_allowed", "EC2 metadata short name (single label)"],
  ["http://169.254.169.254/latest/meta-data/", "url_not_allowed", "AWS/GCP/Azure/OCI metadata (link-local)"],
  ["http://[fd00:ec2::254]/latest/meta-data/", "url_not_allowed", "AWS IPv6 metadata (unique local)"],
  ["http://100.100.100.200/latest/meta-data/", "url_not_allowed", "Alibaba Cloud metadata (carrier-grade NAT range)"],
  ["http://[64:ff9b::7f00:1]:P/", "url_not_allowed", "NAT64 of 127.0.0.1"],
  ["http://[64:ff9b::a9fe:a9fe]/", "url_not_allowed", "NAT64 of 169.254.169.254"],
  ["http://[2002:7f00:1::]:P/", "url_not_allowed", "6to4 of 127.0.0.1"],
  ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "url_not_allowed", "Teredo tunnel"],
  ["http://10.0.0.1/", "url_not_allowed", "private 10/8"],
  ["http://172.16.0.1/", "url_not_allowed", "private 172.16/12"],
  ["http://192.168.0.1/", "url_not_allowed", "private 192.168/16"],
  ["http://[fe80::1]/", "url_not_allowed", "IPv6 link-local"],
  ["http://224.0.0.1/", "url_not_allowed", "multicast"],
  ["http://255.255.255.255/", "url_not_allowed", "broadcast"],
  ["http://[fe80::1%25lo]/", "invalid_url", "zone ids are not part of URLs: the parser refuses the form"],
  ["http://0x7g.0.0.1/", "invalid_url", "ends in a number but is no IPv4: the parser refuses it"],
  ["http://127.0.0.1.invalid:P/", "site_unreachable", "a name, not an address; .invalid never resolves"],
];

describe("URL forms (empty allowlist, system resolver)", () => {
  test.each(URL_FORMS)("%s → %s (%s)", async (url, expected) => {
    const response = await expectRefused(strict, withPort(url), expected);
    if (expected === "site_unreachable") expect(response.body.reason).toBe("dns");
  });
});

// [host, expected, why] — answers come from the test's DNS server (DNS_SERVERS).
const DNS_NAMES: [string, Expected, string][] = [
  ["evil.test:P", "url_not_allowed", "A 127.0.0.1"],
  ["EVIL.TEST.:P", "url_not_allowed", "same name, upper case, absolute (trailing dot)"],
  ["evil。test:P", "url_not_allowed", "ideographic full stop in a name: evil.test"],
  ["évil.test:P", "url_not_allowed", "IDN: asked as xn--vil-9la.test, A 127.0.0.1"],
  ["cname.test:P", "url_not_allowed", "CNAME to evil.test: the final address decides"],
  ["127.0.0.1.nip.test:P", "url_not_allowed", "wildcard-DNS style name for 127.0.0.1"],
  ["metadata.test", "url_not_allowed", "A 169.254.169.254"],
  ["metadata.google.internal", "url_not_allowed", "what GCP's resolver answers: 169.254.169.254"],
  ["instance-data.ec2.internal", "url_not_allowed", "EC2 metadata name: 169.254.169.254"],
  ["db.corp.test", "url_not_allowed", "internal name: A 10.1.2.3"],
  ["cgnat.test", "url_not_allowed", "A 100.100.100.200 (Alibaba metadata)"],
  ["zero.test:P", "url_not_allowed", "A 0.0.0.0"],
  ["mixed.test", "url_not_allowed", "one public and one private A: one forbidden answer taints the name"],
  ["mixed-family.test:P", "url_not_allowed", "public A but AAAA ::1: both families are checked"],
  ["v6.test:P", "url_not_allowed", "AAAA ::1"],
  ["mapped.test:P", "url_not_allowed", "AAAA ::ffff:127.0.0.1"],
  ["nat64.test", "url_not_allowed", "AAAA 64:ff9b::a9fe:a9fe (NAT64 of metadata)"],
  ["ula.test", "url_not_allowed", "AAAA fd00:ec2::254"],
  ["nxdomain.test:P", "site_unreachable", "NXDOMAIN: nothing to connect to"],
  ["servfail.test:P", "site_unreachable", "SERVFAIL: nothing to connect to"],
];

describe("DNS names resolving to forbidden addresses (empty allowlist, DNS_SERVERS)", () => {
  test.each(DNS_NAMES)("http://%s/ → %s (%s)", async (host, expected) => {
    const asked = dns.questions.length;
    const response = await expectRefused(resolving, withPort(`http://${host}/`), expected);
    // The refusal came from resolving the name (inside the connection's lookup), not from a guess.
    expect(dns.questions.length).toBeGreaterThan(asked);
    if (expected === "url_not_allowed") expect(response.body.detail).toContain("resolves to a");
    else expect(response.body.reason).toBe("dns");
  });
});

describe("DNS_SERVERS replaces the system resolver", () => {
  test("an allowlisted name the system resolver knows (localhost) is asked of DNS_SERVERS only", async () => {
    // The relay service allowlists the name "localhost": with the system resolver it would
    // resolve through /etc/hosts to 127.0.0.1 and reach the trap. With DNS_SERVERS the test
    // DNS server is asked, knows no "localhost", and the site is simply unreachable.
    const asked = dns.count("localhost");
    const response = await expectRefused(relay, withPort("http://localhost:P/"), "site_unreachable");
    expect(response.body.reason).toBe("dns");
    expect(dns.count("localhost")).toBeGreaterThan(asked);
  });
});

// Redirect targets from an allowed site (relay service); "P" = trap port.
const REDIRECT_TARGETS: string[] = [
  "http://127.0.0.1:P/",
  "http://2130706433:P/",
  "http://[::1]:P/",
  "http://[::ffff:127.0.0.1]:P/",
  "http://0.0.0.0:P/",
  "http://127%E3%80%820%E3%80%820%E3%80%821:P/", // 127。0。0。1, percent-encoded in Location
  "http://169.254.169.254/latest/meta-data/",
  "http://[fd00:ec2::254]/latest/meta-data/",
  "http://100.100.100.200/latest/meta-data/",
  "http://[64:ff9b::7f00:1]:P/",
  "http://[2002:7f00:1::]:P/",
  "http://10.0.0.1/",
  "http://evil.test:P/",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://mixed.test/",
  "http://v6.test:P/",
];

describe("redirects from an allowed site (allowlist 127.0.0.2)", () => {
  test.each(REDIRECT_TARGETS)("homepage redirect to %s → url_not_allowed", async (target) => {
    const site = startHostileSite({
      "/": () => new Response(null, { status: 302, headers: { location: withPort(target) } }),
    });
    sites.push(site);
    const response = await expectRefused(relay, site.url, "url_not_allowed");
    expect(response.body.detail).toContain("not allowed");
    expect(site.hits).toEqual(["GET /"]);
  });

  test.each(REDIRECT_TARGETS)("probe redirects to %s are skipped without a request", async (target) => {
    const location = withPort(target);
    const site = startHostileSite(
      { "/": (_request, self) => new Response(wordpressPage(self.url), { headers: HTML }) },
      () => new Response(null, { status: 302, headers: { location } }),
    );
    sites.push(site);
    const before = trap.hits.length;
    const response = await generate(relay, site.url);
    expect(response.status).toBe(201);
    const report = response.body as {
      status: string;
      errors: { kind: string; url?: string }[];
      performance: { requests: { url: string; status: number | null; error?: string }[] };
    };
    expect(report.status).toBe("completed");
    expect(trap.hits.slice(before)).toEqual([]);
    // Every probe followed the redirect, was refused, and became an errors[] entry.
    const blocked = report.errors.filter((error) => error.kind === "blocked");
    expect(blocked.length).toBeGreaterThan(10);
    // The forbidden hop appears only as a refused row: no status, error "blocked".
    const forbiddenHost = new URL(location).host;
    const hops = report.performance.requests.filter((row) => new URL(row.url).host === forbiddenHost);
    expect(hops.length).toBeGreaterThan(0);
    for (const row of hops) expect(row).toMatchObject({ status: null, error: "blocked" });
  });
});

describe("DNS rebinding (allowlist 127.0.0.2, DNS_SERVERS)", () => {
  test("a name answering an allowed address first and a forbidden one next never reaches the forbidden one", async () => {
    // rebind.test answers 127.0.0.2 (allowed: plays the public address) to its first A
    // question and 127.0.0.1 (forbidden) to every later one, with TTL 0. The site listens on
    // 127.0.0.2 and the trap on 127.0.0.1, on the same port.
    //
    // What this proves, given the lookup hook (safe-agent.ts): there is no "check" resolution
    // separate from the "connect" resolution. Each new connection resolves the name once,
    // inside net.connect's `lookup`; the policy checks every answer of that resolution; the
    // socket connects to an address from that same answer. So the first connection goes to
    // 127.0.0.2 (checked, allowed) and every later connection that resolved 127.0.0.1 is
    // refused before any socket exists: the trap sees nothing, although the name did
    // "rebind" (the DNS server was asked again and answered 127.0.0.1).
    const site = startHostileSite(
      { "/": (_request, self) => new Response(wordpressPage(self.url), { headers: HTML }) },
      undefined,
      trap.port,
    );
    sites.push(site);
    const before = dns.count("rebind.test", "A");
    const response = await generate(relay, `http://rebind.test:${trap.port}/`);
    expect(response.status).toBe(201);
    expect(site.hits[0]).toBe("GET /");
    expect(dns.count("rebind.test", "A") - before).toBeGreaterThan(1);
    const errors = (response.body as { errors: { kind: string; message: string }[] }).errors;
    expect(errors.some((error) => error.kind === "blocked" && error.message.includes("loopback"))).toBe(true);
    expect(trap.hits).toEqual([]);
  });
});

test("the trap never saw a request, over the whole file", () => {
  expect(trap.hits).toEqual([]);
});

describe("DNS_SERVERS configuration", () => {
  test("IP[:port] entries are normalised; anything else is a start-up error", () => {
    expect(
      loadConfig({ DNS_SERVERS: " 1.1.1.1, 8.8.8.8:53 ,[2606:4700:4700::1111]:53,::1" }).reports.dnsServers,
    ).toEqual(["1.1.1.1", "8.8.8.8:53", "[2606:4700:4700::1111]:53", "::1"]);
    expect(loadConfig({}).reports.dnsServers).toEqual([]);
    expect(() => loadConfig({ DNS_SERVERS: "dns.google" })).toThrow(ConfigError);
    expect(
      parseDnsServers(["1.1.1", "0x7f.0.0.1", "1.1.1.1:0", "[1.1.1.1]:53", "1.1.1.1:70000"]).problems,
    ).toHaveLength(5);
  });
});
