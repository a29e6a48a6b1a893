/**
 * Issue 21, row 4: one site spelled 10 ways — case, trailing dot, `www.`, subdomains, another
 * name and the bare IP, all resolving to one address through a real DNS server (DNS_SERVERS)
 * — by 10 Enterprise accounts at once, in aggressive mode. Counted at the site itself:
 * - analyses at once never exceed TARGET_ADDRESS_CONCURRENCY (the address key joins every
 *   spelling; the host key alone would let each name have HOST_CONCURRENCY);
 * - requests in any one second never exceed TARGET_MAX_RPS, all spellings together (the
 *   shares of the address's slots add up to it: server/reports/pace-shares.ts);
 * - the enumeration requests granted in all stay within TARGET_AGGRESSIVE_PER_HOUR;
 * - every report says which limits it hit (target_limits, report schema 1.4.0).
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Slots } from "../../../server/reports/slots.ts";
import { canonicalHost } from "../../../server/reports/target-limits.ts";
import type { Report } from "../../../shared/report.ts";
import { type DnsServer, startDnsServer } from "../../analyzer/hostile/dns-server.ts";
import { type CountingSite, startCountingSite } from "../../helpers/counting-site.ts";
import { createTestDatabase } from "../../helpers/databases.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";

setDefaultTimeout(120_000);

const ADDRESS = "127.0.0.210";
const HOST_CONCURRENCY = 2;
/** All names on one address together: more than one host may have, fewer than the ten spellings. */
const ADDRESS_CONCURRENCY = 3;
const TARGET_MAX_RPS = 20;
const AGGRESSIVE_PER_HOUR = 150;
const AGGRESSIVE_MAX_REQUESTS = 60;

test("canonical host: case, trailing dots and www. fold; subdomains and IP forms do not", () => {
  expect(["Example.COM", "example.com.", "WWW.example.com..", "www.Example.com"].map(canonicalHost)).toEqual(
    Array(4).fill("example.com"),
  );
  expect(canonicalHost("shop.example.com")).toBe("shop.example.com");
  expect(canonicalHost("[::ffff:127.0.0.1]")).toBe("127.0.0.1");
  expect(canonicalHost("[2001:DB8::1]")).toBe("2001:db8::1");
});

