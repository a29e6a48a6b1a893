/**
 * The queue's limits, observed from outside: the queue-depth cap (503 overloaded, nothing
 * charged), analyses per account by plan, analyses per target host across the service
 * (counted at the target itself), the queue position of a waiting report, and a synchronous
 * call that outlives SYNC_WAIT_MS answering 202.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { blogHomepage, startSite, type TestSite } from "../../helpers/sites.ts";

setDefaultTimeout(60_000);

/**
 * A site whose robots.txt (asked exactly once by every analysis; the homepage is not, since
 * its TTFB samples are asked too, two at once) takes `delayMs`; it records how many of those
 * overlap at most — the analyses of it running at once.
 */
function startCountingSite(delayMs: number): TestSite & { maxConcurrent(): number; analyses(): number } {
  let current = 0;
  let max = 0;
  let total = 0;
  const site = startSite({
    "/": (request) =>
      new Response(blogHomepage(new URL(request.url).origin), { headers: { "content-type": "text/html" } }),
    "/robots.txt": async () => {
      const page = new Response("User-agent: *\nDisallow:\n", { headers: { "content-type": "text/plain" } });
      current++;
      total++;
      max = Math.max(max, current);
      try {
        await Bun.sleep(delayMs);
        return page;
      } finally {
        current--;
      }
    },
  });
  return Object.assign(site, { maxConcurrent: () => max, analyses: () => total });
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await Bun.sleep(100);
  }
}

describe("queue limits", () => {
  const services: TestService[] = [];
  const sites: TestSite[] = [];
  afterAll(async () => {
    for (const site of sites) site.stop();
    await Promise.all(services.map((service) => service.stop()));
  });
  const start = async (env: Record<string, string>) => {
    const service = await startTestService({ env });
    services.push(service);
    return service;
  };
  const async = (service: TestService, token: string, url: string) =>
    service.call("POST", "/api/generate-report", { token, body: { url }, headers: { prefer: "respond-async" } });
  const report = (service: TestService, token: string, id: string) =>
    service.call("GET", `/api/report/${id}`, { token });
  /** A token whose account's rate limit does not get in the way of polling. */
  const tokenFor = async (service: TestService, plan: "free" | "enterprise") => {
    const created = await service.token(undefined, plan);
    await service.running.services.accounts.setRateLimitOverride(created.accountId, 100_000);
    return created;
  };

  test("past QUEUE_MAX_DEPTH a report is refused with 503 overloaded and Retry-After, and nothing is charged", async () => {
    const site = startCountingSite(1_500);
    sites.push(site);
    const service = await start({ QUEUE_MAX_DEPTH: "2", WORKER_CONCURRENCY: "1" });
    const { token } = await tokenFor(service, "enterprise");
    expect((await async(service, token, site.url)).status).toBe(202);
    expect((await async(service, token, site.url)).status).toBe(202);
    const refused = await async(service, token, site.url);
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe("overloaded");
    expect(refused.headers.get("retry-after")).toBe("30");
    const sync = await service.call("POST", "/api/generate-report", { token, body: { url: site.url } });
    expect(sync.status).toBe(503);
    const usage = (await service.call("GET", "/api/usage", { token })).body;
    expect(usage).toMatchObject({ used: 0, in_progress: 2 });
    expect(((await service.call("GET", "/api/reports", { token })).body.data as unknown[]).length).toBe(2);
    // Once the queue drains, reports are accepted again.
    await waitUntil(async () => (await service.call("GET", "/api/usage", { token })).body.in_progress === 0);
    expect((await async(service, token, site.url)).status).toBe(202);
  });

  test("one account runs at most its plan's analyses at once (Free: 1); the rest wait their turn", async () => {
    const site = startCountingSite(600);
    sites.push(site);
    const service = await start({ WORKER_CONCURRENCY: "8", HOST_CONCURRENCY: "10", TARGET_MAX_RPS: "0" });
    const { token } = await tokenFor(service, "free");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await async(service, token, site.url)).body.id as string);
    await waitUntil(async () => {
      const states = await Promise.all(ids.map(async (id) => (await report(service, token, id)).body.status));
      return states.every((status) => status === "completed");
    });
    expect(site.analyses()).toBeGreaterThanOrEqual(3);
    expect(site.maxConcurrent()).toBe(1);
    expect((await service.call("GET", "/api/usage", { token })).body).toMatchObject({ used: 3, in_progress: 0 });
  });

  test("politeness: 20 concurrent reports of one host from 5 accounts never run more than HOST_CONCURRENCY at once", async () => {
    const site = startCountingSite(300);
    sites.push(site);
    const service = await start({ WORKER_CONCURRENCY: "10", HOST_CONCURRENCY: "2" });
    const tokens = await Promise.all(Array.from({ length: 5 }, () => tokenFor(service, "enterprise")));
    const accepted = await Promise.all(
      Array.from({ length: 20 }, (_, i) => async(service, tokens[i % 5]?.token as string, site.url)),
    );
    expect(accepted.map((response) => response.status)).toEqual(Array(20).fill(202));
    await waitUntil(async () => {
      const states = await Promise.all(
        accepted.map(
          async (response, i) =>
            (await report(service, tokens[i % 5]?.token as string, response.body.id as string)).body.status,
        ),
      );
      return states.every((status) => status === "completed");
    }, 60_000);
    expect(site.analyses()).toBeGreaterThanOrEqual(20);
    expect(site.maxConcurrent()).toBe(2);
  });

  test("a queued report shows its place in the queue; a sync call past SYNC_WAIT_MS answers 202 and finishes later", async () => {
    const site = startCountingSite(1_500);
    sites.push(site);
    const service = await start({ WORKER_CONCURRENCY: "1", SYNC_WAIT_MS: "1000" });
    const { token } = await tokenFor(service, "enterprise");
    const first = await async(service, token, site.url);
    const second = await async(service, token, site.url);
    await waitUntil(async () => (await report(service, token, first.body.id as string)).body.status === "running");
    const waiting = await report(service, token, second.body.id as string);
    expect(waiting.body.status).toBe("queued");
    expect(waiting.headers.get("queue-position")).toBe("1");
    expect((await report(service, token, first.body.id as string)).headers.get("queue-position")).toBeNull();

    // A lab report queued earlier waits on the lab queue: it is not ahead of this one. (A row with
    // no job, so no worker takes it; an ordinary one in its place is counted.)
    const position = async () => (await report(service, token, second.body.id as string)).headers.get("queue-position");
    const { sql } = service.db;
    const [owner] = await sql<
      { account_id: string }[]
    >`select account_id from reports where id = ${second.body.id as string}`;
    await sql`
      insert into reports (id, account_id, url, site_key, status, body, created_at, lab, stale_at)
      values ('rep_queuedlabreport00000', ${owner?.account_id as string}, ${site.url}, 'lab-queue-test', 'queued',
              '{}'::jsonb, now() - interval '1 minute', true, now() + interval '1 hour')`;
    expect(await position()).toBe("1");
    await sql`update reports set lab = false where id = 'rep_queuedlabreport00000'`;
    expect(await position()).toBe("2");
    await sql`delete from reports where id = 'rep_queuedlabreport00000'`;

    const started = performance.now();
    const sync = await service.call("POST", "/api/generate-report", { token, body: { url: site.url } });
    expect(sync.status).toBe(202);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(sync.headers.get("location")).toBe(`${service.url}/api/report/${sync.body.id}`);
    await waitUntil(async () => (await report(service, token, sync.body.id as string)).body.status === "completed");
  });
});
