/**
 * The monitors' scheduler on both backends, driven tick by tick (scheduler.tick(now) with the
 * clock moved to the monitor's next run): a due monitor makes one run — a queued report with
 * its monitor_id, charged like any — and its next_run_at moves to the next slot plus its jitter;
 * ticks racing for the same slot (on PostgreSQL, on separate connections) make exactly one run;
 * a run refused because the quota is used up is skipped: monitor.skipped with the problem code,
 * no report, no credit, and the monitor shows it; a paused monitor does not run.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { jitterMs } from "../../server/monitoring/monitors/schedule.ts";
import { MonitorScheduler } from "../../server/monitoring/monitors/scheduler.ts";
import { quotaPeriod } from "../../server/platform/quota-period.ts";
import type { EventData } from "../../shared/events.ts";
import type { Monitor } from "../../shared/monitors-api.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { WORDPRESS_URL } from "../helpers/env.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

setDefaultTimeout(60_000);

for (const backend of BACKENDS) {
  describe(`monitor runs (${backend})`, () => {
    let service: TestService;

    beforeAll(async () => {
      service = await startTestService({ backend });
      // The test moves the clock itself: no tick of the process's own.
      await service.running.services.monitoring.scheduler.stop();
    });
    afterAll(async () => {
      await service?.stop();
    });
    // Each test moves the clock to its own monitors' runs: earlier tests' monitors must not be due then.
    beforeEach(async () => {
      await service.db.sql`delete from monitors`;
    });

    const scheduler = () => service.running.services.monitoring.scheduler;
    const createMonitor = async (token: string, body: Record<string, unknown>) => {
      const response = await service.call<Monitor>("POST", "/api/monitors", { token, body });
      expect(response.status).toBe(201);
      return response.body;
    };
    const runs = (monitorId: string) =>
      service.db.sql<{ scheduled_for: Date; status: string; report_id: string | null; reason: string | null }[]>`
        select scheduled_for, status, report_id, reason from monitor_runs where monitor_id = ${monitorId}
        order by scheduled_for`;

    test("a due monitor runs once: a report with its monitor_id; next_run_at moves to the next slot + jitter", async () => {
      const { token, accountId } = await service.token(undefined, "business");
      const monitor = await createMonitor(token, { url: WORDPRESS_URL, schedule: "*/5 * * * *", environment: "runs" });
      const due = new Date(monitor.next_run_at as string);
      // Not yet due a second before.
      expect((await scheduler().tick(new Date(due.getTime() - 1000))).claimed).toBe(0);
      const ticked = await scheduler().tick(due);
      expect(ticked).toEqual({ claimed: 1, queued: 1, skipped: 0 });
      // Again at the same time: the slot is taken, nothing more.
      expect((await scheduler().tick(due)).claimed).toBe(0);

      const [run] = await runs(monitor.id);
      const slot = new Date(Math.floor(due.getTime() / 300_000) * 300_000);
      expect(run).toMatchObject({ scheduled_for: slot, status: "queued", reason: null });
      const [report] = await service.db.sql<{ monitor_id: string; status: string; metadata: unknown }[]>`
        select monitor_id, status, metadata from reports where id = ${run?.report_id ?? ""} and account_id = ${accountId}`;
      expect(report).toMatchObject({ monitor_id: monitor.id, metadata: { environment: "runs" } });

      const after = (await service.call<Monitor>("GET", `/api/monitors/${monitor.id}`, { token })).body;
      const nextSlot = slot.getTime() + 300_000;
      expect(Date.parse(after.next_run_at as string)).toBe(nextSlot + jitterMs(monitor.id, 300_000));
      expect(after.last_run).toMatchObject({ report_id: run?.report_id, trigger: "schedule" });
    });

    test("ticks racing for one slot make exactly one run", async () => {
      const { token } = await service.token(undefined, "business");
      const monitors = [];
      for (let i = 0; i < 5; i++)
        monitors.push(
          await createMonitor(token, { url: WORDPRESS_URL, schedule: "0 * * * *", environment: `race-${i}` }),
        );
      const due = new Date(Math.max(...monitors.map((monitor) => Date.parse(monitor.next_run_at as string))));
      // Separate schedulers, as in separate processes: on PostgreSQL each claim has its own connection.
      const { services } = service.running;
      const schedulers = [0, 1, 2].map(
        () =>
          new MonitorScheduler({
            sql: services.db.sql,
            reports: services.reports,
            events: services.monitoring.events,
            logger: services.logger,
          }),
      );
      const results = await Promise.all(schedulers.map((one) => one.tick(due)));
      expect(results.reduce((sum, result) => sum + result.claimed, 0)).toBe(5);
      for (const monitor of monitors) {
        const made = await runs(monitor.id);
        expect(made).toHaveLength(1);
        expect(made[0]?.status).toBe("queued");
      }
    });

    test("quota used up: the run is skipped, monitor.skipped says why, no report, no credit", async () => {
      const { token, accountId } = await service.token(undefined, "free");
      await service.db.sql`
        insert into usage_periods (account_id, period_start, used, reserved)
        values (${accountId}, ${quotaPeriod().key}, 3, 0)
        on conflict (account_id, period_start) do update set used = 3`;
      const monitor = await createMonitor(token, { url: WORDPRESS_URL, schedule: "daily" });
      const due = new Date(monitor.next_run_at as string);
      expect(await scheduler().tick(due)).toEqual({ claimed: 1, queued: 0, skipped: 1 });

      const [run] = await runs(monitor.id);
      expect(run).toMatchObject({ status: "skipped", report_id: null, reason: "quota_exhausted" });
      const events = await service.db.sql<{ type: string; data: EventData<"monitor.skipped"> }[]>`
        select type, data from events where account_id = ${accountId} order by created_at`;
      expect(events).toHaveLength(1);
      expect(events[0]?.type).toBe("monitor.skipped");
      expect(events[0]?.data).toEqual({
        monitor: { id: monitor.id, url: WORDPRESS_URL, environment: null, schedule: "daily" },
        scheduled_for: new Date(Math.floor(due.getTime() / 86_400_000) * 86_400_000).toISOString(),
        reason: "quota_exhausted",
        detail: expect.stringContaining("quota"),
      });
      const reports = await service.db.sql`select id from reports where account_id = ${accountId}`;
      expect(reports).toHaveLength(0);
      const usage = await service.call<{ used: number; in_progress: number }>("GET", "/api/usage", { token });
      expect(usage.body).toMatchObject({ used: 3, in_progress: 0 });

      const shown = (await service.call<Monitor>("GET", `/api/monitors/${monitor.id}`, { token })).body;
      expect(shown.last_run).toBeNull();
      expect(shown.last_skip).toMatchObject({
        reason: "quota_exhausted",
        scheduled_for: events[0]?.data.scheduled_for,
      });
      // The next run is tomorrow's: a skipped run is not retried.
      expect(Date.parse(shown.next_run_at as string)).toBeGreaterThan(due.getTime() + 86_400_000 - 15 * 60_000);

      // Tomorrow's run is skipped for the same reason: recorded, but not told again (one alert
      // per streak, not one a run until the month ends).
      expect(await scheduler().tick(new Date(shown.next_run_at as string))).toEqual({
        claimed: 1,
        queued: 0,
        skipped: 1,
      });
      expect((await runs(monitor.id)).map((row) => row.status)).toEqual(["skipped", "skipped"]);
      const after = await service.db.sql`select id from events where account_id = ${accountId}`;
      expect(after).toHaveLength(1);
    });

    test("a paused monitor does not run, however late", async () => {
      const { token } = await service.token(undefined, "business");
      const monitor = await createMonitor(token, { url: WORDPRESS_URL, schedule: "hourly" });
      await service.call("PATCH", `/api/monitors/${monitor.id}`, { token, body: { enabled: false } });
      const late = new Date(Date.parse(monitor.next_run_at as string) + 3 * 3_600_000);
      await scheduler().tick(late);
      expect(await runs(monitor.id)).toHaveLength(0);
    });
  });
}