describe("per-target limits: one site spelled 10 ways", () => {
  let service: TestService | undefined;
  let dns: DnsServer | undefined;
  let site: CountingSite | undefined;
  afterAll(async () => {
    await site?.stop();
    await dns?.stop();
    await service?.stop();
  });

  test("slots: a host key holds HOST_CONCURRENCY analyses, an address key TARGET_ADDRESS_CONCURRENCY, all keys or none", async () => {
    const db = await createTestDatabase("pglite");
    try {
      const slots = new Slots(db.sql, 60_000);
      const limitOf = (key: string) => (key.startsWith("addr:") ? 3 : 2);
      const keys = (host: string) => [`host:${host}`, "addr:10.0.0.1"];
      const claim = (report: string, host: string) =>
        slots.claimTargets(keys(host), limitOf, { reportId: report, accountId: `acc_${report}`, since: new Date() });
      // Two analyses of one host; a third of it waits on the host key.
      expect(await claim("rep_1", "a.test")).toBe(true);
      expect(await claim("rep_2", "a.test")).toBe(true);
      expect(await claim("rep_3", "a.test")).toBe(false);
      // Another site on the same address (shared hosting) runs beside them, up to the address's 3.
      expect(await claim("rep_4", "b.test")).toBe(true);
      expect(await claim("rep_5", "c.test")).toBe(false);
      // The waiting claims hold nothing. Freeing rep_1's slots hands them to the older of the
      // two waiting jobs, rep_3, even though rep_5 is the one asking: it finds them granted.
      await slots.releaseAll(keys("a.test"), "rep_1");
      expect(await claim("rep_5", "c.test")).toBe(false);
      expect(await claim("rep_3", "a.test")).toBe(true);
      const held = await db.sql<{ report_id: string }[]>`select distinct report_id from host_slots order by report_id`;
      expect(held.map((row) => row.report_id)).toEqual(["rep_2", "rep_3", "rep_4"]);
    } finally {
      await db.destroy();
    }
  });

  test("never more than TARGET_ADDRESS_CONCURRENCY analyses or the pace's requests at once, and every report says what it hit", async () => {
    // A WordPress-looking blog in a process of its own (counting-site.ts); robots.txt, held
    // 500 ms, counts analyses at once.
    site = await startCountingSite(ADDRESS, { robotsHoldMs: 500 });
    const names = ["site.test", "www.site.test", "shop.site.test", "blog.site.test", "another-name.test"];
    dns = await startDnsServer(Object.fromEntries(names.map((name) => [name, { A: [ADDRESS] }])));
    service = await startTestService({
      env: {
        TARGET_ALLOWLIST: `${ADDRESS}:${site.port}`,
        DNS_SERVERS: dns.address,
        WORKER_CONCURRENCY: "10",
        HOST_CONCURRENCY: String(HOST_CONCURRENCY),
        TARGET_ADDRESS_CONCURRENCY: String(ADDRESS_CONCURRENCY),
        TARGET_MAX_RPS: String(TARGET_MAX_RPS),
        TARGET_AGGRESSIVE_PER_HOUR: String(AGGRESSIVE_PER_HOUR),
        AGGRESSIVE_MAX_REQUESTS: String(AGGRESSIVE_MAX_REQUESTS),
        ANALYSIS_TIMEOUT_MS: "30000",
        QUEUE_WAIT_MS: "120000",
      },
    });
    const s = service;
    const p = site.port;
    const spellings = [
      `http://site.test:${p}/`,
      `http://SITE.TEST:${p}/`,
      `http://site.test.:${p}/`,
      `http://www.site.test:${p}/`,
      `http://WWW.Site.Test.:${p}/`,
      `http://shop.site.test:${p}/`,
      `http://blog.site.test:${p}/`,
      `http://another-name.test:${p}/`,
      `http://${ADDRESS}:${p}/`,
      `http://Site.Test:${p}/?utm_source=ten`,
    ];
    const accounts = await Promise.all(spellings.map(() => s.token(undefined, "enterprise")));
    for (const { accountId } of accounts) await s.running.services.accounts.setRateLimitOverride(accountId, 100_000);
    const posted = await Promise.all(
      spellings.map((url, i) =>
        s.call("POST", "/api/generate-report", {
          token: accounts[i]?.token,
          body: { url, mode: "aggressive" },
          headers: { prefer: "respond-async" },
        }),
      ),
    );
    expect(posted.map((answer) => answer.status)).toEqual(Array(10).fill(202));

    const reports: Report[] = [];
    for (const [i, answer] of posted.entries()) {
      for (;;) {
        const report = (await s.call("GET", `/api/report/${answer.body.id}`, { token: accounts[i]?.token }))
          .body as Report;
        if (report.status === "completed" || report.status === "failed") {
          reports.push(report);
          break;
        }
        await Bun.sleep(200);
      }
    }
    // The slots' shares of the address add up to TARGET_MAX_RPS, and each analysis counts its
    // window as the site sees it (pace-window.ts): no one-second window, wherever it begins,
    // holds more (before the limits: 410 requests in one second; before the shares, 57).
    const seen = await site.seen();
    console.log(
      `[target limits] 10 spellings: ${seen.maxAtOnce} analyses at once (limit ${ADDRESS_CONCURRENCY}), peak ${seen.peakIn(1000)} requests in 1 s (limit ${TARGET_MAX_RPS}), ${seen.arrivals.length} requests in all`,
    );
    expect(reports.map((report) => report.status)).toEqual(Array(10).fill("completed"));
    expect(seen.maxAtOnce).toBeLessThanOrEqual(ADDRESS_CONCURRENCY);
    expect(seen.peakIn(1000)).toBeLessThanOrEqual(TARGET_MAX_RPS);

    // Every report says what it ran into; the spellings of one name share one canonical host.
    const limits = reports.map((report) => report.target_limits);
    // Each kept its slots' share: half the rate on the address's first slot, a third of the
    // other half on the others (pace-shares.ts).
    for (const entry of limits) {
      expect([TARGET_MAX_RPS / 2, TARGET_MAX_RPS / 2 / (ADDRESS_CONCURRENCY - 1)]).toContain(
        entry?.requests_per_second as number,
      );
    }
    expect(limits.slice(0, 5).map((entry) => entry?.host)).toEqual(Array(5).fill("site.test"));
    expect(limits[8]?.host).toBe(ADDRESS);
    expect(limits.some((entry) => entry?.hit.includes("analyses_at_once"))).toBe(true);
    expect(limits.some((entry) => entry?.hit.includes("requests_per_second"))).toBe(true);
    // The hour's aggressive budget is shared by every spelling and account.
    const granted = limits.reduce((sum, entry) => sum + (entry?.aggressive_requests ?? 0), 0);
    expect(granted).toBeLessThanOrEqual(AGGRESSIVE_PER_HOUR);
    expect(limits.some((entry) => entry?.hit.includes("aggressive_requests_per_hour"))).toBe(true);
    for (const report of reports) {
      const used = report.enumeration?.requests ?? 0;
      expect(used).toBeLessThanOrEqual(report.target_limits?.aggressive_requests ?? 0);
    }
  });
});
