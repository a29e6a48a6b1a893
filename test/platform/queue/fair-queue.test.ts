/**
 * Issue 21, row 1: one Enterprise account floods async reports of sites that never answer
 * (loopback listeners that accept the connection and never reply), spread over 20 targets so
 * no per-target limit slows the flood. Another account's report must still be admitted and
 * finish while the flood is still queued — not behind it:
 * - the flooder gets at most its plan's queued reports (Enterprise: 40), then 429
 *   `rate_limited` with `limit: "queued_reports"`, and never fills the service's queue
 *   (QUEUE_MAX_DEPTH, 200): the other account is not refused with 503;
 * - the other account's report goes before the flooder's 2nd…40th (fair priority) and is
 *   completed while most of the flood is unfinished;
 * - once the flood's dead sites have failed the plan's number of times in a minute
 *   (Enterprise: 20), the flooder's next report is refused (`limit: "unreachable_per_minute"`).
 * No timings are asserted: the order of events is.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { getPlan } from "../../../server/billing/plans.ts";
import { HAS_POSTGRES } from "../../helpers/env.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { startBlog, type TestSite } from "../../helpers/sites.ts";
import { startDeadSite } from "./dead-sites.ts";

setDefaultTimeout(120_000);

const DEAD_TARGETS = 20;
const FLOOD = 60;
const ENTERPRISE = getPlan("enterprise");

describe("fair queues: an Enterprise flood of dead sites", () => {
  let service: TestService | undefined;
  let blog: TestSite | undefined;
  const dead: { url: string; stop(): void }[] = [];
  afterAll(async () => {
    for (const site of dead) site.stop();
    blog?.stop();
    await service?.stop();
  });

  test("the flood is capped per account, another account's report finishes before it, and dead sites are limited per minute", async () => {
    for (let i = 0; i < DEAD_TARGETS; i++) dead.push(await startDeadSite(`127.0.0.${150 + i}`));
    blog = startBlog();
    service = await startTestService({
      backend: HAS_POSTGRES ? "postgres" : "pglite",
      env: {
        TARGET_ALLOWLIST: "127.0.0.0/24",
        WORKER_CONCURRENCY: "4",
        ANALYSIS_TIMEOUT_MS: "3000",
        TARGET_MAX_RPS: "0",
      },
    });
    const s = service;
    const attacker = await s.token(undefined, "enterprise");
    const victim = await s.token(undefined, "starter");
    for (const { accountId } of [attacker, victim])
      await s.running.services.accounts.setRateLimitOverride(accountId, 100_000);
    const post = (token: string, url: string) =>
      s.call("POST", "/api/generate-report", { token, body: { url }, headers: { prefer: "respond-async" } });

    // The flood: 60 reports of dead sites, sent together.
    const flood = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) => post(attacker.token, dead[i % DEAD_TARGETS]?.url as string)),
    );
    const accepted = flood.filter((answer) => answer.status === 202);
    const refused = flood.filter((answer) => answer.status === 429);
    expect(accepted).toHaveLength(ENTERPRISE.maxQueued);
    expect(refused).toHaveLength(FLOOD - ENTERPRISE.maxQueued);
    expect(refused[0]?.body).toMatchObject({ code: "rate_limited", limit: "queued_reports" });
    expect(Number(refused[0]?.headers.get("retry-after"))).toBeGreaterThan(0);
    // Nothing was charged for the refusals.
    expect((await s.call("GET", "/api/usage", { token: attacker.token })).body).toMatchObject({
      used: 0,
      in_progress: ENTERPRISE.maxQueued,
    });

    // Another account, in the middle of the flood: admitted, and done before most of the flood.
    const mine = await post(victim.token, blog.url);
    expect(mine.status).toBe(202);
    const unfinished = async () =>
      (
        await s.db.sql<{ n: number }[]>`
          select count(*)::int as n from reports
          where account_id = ${attacker.accountId} and status in ('queued', 'running')`
      )[0]?.n ?? 0;
    let floodLeft = 0;
    for (;;) {
      const report = (await s.call("GET", `/api/report/${mine.body.id}`, { token: victim.token })).body;
      if (report.status === "completed") {
        floodLeft = await unfinished();
        break;
      }
      expect(report.status).not.toBe("failed");
      await Bun.sleep(100);
    }
    console.log(
      `[fair queue] the other account's report completed with ${floodLeft} of the flood's ${ENTERPRISE.maxQueued} unfinished`,
    );
    expect(floodLeft).toBeGreaterThan(ENTERPRISE.maxQueued / 2);

    // The dead sites fail one by one (not charged); past the plan's number in a minute, the
    // flooder's next report waits.
    while (
      ((
        await s.db.sql<{ n: number }[]>`
          select count(*)::int as n from unreachable_failures where account_id = ${attacker.accountId}`
      )[0]?.n ?? 0) < ENTERPRISE.unreachablePerMinute
    )
      await Bun.sleep(200);
    const more = await post(attacker.token, dead[0]?.url as string);
    expect(more.status).toBe(429);
    expect(more.body).toMatchObject({ code: "rate_limited", limit: "unreachable_per_minute" });
    const retryAfter = Number(more.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The other account is not held by the flooder's limit.
    expect((await post(victim.token, blog.url)).status).toBe(202);
    expect((await s.call("GET", "/api/usage", { token: attacker.token })).body.used).toBe(0);
  });
});
