/**
 * A monitor's run that regresses on the real WordPress fixture emits monitor.regressed, judged
 * by the Action's rule: the first run has no baseline and passes (its gate verdict recorded);
 * then the site regresses the way a bad deploy does — a wp-content/debug.log appears, as in
 * test/action/action-e2e.test.ts — and the next run fails the gate against the first, and the
 * subscribed webhook receives the event, its signature verified with `standardwebhooks`. The
 * debug log is removed afterwards. And, as in the Action, a run with no grade where its baseline
 * had one — the site answered 503 — counts as a regression.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { EventEnvelope } from "../../shared/events.ts";
import type { CreatedWebhook } from "../../shared/monitoring-api.ts";
import type { Monitor } from "../../shared/monitors-api.ts";
import type { Report } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { blogFeed, blogHomepage, startSite } from "../helpers/sites.ts";
import { eventually, type Receiver, startReceiver } from "./helpers.ts";

setDefaultTimeout(90_000);

const CONTENT_DIR = "/var/lib/wordpress/wp-content";
const DEBUG_LOG = path.join(CONTENT_DIR, "debug.log");
const canChangeSite = HAS_WORDPRESS && existsSync(CONTENT_DIR);
const KEY = Buffer.alloc(32, 5).toString("base64");

for (const backend of BACKENDS) {
  describe.skipIf(!canChangeSite)(`a monitor's regression on the fixture (${backend})`, () => {
    let service: TestService;
    let receiver: Receiver;

    beforeAll(async () => {
      rmSync(DEBUG_LOG, { force: true });
      receiver = startReceiver();
      service = await startTestService({ backend, env: { WEBHOOK_SECRET_KEY: KEY } });
      await service.running.services.monitoring.scheduler.stop();
    });
    afterAll(async () => {
      rmSync(DEBUG_LOG, { force: true });
      receiver?.stop();
      await service?.stop();
    });

    test("debug.log exposed → the next run fails the gate against the last passing one → monitor.regressed, signed", async () => {
      const { token, accountId } = await service.token(undefined, "business");
      const hook = await service.call<CreatedWebhook>("POST", "/api/webhooks", {
        token,
        body: { url: receiver.url, events: ["monitor.regressed"] },
      });
      expect(hook.status).toBe(201);
      const environment = `monitor-${backend}-${Date.now()}`;
      const monitor = (
        await service.call<Monitor>("POST", "/api/monitors", {
          token,
          body: { url: WORDPRESS_URL, schedule: "weekly", environment },
        })
      ).body;
      const runToCompletion = async () => {
        const ran = await service.call<Report>("POST", `/api/monitors/${monitor.id}/run`, { token });
        expect(ran.status).toBe(202);
        return eventually(
          "the run's report",
          async () => {
            const report = (await service.call<Report>("GET", `/api/report/${ran.body.id}`, { token })).body;
            return report.status === "completed" || report.status === "failed" ? report : undefined;
          },
          60_000,
        );
      };

      const first = await runToCompletion();
      expect(first.status).toBe("completed");
      const afterFirst = (await service.call<Monitor>("GET", `/api/monitors/${monitor.id}`, { token })).body;
      expect(afterFirst.last_run).toMatchObject({ report_id: first.id, status: "completed", gate: "pass" });

      writeFileSync(
        DEBUG_LOG,
        "[26-Nov-2026 10:00:00 UTC] PHP Warning:  Undefined variable $post in /var/lib/wordpress/wp-content/themes/x/functions.php on line 12\n",
      );
      const second = await runToCompletion();
      rmSync(DEBUG_LOG, { force: true });
      expect(second.status).toBe("completed");
      expect(second.checks.find((check) => check.id === "security.debug_log_exposed")?.status).toBe("fail");

      await eventually("the monitor.regressed delivery", () => receiver.received.length >= 1);
      const envelope = receiver.verify(
        hook.body.secret,
        receiver.received[0] as never,
      ) as EventEnvelope<"monitor.regressed">;
      expect(envelope.type).toBe("monitor.regressed");
      const { data } = envelope;
      expect(data.monitor).toEqual({ id: monitor.id, url: WORDPRESS_URL, environment, schedule: "weekly" });
      expect(data.report).toMatchObject({ id: second.id, status: "completed", environment });
      expect(data.baseline).toMatchObject({ id: first.id, rule: "last-passing" });
      expect(data.baseline.reason).toContain(first.id);
      expect(data.verdict.result).toBe("fail");
      expect(data.regressions.map((change) => change.id)).toContain("security.debug_log_exposed");

      const afterSecond = (await service.call<Monitor>("GET", `/api/monitors/${monitor.id}`, { token })).body;
      expect(afterSecond.last_run).toMatchObject({ report_id: second.id, gate: "fail" });
      // One event: the first run passed, and nothing else regressed.
      const [count] = await service.db.sql<{ n: number }[]>`
        select count(*)::int as n from events where account_id = ${accountId} and type = 'monitor.regressed'`;
      expect(count?.n).toBe(1);
    });
  });
}

for (const backend of BACKENDS) {
  describe(`a monitor's run with no grade (${backend})`, () => {
    let service: TestService;

    beforeAll(async () => {
      service = await startTestService({ backend });
      await service.running.services.monitoring.scheduler.stop();
    });
    afterAll(async () => {
      await service?.stop();
    });

    test("the site answers 503: an ungraded report after a graded baseline emits monitor.regressed", async () => {
      let down = false;
      let origin = "";
      const site = startSite({
        "/": () =>
          down
            ? new Response("Service Unavailable", { status: 503 })
            : new Response(blogHomepage(origin), { headers: { "content-type": "text/html; charset=UTF-8" } }),
        "/feed/": () => new Response(blogFeed, { headers: { "content-type": "application/rss+xml" } }),
      });
      origin = site.url.replace(/\/$/, "");
      try {
        const { token, accountId } = await service.token(undefined, "business");
        const monitor = (
          await service.call<Monitor>("POST", "/api/monitors", { token, body: { url: site.url, schedule: "daily" } })
        ).body;
        const run = async () => {
          const ran = await service.call<Report>("POST", `/api/monitors/${monitor.id}/run`, { token });
          return eventually("the run's report", async () => {
            const report = (await service.call<Report>("GET", `/api/report/${ran.body.id}`, { token })).body;
            return report.status === "completed" ? report : undefined;
          });
        };
        const graded = await run();
        expect(graded.summary?.grade).toMatch(/^[A-F]$/);
        down = true;
        const ungraded = await run();
        expect(ungraded.summary?.grade ?? null).toBeNull();

        const events = await service.db.sql<{ data: EventEnvelope<"monitor.regressed">["data"] }[]>`
          select data from events where account_id = ${accountId} and type = 'monitor.regressed'`;
        expect(events).toHaveLength(1);
        const data = events[0]?.data;
        expect(data?.report.id).toBe(ungraded.id);
        expect(data?.report.grade).toBeNull();
        expect(data?.baseline.id).toBe(graded.id);
        expect(data?.verdict.result).toBe("fail");
        expect(data?.verdict.reasons.join(" ")).toContain("no grade");
      } finally {
        site.stop();
      }
    });
  });
}
