/**
 * MonitorService on both backends, as the API and the web pages call it: create with its
 * checks (schedule, URL by the target policy, assertions) and the plan's limit, list with
 * paging, read, change (pause and resume, a new schedule), delete, other accounts' monitors
 * unknown, and what GET /api/sites shows (forSites). The scheduler is stopped.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { getPlan } from "../../server/billing/plans.ts";
import type { MonitorCaller, MonitorService } from "../../server/monitoring/monitors/monitors.service.ts";
import { ApiProblem } from "../../server/platform/http/problem.ts";
import { siteId } from "../../server/platform/ids.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

setDefaultTimeout(60_000);

const SITE = "http://127.0.0.1:8088/";

async function problemOf(promise: Promise<unknown>): Promise<ApiProblem> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiProblem) return error;
    throw error;
  }
  throw new Error("expected a problem");
}

for (const backend of BACKENDS) {
  describe(`MonitorService (${backend})`, () => {
    let service: TestService;
    let monitors: MonitorService;
    let caller: MonitorCaller;
    let free: MonitorCaller;

    beforeAll(async () => {
      service = await startTestService({ backend });
      // Nothing runs on schedule here: the scheduler's own tests are monitor-runs.test.ts.
      await service.running.services.monitoring.scheduler.stop();
      monitors = service.running.services.monitoring.monitors;
      const { accountId } = await service.token(undefined, "business");
      caller = { accountId, planId: "business", monthlyQuota: getPlan("business").monthlyQuota };
      const other = await service.token(undefined, "free");
      free = { accountId: other.accountId, planId: "free", monthlyQuota: 3 };
    });
    afterAll(async () => {
      await service?.stop();
    });

    test("create, read, list with paging, change, pause and resume, delete", async () => {
      const now = new Date("2026-11-26T13:00:00Z");
      const created = await monitors.create(
        caller,
        { url: SITE, schedule: "daily", environment: "production", assert: "security.* : error" },
        now,
      );
      expect(created.id).toMatch(/^mon_[0-9a-z]{26}$/);
      expect(created).toMatchObject({
        url: SITE,
        environment: "production",
        schedule: "daily",
        mode: "passive",
        fail_on: "high",
        assert: "security.*:error",
        enabled: true,
        status: "active",
        last_run: null,
        last_skip: null,
      });
      const next = new Date(created.next_run_at as string).getTime();
      const slot = Date.parse("2026-11-27T00:00:00Z");
      expect(next).toBeGreaterThanOrEqual(slot);
      expect(next).toBeLessThan(slot + 15 * 60_000);
      expect(await monitors.get(caller.accountId, created.id)).toEqual(created);

      const more = [];
      for (const schedule of ["hourly", "*/30 * * * *"])
        more.push(await monitors.create(caller, { url: SITE, schedule }));
      const first = await monitors.list(caller.accountId, { limit: 2 });
      expect(first.data.map((m) => m.id)).toEqual(more.map((m) => m.id).reverse());
      const second = await monitors.list(caller.accountId, { limit: 2, before: first.next_cursor as string });
      expect(second.data.map((m) => m.id)).toEqual([created.id]);
      expect(second.next_cursor).toBeNull();

      const paused = await monitors.update(caller.accountId, created.id, { enabled: false });
      expect(paused).toMatchObject({ enabled: false, status: "paused", next_run_at: null });
      const resumed = await monitors.update(
        caller.accountId,
        created.id,
        { enabled: true, schedule: "30 6 * * *", fail_on: "medium" },
        now,
      );
      expect(resumed).toMatchObject({ status: "active", schedule: "30 6 * * *", fail_on: "medium" });
      expect(Date.parse(resumed.next_run_at as string)).toBeGreaterThanOrEqual(Date.parse("2026-11-27T06:30:00Z"));

      await monitors.delete(caller.accountId, more[0]?.id as string);
      expect((await problemOf(monitors.get(caller.accountId, more[0]?.id as string))).code).toBe("not_found");
    });

    test("checks: the schedule (naming the field), the URL by the target policy, assertions", async () => {
      const badSchedule = await problemOf(monitors.create(caller, { url: SITE, schedule: "0 6 * *" }));
      expect(badSchedule.code).toBe("invalid_request");
      expect(badSchedule.detail).toStartWith("schedule");
      expect(badSchedule.options.extensions?.errors).toEqual([
        expect.objectContaining({ location: "body", pointer: "/schedule" }),
      ]);
      expect((await problemOf(monitors.create(caller, { url: "http://10.0.0.1/", schedule: "daily" }))).code).toBe(
        "url_not_allowed",
      );
      expect((await problemOf(monitors.create(caller, { url: "not a url", schedule: "daily" }))).code).toBe(
        "invalid_url",
      );
      // What the API's schema refuses first is refused here too (the web pages call the service directly).
      const badFailOn = await problemOf(monitors.create(caller, { url: SITE, schedule: "daily", fail_on: "severe" }));
      expect(badFailOn.detail).toStartWith("fail_on");
      const badEnvironment = await problemOf(
        monitors.create(caller, { url: SITE, schedule: "daily", environment: "x".repeat(65) }),
      );
      expect(badEnvironment.detail).toStartWith("environment");
      const badAssert = await problemOf(monitors.create(caller, { url: SITE, schedule: "daily", assert: "seo: fail" }));
      expect(badAssert.code).toBe("invalid_request");
      expect(badAssert.detail).toStartWith("assert");
    });

    test("the plan's limit: Free has one monitor", async () => {
      await monitors.create(free, { url: SITE, schedule: "daily" });
      const refused = await problemOf(monitors.create(free, { url: SITE, schedule: "weekly" }));
      expect(refused.code).toBe("monitor_limit_reached");
      expect(refused.status).toBe(403);
    });

    test("another account's monitor is unknown", async () => {
      const mine = await monitors.create(caller, { url: SITE, schedule: "weekly" });
      for (const attempt of [
        () => monitors.get(free.accountId, mine.id),
        () => monitors.update(free.accountId, mine.id, { enabled: false }),
        () => monitors.delete(free.accountId, mine.id),
        () => monitors.runNow(free, mine.id),
      ])
        expect((await problemOf(attempt())).code).toBe("not_found");
      expect((await monitors.get(caller.accountId, mine.id)).enabled).toBe(true);
    });

    test("forSites: the site's monitor, the one that runs next", async () => {
      const site = siteId(caller.accountId, "127.0.0.1:8088", "production");
      const found = await monitors.forSites(caller.accountId, [
        { id: site },
        { id: siteId(caller.accountId, "x", "") },
      ]);
      expect([...found.keys()]).toEqual([site]);
      expect(found.get(site)).toMatchObject({ schedule: "30 6 * * *", paused: false, last_run_at: null });
    });
  });
}
