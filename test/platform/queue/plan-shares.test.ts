/**
 * Issue 30 (medium): many Free accounts together filled the global queue — 70 Free accounts ×
 * 3 reports of a dead site were all admitted (210 > QUEUE_MAX_DEPTH 200), and a paying
 * Enterprise account then got 503 overloaded. Per-plan shares (server/reports/plan-shares.ts):
 * Free accounts together get at most FREE_QUEUE_SHARE of the queue and FREE_WORKER_SHARE of
 * each worker's slots, so a paying account is admitted and served under any free flood.
 *
 * Scaled down: QUEUE_MAX_DEPTH 20 (Free share 5), WORKER_CONCURRENCY 2 (Free share 1), 8 Free
 * accounts × 3 reports of dead sites (24 > 20). No timings are asserted: the order of events is.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { freeQueueCap, freeWorkerCap } from "../../../server/reports/plan-shares.ts";
import { BACKENDS } from "../../helpers/databases.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { startBlog, type TestSite } from "../../helpers/sites.ts";
import { startDeadSite } from "./dead-sites.ts";

setDefaultTimeout(120_000);

const QUEUE_MAX_DEPTH = 20;
const WORKER_CONCURRENCY = 2;
const FREE_ACCOUNTS = 8;

for (const backend of BACKENDS) {
  describe(`per-plan shares under a flood of Free accounts (${backend})`, () => {
    let service: TestService | undefined;
    let blog: TestSite | undefined;
    const dead: { url: string; stop(): void }[] = [];
    afterAll(async () => {
      for (const site of dead) site.stop();
      blog?.stop();
      await service?.stop();
    });

    test("Free accounts together get their share of the queue and of the workers; an Enterprise report is admitted and completes", async () => {
      for (let i = 0; i < FREE_ACCOUNTS; i++) dead.push(await startDeadSite(`127.0.0.${180 + i}`));
      blog = startBlog();
      service = await startTestService({
        backend,
        env: {
          TARGET_ALLOWLIST: "127.0.0.0/24",
          QUEUE_MAX_DEPTH: String(QUEUE_MAX_DEPTH),
          WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
          ANALYSIS_TIMEOUT_MS: "8000",
          TARGET_MAX_RPS: "0",
        },
      });
      const s = service;
      const post = (token: string, url: string) =>
        s.call<{ id: string; status: string; code: string; limit?: string }>("POST", "/api/generate-report", {
          token,
          body: { url },
          headers: { prefer: "respond-async" },
        });
      const free = [];
      for (let i = 0; i < FREE_ACCOUNTS; i++) free.push(await s.token(undefined, "free"));
      const flood = await Promise.all(
        free.flatMap((account, i) => [0, 1, 2].map(() => post(account.token, dead[i]?.url as string))),
      );
      const admitted = flood.filter((answer) => answer.status === 202);
      const refused = flood.filter((answer) => answer.status === 503);
      expect(admitted).toHaveLength(freeQueueCap(QUEUE_MAX_DEPTH));
      expect(refused).toHaveLength(FREE_ACCOUNTS * 3 - freeQueueCap(QUEUE_MAX_DEPTH));
      expect(refused[0]?.body).toMatchObject({ code: "overloaded", limit: "free_queue_share" });
      expect(refused[0]?.headers.get("retry-after")).toBe("30");

      // A paying account, in the middle of the flood: admitted, and done while most of it waits.
      const enterprise = await s.token(undefined, "enterprise");
      const mine = await post(enterprise.token, blog.url);
      expect(mine.status).toBe(202);
      const freeRunningMost = { seen: 0 };
      const freeUnfinished = async () => {
        const [row] = await s.db.sql<{ unfinished: number; running: number }[]>`
          select count(*)::int as unfinished, count(*) filter (where r.status = 'running')::int as running
          from reports r join accounts a on a.id = r.account_id
          where a.plan_id = 'free' and r.status in ('queued', 'running')`;
        freeRunningMost.seen = Math.max(freeRunningMost.seen, row?.running ?? 0);
        return row?.unfinished ?? 0;
      };
      let left = 0;
      for (;;) {
        left = await freeUnfinished();
        const report = (
          await s.call<{ status: string }>("GET", `/api/report/${mine.body.id}`, { token: enterprise.token })
        ).body;
        if (report.status === "completed") break;
        expect(report.status).not.toBe("failed");
        await Bun.sleep(100);
      }
      console.log(
        `[plan shares] the Enterprise report completed with ${left} of ${freeQueueCap(QUEUE_MAX_DEPTH)} Free reports unfinished; at most ${freeRunningMost.seen} Free analyses ran at once`,
      );
      // Each dead-site analysis holds its slot to the deadline; with one Free slot, the Free
      // reports run one after the other, and the paying report does not wait for them.
      expect(left).toBeGreaterThanOrEqual(freeQueueCap(QUEUE_MAX_DEPTH) - 2);
      expect(freeRunningMost.seen).toBeLessThanOrEqual(freeWorkerCap(WORKER_CONCURRENCY));
    });
  });
}
