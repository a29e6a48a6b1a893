/**
 * Monitors end to end on real processes (PostgreSQL): one API process and two worker
 * processes, each worker ticking on its own. A monitor of the real WordPress fixture on a
 * one-minute schedule makes reports on schedule, and across the two workers exactly one run —
 * one report — per slot. Two slots (about two minutes), then the monitor is paused.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Monitor } from "../../shared/monitors-api.ts";
import { createPostgresDatabase, type TestDatabase } from "../helpers/databases.ts";
import { HAS_POSTGRES, HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { runCli, type ServerProcess, startServerProcess } from "../helpers/processes.ts";
import { eventually } from "./helpers.ts";

setDefaultTimeout(200_000);

const SLOTS = 2;

describe.skipIf(!HAS_POSTGRES || !HAS_WORDPRESS)("monitors on 1 API + 2 worker processes", () => {
  let db: TestDatabase | undefined;
  const processes: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop().catch(() => 0)));
    await db?.destroy();
  });

  test("a one-minute monitor makes one report per slot, whichever worker claims it", async () => {
    db = await createPostgresDatabase();
    const env = {
      DATABASE_URL: db.url as string,
      TARGET_ALLOWLIST: "127.0.0.1:8088",
      TARGET_MAX_RPS: "0",
      WPORG_API_URL: "off",
      WPVULNERABILITY_API_URL: "off",
      INTEL_REFRESH_CRON: "off",
    };
    const [api, workerA, workerB] = await Promise.all([
      startServerProcess({ ...env, WPREPORT_ROLE: "api" }),
      startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
      startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
    ]);
    processes.push(api, workerA, workerB);
    if (!api || !workerA || !workerB) throw new Error("processes did not start");
    const created = await runCli(["token", "create", "--email", "monitors-e2e@example.com", "--plan", "business"], env);
    const token = created.stdout.trim();
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${api.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    const response = await call("POST", "/api/monitors", {
      url: WORDPRESS_URL,
      schedule: "* * * * *",
      environment: "every-minute",
    });
    expect(response.status).toBe(201);
    const monitor = (await response.json()) as Monitor;
    const firstRunAt = Date.parse(monitor.next_run_at as string);
    const sql = db.sql;

    type Run = { scheduled_for: Date; status: string; report_id: string | null };
    const readRuns = () =>
      sql<(Run & { report_status: string | null })[]>`
        select mr.scheduled_for, mr.status, mr.report_id, r.status as report_status
        from monitor_runs mr left join reports r on r.id = mr.report_id
        where mr.monitor_id = ${monitor.id} order by mr.scheduled_for`;
    await eventually(
      `${SLOTS} runs with completed reports`,
      async () => (await readRuns()).filter((row) => row.report_status === "completed").length >= SLOTS,
      180_000,
    );
    expect((await call("PATCH", `/api/monitors/${monitor.id}`, { enabled: false })).status).toBe(200);
    // A run claimed just before the pause still gets its report.
    const runs = await eventually("no run left half-started", async () => {
      const rows = await readRuns();
      return rows.every((row) => row.status !== "claimed") ? rows : undefined;
    });

    // One run per slot, consecutive minutes, the first at the slot next_run_at named.
    const slots = runs.map((run) => run.scheduled_for.getTime());
    expect(new Set(slots).size).toBe(slots.length);
    expect(slots[0]).toBe(Math.floor(firstRunAt / 60_000) * 60_000);
    for (let i = 1; i < slots.length; i++) expect((slots[i] as number) - (slots[i - 1] as number)).toBe(60_000);
    expect(runs.every((run) => run.status === "queued" && run.report_id !== null)).toBe(true);
    // Exactly one report per run: no worker made a second one for a slot.
    const reports = await sql<{ id: string; created_at: Date; metadata: unknown }[]>`
      select id, created_at, metadata from reports where monitor_id = ${monitor.id} order by created_at`;
    expect(reports.map((report) => report.id)).toEqual(runs.map((run) => run.report_id as string));
    // On schedule: no report before its slot's start (slot + jitter).
    for (const [i, report] of reports.entries())
      expect(report.created_at.getTime()).toBeGreaterThanOrEqual((slots[i] as number) + (firstRunAt % 60_000));
    expect(reports[0]?.metadata).toEqual({ environment: "every-minute" });

    const shown = (await (await call("GET", `/api/monitors/${monitor.id}`)).json()) as Monitor;
    expect(shown.status).toBe("paused");
    expect(shown.last_run?.report_id).toBe(runs.at(-1)?.report_id as string);
  });
});
