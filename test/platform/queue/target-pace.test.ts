/**
 * Issue 30: in aggressive mode one site saw 164 requests in its busiest second, where the
 * documented worst single second was 2 × TARGET_MAX_RPS = 120: each analysis paced itself at
 * TARGET_MAX_RPS / HOST_CONCURRENCY with a bucket of one second's worth, so the analyses at once
 * on one address added up, and doubled at second boundaries.
 *
 * Now (server/reports/pace-shares.ts, server/analyzer/fetch/pace-window.ts) the shares of a key's
 * slots add up to TARGET_MAX_RPS, and each analysis's window is counted as the site sees it.
 * Here several aggressive and passive analyses of one server at once — three names and its bare
 * IP, through a real DNS server, from several accounts — run through the real service, and the
 * site counts every request it gets: in no one-second window, wherever it begins, does the
 * address, or any one host, see more than TARGET_MAX_RPS. A count, not a timing: the bound
 * holds at the site whatever the machine's load, since each request is counted between its
 * sending and its answer.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Report } from "../../../shared/report.ts";
import { type DnsServer, startDnsServer } from "../../analyzer/hostile/dns-server.ts";
import { type CountingSite, startCountingSite } from "../../helpers/counting-site.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";

setDefaultTimeout(120_000);

const ADDRESS = "127.0.0.211";
const TARGET_MAX_RPS = 20;

let service: TestService | undefined;
let dns: DnsServer | undefined;
let site: CountingSite | undefined;
afterAll(async () => {
  await site?.stop();
  await dns?.stop();
  await service?.stop();
});

test("aggressive and passive analyses of one server at once: never more than TARGET_MAX_RPS requests in any one second", async () => {
  // A WordPress-looking blog in a process of its own, noting when each request came and for
  // which host (counting-site.ts).
  site = await startCountingSite(ADDRESS);
  const names = ["one.pace.test", "two.pace.test", "three.pace.test"];
  dns = await startDnsServer(Object.fromEntries(names.map((name) => [name, { A: [ADDRESS] }])));
  service = await startTestService({
    env: {
      TARGET_ALLOWLIST: `${ADDRESS}:${site.port}`,
      DNS_SERVERS: dns.address,
      WORKER_CONCURRENCY: "8",
      // The defaults' shape: two analyses of a host at once, four of an address.
      HOST_CONCURRENCY: "2",
      TARGET_ADDRESS_CONCURRENCY: "4",
      TARGET_MAX_RPS: String(TARGET_MAX_RPS),
      TARGET_AGGRESSIVE_PER_HOUR: "100000",
      AGGRESSIVE_MAX_REQUESTS: "40",
      AGGRESSIVE_TIME_BUDGET_MS: "4000",
      ANALYSIS_TIMEOUT_MS: "30000",
      QUEUE_WAIT_MS: "120000",
    },
  });
  const s = service;
  const p = site.port;
  const asked = [
    { url: `http://one.pace.test:${p}/`, mode: "aggressive" },
    { url: `http://one.pace.test:${p}/`, mode: "passive" },
    { url: `http://two.pace.test:${p}/`, mode: "aggressive" },
    { url: `http://two.pace.test:${p}/`, mode: "passive" },
    { url: `http://three.pace.test:${p}/`, mode: "aggressive" },
    { url: `http://${ADDRESS}:${p}/`, mode: "passive" },
  ];
  const accounts = await Promise.all(asked.map(() => s.token(undefined, "enterprise")));
  const posted = await Promise.all(
    asked.map((body, i) =>
      s.call("POST", "/api/generate-report", {
        token: accounts[i]?.token,
        body,
        headers: { prefer: "respond-async" },
      }),
    ),
  );
  expect(posted.map((answer) => answer.status)).toEqual(Array(asked.length).fill(202));
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

  const seen = await site.seen();
  const times = seen.arrivals.map((arrival) => arrival.at);
  const perHost = Object.fromEntries(
    [...new Set(seen.arrivals.map((arrival) => arrival.host))].map((host) => [host, seen.peakIn(1000, host)]),
  );
  const spanS = (Math.max(...times) - Math.min(...times)) / 1000;
  console.log(
    `[target pace] ${asked.length} analyses (${asked.filter((a) => a.mode === "aggressive").length} aggressive) of one address: busiest second ${seen.peakIn(1000)} requests (limit ${TARGET_MAX_RPS}); per host ${JSON.stringify(perHost)}; ${times.length} requests over ${spanS.toFixed(1)} s; paces ${reports.map((report) => report.target_limits?.requests_per_second).join(", ")}`,
  );
  expect(reports.map((report) => report.status)).toEqual(Array(asked.length).fill("completed"));
  // Enough requests that an unshared pace would have broken the limit.
  expect(times.length).toBeGreaterThan(3 * TARGET_MAX_RPS);
  expect(seen.peakIn(1000)).toBeLessThanOrEqual(TARGET_MAX_RPS);
  for (const busiest of Object.values(perHost)) expect(busiest).toBeLessThanOrEqual(TARGET_MAX_RPS);
  // Each report says the pace it kept: its slots' share, never more than the target's.
  for (const report of reports) {
    const pace = report.target_limits?.requests_per_second ?? 0;
    expect(pace).toBeGreaterThanOrEqual(1);
    expect(pace).toBeLessThanOrEqual(TARGET_MAX_RPS / 2);
  }
  expect(reports.some((report) => report.target_limits?.hit.includes("requests_per_second"))).toBe(true);
});
