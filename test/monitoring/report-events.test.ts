/**
 * report.completed and report.failed: every report that ends emits exactly one event, written
 * in the transaction that stores it, and a subscribed webhook receives it signed — on both
 * backends, through the real API, worker and delivery worker.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { EventEnvelope } from "../../shared/events.ts";
import type { CreatedWebhook } from "../../shared/monitoring-api.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { freePort, startTestService, type TestService } from "../helpers/service.ts";
import { startBlog, startSlowSite } from "../helpers/sites.ts";
import { eventually, startReceiver } from "./helpers.ts";

setDefaultTimeout(60_000);

const KEY = Buffer.alloc(32, 9).toString("base64");

for (const backend of BACKENDS) {
  describe(`report events (${backend})`, () => {
    let service: TestService;

    beforeAll(async () => {
      service = await startTestService({ backend, env: { WEBHOOK_SECRET_KEY: KEY } });
    });
    afterAll(async () => {
      await service?.stop();
    });

    test("a completed and a failed report each reach the subscribed webhook once, signed", async () => {
      const { token, accountId } = await service.token();
      const receiver = startReceiver();
      const blog = startBlog();
      try {
        const hook = await service.call<CreatedWebhook>("POST", "/api/webhooks", {
          token,
          body: { url: receiver.url, events: ["report.completed", "report.failed"] },
        });
        expect(hook.status).toBe(201);

        const done = await service.call<{ id: string }>("POST", "/api/generate-report", {
          token,
          body: { url: blog.url, metadata: { environment: "production" } },
        });
        expect(done.status).toBe(201);
        const closedPort = await freePort();
        const failed = await service.call<{ id: string }>("POST", "/api/generate-report", {
          token,
          body: { url: `http://127.0.0.1:${closedPort}/` },
          headers: { Prefer: "respond-async" },
        });
        expect(failed.status).toBe(202);

        await eventually("both deliveries", () => receiver.received.length >= 2);
        await Bun.sleep(500); // nothing more comes
        expect(receiver.received).toHaveLength(2);
        const envelopes = receiver.received.map(
          (delivery) => receiver.verify(hook.body.secret, delivery) as EventEnvelope,
        );
        const completed = envelopes.find((envelope) => envelope.type === "report.completed");
        const failure = envelopes.find((envelope) => envelope.type === "report.failed");
        expect(completed?.data).toMatchObject({
          report: {
            id: done.body.id,
            status: "completed",
            environment: "production",
            links: { api: `${service.url}/api/report/${done.body.id}`, web: `${service.url}/reports/${done.body.id}` },
          },
          monitor_id: null,
        });
        expect(failure?.data).toMatchObject({
          report: { id: failed.body.id, status: "failed", error: { code: "site_unreachable" } },
          monitor_id: null,
        });

        // The outbox holds exactly one event per report.
        const rows = await service.db.sql<{ type: string; n: number }[]>`
          select type, count(*)::int as n from events where account_id = ${accountId} group by type order by type`;
        expect(rows.map((row) => ({ ...row }))).toEqual([
          { type: "report.completed", n: 1 },
          { type: "report.failed", n: 1 },
        ]);
      } finally {
        receiver.stop();
        blog.stop();
      }
    });

    test("a listener that throws is rolled back alone: the report is stored, charged once, its event written — by the worker and by the sweeper", async () => {
      const { token, accountId } = await service.token();
      const services = service.running.services;
      const [before] = await service.db.sql<{ rate: number | null }[]>`
        select rate_limit_per_minute as rate from accounts where id = ${accountId}`;
      const rate = before?.rate ?? null;
      let calls = 0;
      // A feature with a bug: it writes, then throws — only for this test's account.
      services.reportOutcomes.listen("broken (test)", async (tx, outcome) => {
        if (outcome.accountId !== accountId) return;
        calls++;
        await tx`update accounts set rate_limit_per_minute = 7 where id = ${accountId}`;
        throw new Error("a bug in a listener");
      });
      const blog = startBlog();
      const slow = startSlowSite(20_000);
      try {
        const done = await service.call<{ id: string; status: string }>("POST", "/api/generate-report", {
          token,
          body: { url: blog.url },
        });
        expect(done.status).toBe(201);
        expect(done.body.status).toBe("completed");
        expect(calls).toBe(1);
        const usage = await service.call<{ used: number; in_progress: number }>("GET", "/api/usage", { token });
        expect(usage.body).toMatchObject({ used: 1, in_progress: 0 });

        // An analysis that outlived every deadline: the sweeper fails it, listeners and all.
        const stuck = await service.call<{ id: string }>("POST", "/api/generate-report", {
          token,
          body: { url: slow.url },
          headers: { Prefer: "respond-async" },
        });
        expect(stuck.status).toBe(202);
        await service.db
          .sql`update reports set created_at = now() - interval '1 day', stale_at = now() - interval '1 hour' where id = ${stuck.body.id}`;
        // (The service's own periodic sweep may get there first: either way it is swept once.)
        await services.reports.sweepStale();
        const [swept] = await service.db.sql<{ status: string }[]>`
          select status from reports where id = ${stuck.body.id}`;
        expect(swept?.status).toBe("failed");
        expect(calls).toBe(2);

        // The other listeners' writes are there; the broken one's write is not.
        const rows = await service.db.sql<{ type: string; report: string }[]>`
          select type, data->'report'->>'id' as report from events where account_id = ${accountId} order by created_at`;
        expect(rows.map((row) => ({ ...row }))).toEqual([
          { type: "report.completed", report: done.body.id },
          { type: "report.failed", report: stuck.body.id },
        ]);
        const [after] = await service.db.sql<{ rate: number | null }[]>`
          select rate_limit_per_minute as rate from accounts where id = ${accountId}`;
        expect(after?.rate ?? null).toBe(rate);
      } finally {
        blog.stop();
        slow.stop();
      }
    });
  });
}
