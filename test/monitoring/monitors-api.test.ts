/**
 * The monitor routes as an API client sees them, on both backends: create (201, Location,
 * next_run_at), read, list with paging and Link, change (pause, resume), delete; a bad
 * schedule is a 400 problem naming the field; the URL is checked as generate-report checks it;
 * the plan's limit; run now → 202 with the report's Location, the report being the monitor's,
 * and GET /api/sites showing the site's monitor;
 * another account's monitor is 404. The scheduler is stopped: scheduled runs are
 * monitor-runs.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Monitor, MonitorList } from "../../shared/monitors-api.ts";
import type { Report } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { WORDPRESS_URL } from "../helpers/env.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

setDefaultTimeout(60_000);

type Problem = { code?: string; detail?: string; errors?: { pointer: string }[] };

for (const backend of BACKENDS) {
  describe(`/api/monitors (${backend})`, () => {
    let service: TestService;
    let token: string;
    let other: string;

    beforeAll(async () => {
      service = await startTestService({ backend });
      await service.running.services.monitoring.scheduler.stop();
      ({ token } = await service.token(undefined, "starter"));
      ({ token: other } = await service.token(undefined, "free"));
    });
    afterAll(async () => {
      await service?.stop();
    });

    const create = (body: unknown, as = token, headers: Record<string, string> = {}) =>
      service.call<Monitor & Problem>("POST", "/api/monitors", { token: as, body, headers });

    test("create → 201 with Location and next_run_at; read, change, pause, resume, delete", async () => {
      const created = await create({ url: WORDPRESS_URL, schedule: "daily", environment: "production" });
      expect(created.status).toBe(201);
      const monitor = created.body;
      expect(monitor.id).toMatch(/^mon_[0-9a-z]{26}$/);
      expect(created.headers.get("location")).toBe(`${service.url}/api/monitors/${monitor.id}`);
      expect(monitor).toEqual({
        id: monitor.id,
        url: WORDPRESS_URL,
        environment: "production",
        schedule: "daily",
        mode: "passive",
        lab: null,
        fail_on: "high",
        assert: "",
        tls: "verify",
        tls_ca: null,
        enabled: true,
        status: "active",
        next_run_at: expect.any(String),
        last_run: null,
        last_skip: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      // Midnight UTC plus this monitor's jitter (at most 15 minutes).
      const next = new Date(monitor.next_run_at as string);
      expect(next.getUTCHours()).toBe(0);
      expect(next.getUTCMinutes()).toBeLessThan(15);
      expect(next.getTime()).toBeGreaterThan(Date.now());

      const read = await service.call<Monitor>("GET", `/api/monitors/${monitor.id}`, { token });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(monitor);

      const paused = await service.call<Monitor>("PATCH", `/api/monitors/${monitor.id}`, {
        token,
        body: { enabled: false, assert: "security.*: error", fail_on: "critical" },
      });
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({ status: "paused", next_run_at: null, assert: "security.*:error" });
      const resumed = await service.call<Monitor>("PATCH", `/api/monitors/${monitor.id}`, {
        token,
        body: { enabled: true, schedule: "*/10 * * * *" },
      });
      expect(resumed.body).toMatchObject({ status: "active", schedule: "*/10 * * * *", fail_on: "critical" });
      expect(Date.parse(resumed.body.next_run_at as string) - Date.now()).toBeLessThan(11 * 60_000);

      const deleted = await service.call("DELETE", `/api/monitors/${monitor.id}`, { token });
      expect(deleted.status).toBe(204);
      expect((await service.call("GET", `/api/monitors/${monitor.id}`, { token })).status).toBe(404);
    });

    test("a bad schedule is a 400 problem naming the field; bad fields and URLs as elsewhere", async () => {
      const bad = await create({ url: WORDPRESS_URL, schedule: "every day at six" });
      expect(bad.status).toBe(400);
      expect(bad.headers.get("content-type")).toContain("application/problem+json");
      expect(bad.body.code).toBe("invalid_request");
      expect(bad.body.detail).toStartWith("schedule");
      expect(bad.body.errors?.map((error) => error.pointer)).toEqual(["/schedule"]);
      const sixFields = await create({ url: WORDPRESS_URL, schedule: "0 0 6 * * *" });
      expect(sixFields.status).toBe(400);
      expect(sixFields.body.detail).toContain("5 fields");

      const badAssert = await create({ url: WORDPRESS_URL, schedule: "daily", assert: "security: error" });
      expect(badAssert.status).toBe(400);
      expect(badAssert.body.errors?.map((error) => error.pointer)).toEqual(["/assert"]);
      const badFailOn = await create({ url: WORDPRESS_URL, schedule: "daily", fail_on: "severe" });
      expect(badFailOn.status).toBe(400);
      const unknown = await create({ url: WORDPRESS_URL, schedule: "daily", every: "day" });
      expect(unknown.status).toBe(400);

      // As POST /api/generate-report would answer.
      const notAllowed = await create({ url: "http://169.254.169.254/", schedule: "daily" });
      expect(notAllowed.status).toBe(422);
      expect(notAllowed.body.code).toBe("url_not_allowed");
      const invalid = await create({ url: "example", schedule: "daily" });
      expect(invalid.status).toBe(422);
      expect(invalid.body.code).toBe("invalid_url");
      const generated = await service.call<Problem>("POST", "/api/generate-report", {
        token,
        body: { url: "http://169.254.169.254/" },
      });
      expect(generated.body.code).toBe(notAllowed.body.code);

      const badPatch = await service.call<Problem>("PATCH", "/api/monitors/mon_01m8bq00000000000000000000", {
        token,
        body: { schedule: "daily" },
      });
      expect(badPatch.status).toBe(404);
    });

    test("list: newest first, paged with before and Link", async () => {
      const { token: lister } = await service.token(undefined, "business");
      const ids: string[] = [];
      for (const schedule of ["hourly", "daily", "weekly", "15 3 * * *", "0 12 * * 1-5"]) {
        const response = await create({ url: WORDPRESS_URL, schedule }, lister);
        expect(response.status).toBe(201);
        ids.push(response.body.id);
      }
      const seen: string[] = [];
      let path = "/api/monitors?limit=2";
      for (let page = 0; page < 5; page++) {
        const response = await service.call<MonitorList>("GET", path, { token: lister });
        expect(response.status).toBe(200);
        seen.push(...response.body.data.map((monitor) => monitor.id));
        const link = response.headers.get("link");
        if (!response.body.next_cursor) {
          expect(link).toBeNull();
          break;
        }
        expect(link).toBe(`<${service.url}/api/monitors?limit=2&before=${response.body.next_cursor}>; rel="next"`);
        path = `/api/monitors?limit=2&before=${response.body.next_cursor}`;
      }
      expect(seen).toEqual([...ids].reverse());
      const badCursor = await service.call<Problem>("GET", "/api/monitors?before=mon_nope", { token: lister });
      expect(badCursor.status).toBe(400);
    });

    test("the plan's limit: a Free account has one monitor, the second is 403 monitor_limit_reached", async () => {
      const { token: free } = await service.token(undefined, "free");
      expect((await create({ url: WORDPRESS_URL, schedule: "weekly" }, free)).status).toBe(201);
      const refused = await create({ url: WORDPRESS_URL, schedule: "daily" }, free);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("monitor_limit_reached");
      expect(refused.body.detail).toContain("Free plan allows 1 monitor");
    });

    test("Idempotency-Key on create: a repeat gets the same monitor", async () => {
      const key = `create-${Date.now()}`;
      const first = await create({ url: WORDPRESS_URL, schedule: "weekly" }, token, { "idempotency-key": key });
      const again = await create({ url: WORDPRESS_URL, schedule: "weekly" }, token, { "idempotency-key": key });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body.id).toBe(first.body.id);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
    });

    test("run now → 202 with the report's Location; the report is the monitor's", async () => {
      const { token: runner, accountId } = await service.token(undefined, "starter");
      const monitor = (await create({ url: WORDPRESS_URL, schedule: "weekly", environment: "run-now" }, runner)).body;
      const ran = await service.call<Report>("POST", `/api/monitors/${monitor.id}/run`, { token: runner });
      expect(ran.status).toBe(202);
      expect(ran.body.id).toMatch(/^rep_/);
      expect(ran.body.status).toMatch(/^(queued|running)$/);
      expect(ran.body.metadata).toEqual({ environment: "run-now" });
      expect(ran.headers.get("location")).toBe(`${service.url}/api/report/${ran.body.id}`);
      const [row] = await service.db.sql<{ monitor_id: string }[]>`
        select monitor_id from reports where id = ${ran.body.id} and account_id = ${accountId}`;
      expect(row?.monitor_id).toBe(monitor.id);
      const read = await service.call<Monitor>("GET", `/api/monitors/${monitor.id}`, { token: runner });
      expect(read.body.last_run).toMatchObject({ report_id: ran.body.id, trigger: "manual" });
      const report = await service.call<Report>("GET", `/api/report/${ran.body.id}`, { token: runner });
      expect(report.status).toBe(200);
      // GET /api/sites shows the site's monitor.
      const sites = await service.call<{ data: { monitor: Record<string, unknown> | null }[] }>(
        "GET",
        "/api/sites?environment=run-now",
        { token: runner },
      );
      expect(sites.status).toBe(200);
      expect(sites.body.data).toHaveLength(1);
      expect(sites.body.data[0]?.monitor).toEqual({
        id: monitor.id,
        schedule: "weekly",
        paused: false,
        next_run_at: monitor.next_run_at,
        last_run_at: expect.any(String),
        last_report_id: ran.body.id,
      });
    });

    test("another account's monitor is 404 on every route", async () => {
      const monitor = (await create({ url: WORDPRESS_URL, schedule: "weekly" })).body;
      const calls: [string, string, unknown?][] = [
        ["GET", `/api/monitors/${monitor.id}`],
        ["PATCH", `/api/monitors/${monitor.id}`, { enabled: false }],
        ["DELETE", `/api/monitors/${monitor.id}`],
        ["POST", `/api/monitors/${monitor.id}/run`],
      ];
      for (const [method, path, body] of calls) {
        const response = await service.call<Problem>(method, path, { token: other, body });
        expect(response.status).toBe(404);
        expect(response.body.code).toBe("not_found");
      }
      const listed = await service.call<MonitorList>("GET", "/api/monitors", { token: other });
      expect(listed.body.data.map((m) => m.id)).not.toContain(monitor.id);
      expect((await service.call<Monitor>("GET", `/api/monitors/${monitor.id}`, { token })).body.enabled).toBe(true);
      expect((await service.call("GET", "/api/monitors")).status).toBe(401);
    });
  });
}
