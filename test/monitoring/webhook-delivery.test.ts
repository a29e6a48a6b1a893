/**
 * Webhook deliveries end to end, on both backends: events emitted through the outbox reach a
 * real receiver on loopback, which verifies every signature with the `standardwebhooks`
 * package — also across a secret rotation; retries with backoff through pg-boss against a
 * receiver that fails twice; redelivery; the Slack-compatible body; only subscribed, enabled
 * webhooks get an event. Issue 30: a test is tried once; tests and redeliveries are limited per
 * webhook and account; one account's backlog to a slow endpoint does not hold another's delivery.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { MANUAL_DELIVERIES_PER_MINUTE } from "../../server/monitoring/events/event.service.ts";
import { eventReport, failedEventReport } from "../../server/monitoring/events/report-payload.ts";
import type { CreatedWebhook, Delivery, RotatedSecret } from "../../shared/monitoring-api.ts";
import type { Report } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startBlog } from "../helpers/sites.ts";
import { eventually, monitorRegressed, type Receiver, reportCompleted, startReceiver } from "./helpers.ts";

setDefaultTimeout(60_000);

const KEY = Buffer.alloc(32, 7).toString("base64");

for (const backend of BACKENDS) {
  describe(`webhook deliveries (${backend})`, () => {
    let service: TestService;
    let token: string;
    let accountId: string;

    beforeAll(async () => {
      service = await startTestService({
        backend,
        // Retries after 1 s each (the default schedule spans a day); the receivers are on loopback.
        env: { WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s", WEBHOOK_SECRET_KEY: KEY },
      });
      ({ token, accountId } = await service.token());
      // These tests follow deliveries by polling the API: no rate limit in their way.
      await service.db.sql`update accounts set rate_limit_per_minute = 100000 where id = ${accountId}`;
    });
    afterAll(async () => {
      await service?.stop();
    });

    const create = async (receiver: Receiver, body: Record<string, unknown> = {}) => {
      const response = await service.call<CreatedWebhook>("POST", "/api/webhooks", {
        token,
        body: { url: receiver.url, events: ["report.completed"], ...body },
      });
      expect(response.status).toBe(201);
      return response.body;
    };
    const delivery = (webhookId: string, deliveryId: string) =>
      service.call<Delivery>("GET", `/api/webhooks/${webhookId}/deliveries/${deliveryId}`, { token });
    const finished = (webhookId: string, deliveryId: string) =>
      eventually(`delivery ${deliveryId} to finish`, async () => {
        const { body } = await delivery(webhookId, deliveryId);
        return body.status === "pending" ? undefined : body;
      });

    test("an emitted event reaches the subscribed webhooks, signed: the receiver verifies it with standardwebhooks", async () => {
      const receiver = startReceiver();
      const other = startReceiver();
      const quiet = startReceiver();
      try {
        const hook = await create(receiver, { events: ["report.completed", "monitor.regressed"] });
        await create(other, { events: ["monitor.regressed"] });
        const disabled = await create(quiet);
        expect(
          (await service.call("PATCH", `/api/webhooks/${disabled.id}`, { token, body: { enabled: false } })).status,
        ).toBe(200);

        const data = reportCompleted();
        const emitted = await service.running.services.monitoring.events.emit(accountId, "report.completed", data);
        expect(emitted).toEqual({ id: expect.stringMatching(/^evt_/), deliveries: 1, email: "none" });

        await eventually("the delivery", () => receiver.received.length === 1);
        const [got] = receiver.received;
        if (!got) throw new Error("no delivery");
        expect(got.headers["webhook-id"]).toBe(emitted.id);
        expect(got.headers["content-type"]).toBe("application/json");
        expect(got.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
        // The receiver's own check, with the secret shown at creation.
        expect(receiver.verify(hook.secret, got)).toEqual({
          type: "report.completed",
          timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          data,
        });
        // Another secret does not verify it.
        expect(() => receiver.verify(`whsec_${Buffer.alloc(32, 1).toString("base64")}`, got)).toThrow(
          "No matching signature found",
        );
        // A tampered body does not verify.
        expect(() => receiver.verify(hook.secret, { ...got, body: got.body.replace("84", "99") })).toThrow();

        const log = await service.call<{ data: Delivery[] }>("GET", `/api/webhooks/${hook.id}/deliveries`, { token });
        expect(log.body.data).toMatchObject([
          { event_id: emitted.id, event_type: "report.completed", status: "succeeded", attempts: 1, last_status: 200 },
        ]);
        // Only the subscribed, enabled webhook got it.
        await Bun.sleep(1_500);
        expect(other.received.length).toBe(0);
        expect(quiet.received.length).toBe(0);
      } finally {
        receiver.stop();
        other.stop();
        quiet.stop();
      }
    });

    test("retries with backoff through the queue: a receiver that fails twice gets the third attempt, same webhook-id", async () => {
      const receiver = startReceiver((n) => (n <= 2 ? 503 : 204));
      try {
        const hook = await create(receiver);
        const emitted = await service.running.services.monitoring.events.emit(
          accountId,
          "report.completed",
          reportCompleted(),
        );
        const [id] = (
          await service.call<{ data: Delivery[] }>("GET", `/api/webhooks/${hook.id}/deliveries`, { token })
        ).body.data.map((item) => item.id);
        if (!id) throw new Error("no delivery row");
        // After the first failure the delivery waits for its retry, with the failure on record.
        const waiting = await eventually("the first failure", async () => {
          const { body } = await delivery(hook.id, id);
          return body.attempts === 1 && body.next_attempt_at ? body : undefined;
        });
        expect(waiting).toMatchObject({ status: "pending", last_status: 503 });
        expect(waiting.last_error).toContain("answered 503");
        const failing = await service.call<{ failing_since: string | null }>("GET", `/api/webhooks/${hook.id}`, {
          token,
        });
        expect(failing.body.failing_since).not.toBeNull();

        const done = await finished(hook.id, id);
        expect(done).toMatchObject({ status: "succeeded", attempts: 3, last_status: 204, last_error: null });
        expect(receiver.received.map((item) => item.answered)).toEqual([503, 503, 204]);
        expect(new Set(receiver.received.map((item) => item.headers["webhook-id"]))).toEqual(new Set([emitted.id]));
        for (const item of receiver.received)
          expect(receiver.verify(hook.secret, item)).toMatchObject({ type: "report.completed" });
        // A success ends the failure streak.
        const healthy = await service.call<{ failing_since: string | null }>("GET", `/api/webhooks/${hook.id}`, {
          token,
        });
        expect(healthy.body.failing_since).toBeNull();
      } finally {
        receiver.stop();
      }
    });

    test("a delivery that keeps failing is given up after the last retry; a test is tried once (issue 30)", async () => {
      const receiver = startReceiver(() => 500);
      try {
        const hook = await create(receiver);
        const emitted = await service.running.services.monitoring.events.emit(
          accountId,
          "report.completed",
          reportCompleted(),
        );
        const listed = await service.call<{ data: Delivery[] }>("GET", `/api/webhooks/${hook.id}/deliveries`, {
          token,
        });
        const id = listed.body.data.find((item) => item.event_id === emitted.id)?.id as string;
        const done = await finished(hook.id, id);
        // The first attempt and the schedule's three retries.
        expect(done).toMatchObject({ status: "failed", attempts: 4, last_status: 500, next_attempt_at: null });
        expect(receiver.received.length).toBe(4);
        // A test is not retried: its caller is looking at the log, and retried tests were a free flood.
        const sent = await service.call<Delivery>("POST", `/api/webhooks/${hook.id}/test`, { token });
        expect(sent.status).toBe(202);
        expect(await finished(hook.id, sent.body.id)).toMatchObject({
          status: "failed",
          attempts: 1,
          last_status: 500,
        });
        await Bun.sleep(2_500); // longer than the schedule's first delay
        expect(receiver.received.length).toBe(5);
      } finally {
        receiver.stop();
      }
    });

    test("tests and redeliveries are limited per webhook and per account, each minute (issue 30)", async () => {
      const receiver = startReceiver();
      const other = await service.token();
      await service.db.sql`update accounts set rate_limit_per_minute = 100000 where id = ${other.accountId}`;
      try {
        const hooks: string[] = [];
        for (let i = 0; i < 5; i++) {
          const made = await service.call<CreatedWebhook>("POST", "/api/webhooks", {
            token: other.token,
            body: { url: receiver.url, events: ["report.completed"] },
          });
          hooks.push(made.body.id);
        }
        const test = (id: string) =>
          service.call<Delivery & { code: string; limit: string }>("POST", `/api/webhooks/${id}/test`, {
            token: other.token,
          });
        const first = hooks[0] as string;
        const sent: string[] = [];
        for (let i = 0; i < MANUAL_DELIVERIES_PER_MINUTE.webhook; i++) {
          const answer = await test(first);
          expect(answer.status).toBe(202);
          sent.push(answer.body.id);
        }
        const refused = await test(first);
        expect(refused.status).toBe(429);
        expect(refused.body).toMatchObject({ code: "rate_limited", limit: "webhook_manual_deliveries" });
        const retryAfter = Number(refused.headers.get("retry-after"));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
        // A redelivery counts the same.
        const redelivered = await service.call<{ code: string }>(
          "POST",
          `/api/webhooks/${first}/deliveries/${sent[0]}/redeliver`,
          { token: other.token },
        );
        expect(redelivered.status).toBe(429);
        // The account's other webhooks, up to the account's figure.
        let accepted: number = MANUAL_DELIVERIES_PER_MINUTE.webhook;
        for (const id of hooks.slice(1))
          for (let i = 0; i < MANUAL_DELIVERIES_PER_MINUTE.webhook; i++)
            if ((await test(id)).status === 202) accepted++;
        expect(accepted).toBe(MANUAL_DELIVERIES_PER_MINUTE.account);
        const last = await test(hooks[4] as string);
        expect(last.body).toMatchObject({ code: "rate_limited" });
        // Another account is not held by this one's limit.
        const mine = await create(receiver);
        expect((await service.call("POST", `/api/webhooks/${mine.id}/test`, { token })).status).toBe(202);
      } finally {
        receiver.stop();
      }
    }, 180_000);

    // PostgreSQL only: the one thing this test cannot help measuring is the 10 s attempt
    // deadline (the other delivery must go out before the flood's first attempts time out), and
    // on PGlite's single connection, under a loaded machine, the flood's put-back attempts and
    // the other delivery's fetch queue up behind each other past it. The rule is the same code
    // on both backends.
    test.skipIf(backend === "pglite")(
      "one account's backlog to a slow endpoint does not hold another account's delivery (issue 30)",
      async () => {
        // A: 50 events to an endpoint that holds every request until the attempt's 10 s deadline.
        let held = 0;
        const slow = Bun.serve({
          port: 0,
          hostname: "127.0.0.1",
          async fetch(request) {
            await request.text();
            held++;
            await Bun.sleep(12_000);
            return new Response("late");
          },
        });
        const fast = startReceiver();
        let cleanUp = async () => {};
        try {
          const flooder = await service.token();
          await service.db.sql`update accounts set rate_limit_per_minute = 100000 where id = ${flooder.accountId}`;
          const slowHook = await service.call<CreatedWebhook>("POST", "/api/webhooks", {
            token: flooder.token,
            body: { url: `http://127.0.0.1:${slow.port}/hook`, events: ["monitor.regressed"] },
          });
          expect(slowHook.status).toBe(201);
          // Its deliveries go with it: the flood's retries do not slow the tests that follow.
          cleanUp = async () => {
            await service.call("DELETE", `/api/webhooks/${slowHook.body.id}`, { token: flooder.token });
          };
          const { events } = service.running.services.monitoring;
          // All at once (one transaction), so the workers fetch full batches of the flood.
          await service.db.sql.begin(async (tx) => {
            for (let i = 0; i < 50; i++)
              await events.emit(flooder.accountId, "monitor.regressed", monitorRegressed(), { tx });
          });
          events.wake();
          await eventually("the flood's first attempts", () => held > 0 || undefined);

          const victim = await service.token();
          await service.db.sql`update accounts set rate_limit_per_minute = 100000 where id = ${victim.accountId}`;
          const hook = await service.call<CreatedWebhook>("POST", "/api/webhooks", {
            token: victim.token,
            body: { url: fast.url, events: ["monitor.regressed"] },
          });
          await events.emit(victim.accountId, "monitor.regressed", monitorRegressed());
          await eventually("the other account's delivery", () => fast.received.length > 0 || undefined, 30_000);
          // Delivered while the flood's attempts were still waiting on the slow endpoint. Before, every
          // slot held a batch of 10 of them, and the other delivery could only be fetched once a
          // slot's whole batch had ended (10 s each): 10 or more ended first.
          const [row] = await service.db.sql<{ ended: number; pending: number }[]>`
          select count(*) filter (where d.last_error is not null or d.status <> 'pending')::int as ended,
                 count(*) filter (where d.status = 'pending')::int as pending
          from webhook_deliveries d where d.webhook_id = ${slowHook.body.id}`;
          console.log(`[webhook fairness] delivered with ${row?.pending} of the flood's 50 pending, ${held} held`);
          expect(row?.ended).toBeLessThan(10);
          expect(hook.status).toBe(201);
        } finally {
          await cleanUp();
          slow.stop(true);
          fast.stop();
        }
      },
    );

    test("secret rotation: during the overlap both secrets verify every delivery; with overlap 0 only the new one", async () => {
      const receiver = startReceiver();
      try {
        const hook = await create(receiver);
        const rotated = await service.call<RotatedSecret>("POST", `/api/webhooks/${hook.id}/rotate-secret`, { token });
        expect(rotated.status).toBe(200);
        expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        expect(rotated.body.secret).not.toBe(hook.secret);
        expect(Date.parse(rotated.body.previous_secret_expires_at ?? "") - Date.now()).toBeGreaterThan(23 * 3_600_000);

        const first = await service.call<Delivery>("POST", `/api/webhooks/${hook.id}/test`, { token });
        await finished(hook.id, first.body.id);
        const overlap = receiver.received.at(-1);
        if (!overlap) throw new Error("no delivery");
        expect(overlap.headers["webhook-signature"]?.split(" ").length).toBe(2);
        // A receiver still on the old secret, and one already on the new: both accept it.
        expect(receiver.verify(hook.secret, overlap)).toMatchObject({ type: "webhook.test" });
        expect(receiver.verify(rotated.body.secret, overlap)).toMatchObject({ type: "webhook.test" });

        const leaked = await service.call<RotatedSecret>(
          "POST",
          `/api/webhooks/${hook.id}/rotate-secret?overlap_hours=0`,
          { token },
        );
        expect(leaked.body.previous_secret_expires_at).toBeNull();
        const second = await service.call<Delivery>("POST", `/api/webhooks/${hook.id}/test`, { token });
        await finished(hook.id, second.body.id);
        const after = receiver.received.at(-1);
        if (!after) throw new Error("no delivery");
        expect(after.headers["webhook-signature"]?.split(" ").length).toBe(1);
        expect(receiver.verify(leaked.body.secret, after)).toMatchObject({ type: "webhook.test" });
        expect(() => receiver.verify(rotated.body.secret, after)).toThrow();
        expect(() => receiver.verify(hook.secret, after)).toThrow();
      } finally {
        receiver.stop();
      }
    });

    test("redelivery sends the same event again (same webhook-id) as a new delivery", async () => {
      const receiver = startReceiver();
      try {
        const hook = await create(receiver);
        const sent = await service.call<Delivery>("POST", `/api/webhooks/${hook.id}/test`, { token });
        await finished(hook.id, sent.body.id);
        const again = await service.call<Delivery>(
          "POST",
          `/api/webhooks/${hook.id}/deliveries/${sent.body.id}/redeliver`,
          { token, headers: { "idempotency-key": "redeliver-once" } },
        );
        expect(again.status).toBe(202);
        expect(again.headers.get("location")).toBe(
          `${service.url}/api/webhooks/${hook.id}/deliveries/${again.body.id}`,
        );
        expect(again.body).toMatchObject({ trigger: "redelivery", event_id: sent.body.event_id });
        expect(again.body.id).not.toBe(sent.body.id);
        // The same key again: the first answer, nothing sent twice.
        const replay = await service.call<Delivery>(
          "POST",
          `/api/webhooks/${hook.id}/deliveries/${sent.body.id}/redeliver`,
          { token, headers: { "idempotency-key": "redeliver-once" } },
        );
        expect(replay.headers.get("idempotent-replayed")).toBe("true");
        expect(replay.body.id).toBe(again.body.id);
        await finished(hook.id, again.body.id);
        await Bun.sleep(500);
        expect(receiver.received.length).toBe(2);
        const [one, two] = receiver.received;
        if (!one || !two) throw new Error("deliveries missing");
        expect(two.headers["webhook-id"]).toBe(one.headers["webhook-id"]);
        expect(two.body).toBe(one.body);
        expect(receiver.verify(hook.secret, two)).toMatchObject({ type: "webhook.test" });
      } finally {
        receiver.stop();
      }
    });

    test("the Slack-compatible body: a summary with a link, site text escaped, signed the same way", async () => {
      const receiver = startReceiver();
      try {
        const hook = await create(receiver, { events: ["monitor.regressed"], format: "slack" });
        await service.running.services.monitoring.events.emit(accountId, "monitor.regressed", monitorRegressed());
        await eventually("the delivery", () => receiver.received.length === 1);
        const [got] = receiver.received;
        if (!got) throw new Error("no delivery");
        const body = JSON.parse(got.body) as { text: string };
        expect(Object.keys(body)).toEqual(["text"]);
        expect(body.text).toContain("*Regression on https://client-a.example/ (production): 1 regression, grade D*");
        expect(body.text).toContain("XML-RPC is enabled &lt;!channel&gt; &amp; more");
        expect(body.text).not.toContain("<!channel>");
        expect(body.text).toContain("<http://127.0.0.1:3000/reports/rep_01m8bq00000000000000000001|Open in wpreport>");
        expect(receiver.verify(hook.secret, got)).toEqual(body);
      } finally {
        receiver.stop();
      }
    });

    test("report events built from a real stored report (report-payload.ts) match the schema and arrive as built", async () => {
      const blog = startBlog();
      const receiver = startReceiver();
      try {
        const made = await service.call<Report>("POST", "/api/generate-report", {
          token,
          body: { url: blog.url, metadata: { environment: "staging" } },
        });
        expect(made.status).toBe(201);
        // Subscribed only now: the report's own report.completed (emitted when it was stored) is not this test's.
        const hook = await create(receiver, { events: ["report.completed", "report.failed"] });
        const report = made.body;
        const { events } = service.running.services.monitoring;
        const completed = { report: eventReport(report, service.url), monitor_id: null };
        expect(completed.report).toEqual({
          id: report.id,
          url: blog.url,
          environment: "staging",
          status: "completed",
          grade: report.summary?.grade ?? null,
          score: report.summary?.score ?? null,
          created_at: report.created_at,
          completed_at: report.completed_at,
          // What the report did not check, beside its grade (shared/report-coverage.ts).
          incomplete: false,
          vulnerability_data: report.intel?.vulnerability_data?.status,
          vulnerabilities_unchecked: [],
          not_checked: 0,
          links: { api: `${service.url}/api/report/${report.id}`, web: `${service.url}/reports/${report.id}` },
        });
        expect(completed.report.vulnerability_data).toBeDefined();
        await events.emit(accountId, "report.completed", completed);
        const failed = {
          report: failedEventReport(report, { code: "site_unreachable", detail: "No answer." }, service.url),
          monitor_id: null,
        };
        await events.emit(accountId, "report.failed", failed);
        await eventually("both deliveries", () => receiver.received.length === 2);
        const bodies = receiver.received.map(
          (item) => receiver.verify(hook.secret, item) as { type: string; data: unknown },
        );
        expect(bodies.map((body) => body.type).sort()).toEqual(["report.completed", "report.failed"]);
        expect(bodies.find((body) => body.type === "report.completed")?.data).toEqual(completed);
        expect(bodies.find((body) => body.type === "report.failed")?.data).toEqual(failed);
      } finally {
        receiver.stop();
        blog.stop();
      }
    });

    test("emit refuses data that does not match shared/events.ts (a bug of the caller), and writes nothing", async () => {
      const { events } = service.running.services.monitoring;
      const bad = { ...reportCompleted(), monitor_id: 42 } as unknown as ReturnType<typeof reportCompleted>;
      await expect(events.emit(accountId, "report.completed", bad)).rejects.toThrow(
        "emit(report.completed): data does not match shared/events.ts at /monitor_id",
      );
      const [row] = await service.db.sql<{ n: number }[]>`
        select count(*)::int as n from events where account_id = ${accountId} and data->>'monitor_id' = '42'`;
      expect(row?.n).toBe(0);
    });

    test("emit inside the caller's transaction: a rollback leaves no event and no delivery", async () => {
      const receiver = startReceiver();
      try {
        await create(receiver);
        const { events } = service.running.services.monitoring;
        let eventId = "";
        await service.db.sql
          .begin(async (tx) => {
            eventId = (await events.emit(accountId, "report.completed", reportCompleted(), { tx })).id;
            throw new Error("the caller's change failed");
          })
          .catch(() => {});
        expect(eventId).toMatch(/^evt_/);
        const rows = await service.db.sql`select id from events where id = ${eventId}`;
        expect(rows.length).toBe(0);
        await Bun.sleep(1_500);
        expect(receiver.received.length).toBe(0);
      } finally {
        receiver.stop();
      }
    });
  });
}
