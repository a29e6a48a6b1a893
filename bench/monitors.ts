/**
 * Monitors' scheduler benchmark (PostgreSQL). 2,000 monitors over BENCH_ACCOUNTS Enterprise
 * accounts, spread over a day: half on `daily` (all at midnight UTC: their jitter is what keeps
 * them apart), half each at its own random minute of the day (`M H * * *`). The scheduler's
 * tick is then driven over one simulated day, every BENCH_TICK_SECONDS (5, as the worker polls)
 * — `scheduler.tick(now)` with the clock moved on — and the bench prints:
 *
 *   - an idle tick (nothing due): p50/p95 ms and statements;
 *   - a tick that starts runs: p50/p95 ms, runs per tick (max, p95), statements per run (the
 *     claim, the report's admission — quota, queue checks, the job — and the run's record);
 *   - the midnight burst: how many seconds the 1,000 `daily` monitors' starts spread over, and
 *     the most started by one tick (without jitter, one tick would start all 1,000);
 *   - the analysis queue's depth (reports queued or running) every simulated hour.
 *
 * No analysis runs: no worker is started, so every report stays queued and the depth is the
 * arrivals the scheduler made (what a worker pool would have to absorb). Statements are counted
 * by the driver's debug hook on the service's own connection pool.
 *
 *   npm run bench:monitors                              # needs PostgreSQL
 *   BENCH_MONITORS=4000 BENCH_TICK_SECONDS=10 npm run bench:monitors
 *
 * Figures, never assertions.
 */
import postgres from "postgres";
import { syncPlans } from "../server/billing/plans-sync.ts";
import { type Database, openDatabase } from "../server/platform/db/database.ts";
import { silentLogger } from "../server/platform/logger.ts";
import { loadConfig } from "../server/start/config.ts";
import { createServices } from "../server/start/services.ts";
import { advisoryFanOutBench, FAN_OUT_SITES, printFanOut } from "./advisory-fan-out.ts";

const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const monitorCount = Number(process.env.BENCH_MONITORS ?? 2000);
const accountCount = Number(process.env.BENCH_ACCOUNTS ?? 100);
const tickSeconds = Number(process.env.BENCH_TICK_SECONDS ?? 5);
const siteUrl = process.env.BENCH_URL ?? "http://127.0.0.1:8088/";

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};
const ms = (value: number) => `${value.toFixed(2)} ms`;

const admin = postgres(adminUrl, { onnotice: () => {}, max: 1 });
const name = `wpreport_bench_monitors_${Date.now()}`;
await admin.unsafe(`create database ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const config = loadConfig({
  DATABASE_URL: url.toString(),
  LOG_LEVEL: "silent",
  TARGET_ALLOWLIST: "127.0.0.1,localhost",
  WPORG_API_URL: "off",
  WPVULNERABILITY_API_URL: "off",
  INTEL_REFRESH_CRON: "off",
  // Every run stays queued (no worker): the service-wide cap must not refuse them.
  QUEUE_MAX_DEPTH: "100000",
});

let statements = 0;
const migrated = await openDatabase(config.platform, silentLogger, { role: "server" });
await syncPlans(migrated.sql);
await migrated.close();
const counted = postgres(url.toString(), {
  onnotice: () => {},
  max: config.platform.dbPoolMax,
  debug: () => {
    statements++;
  },
});
const db: Database = { sql: counted, kind: "postgres", close: () => counted.end({ timeout: 5 }) };
const services = await createServices(config, silentLogger, db);
const { monitors, scheduler } = services.monitoring;

try {
  // Accounts, and their monitors through the service (as POST /api/monitors makes them).
  const callers = [];
  for (let i = 0; i < accountCount; i++) {
    const { account } = await services.accounts.ensure(`bench-monitors-${i}@example.com`, "enterprise");
    callers.push({ accountId: account.id, planId: "enterprise" as const, monthlyQuota: 2000 });
  }
  const daily = new Set<string>();
  const createdAt = performance.now();
  for (let i = 0; i < monitorCount; i++) {
    const caller = callers[i % callers.length] as (typeof callers)[number];
    const atMidnight = i % 2 === 0;
    const schedule = atMidnight ? "daily" : `${Math.floor(Math.random() * 60)} ${Math.floor(Math.random() * 24)} * * *`;
    const monitor = await monitors.create(caller, { url: siteUrl, schedule, environment: `m${i}` });
    if (atMidnight) daily.add(monitor.id);
  }
  const createMs = performance.now() - createdAt;
  console.log(
    `${monitorCount} monitors on ${accountCount} accounts created in ${(createMs / 1000).toFixed(1)} s (${ms(createMs / monitorCount)} each)`,
  );

  // The midnight burst, as the ticks will meet it: each daily monitor starts at midnight plus its jitter.
  const starts = await counted<{ next_run_at: Date }[]>`
    select next_run_at from monitors where id = any(${[...daily]})`;
  const startTimes = starts.map((row) => row.next_run_at.getTime());
  const spreadSeconds = (Math.max(...startTimes) - Math.min(...startTimes)) / 1000;
  const perBucket = new Map<number, number>();
  for (const time of startTimes) {
    const bucket = Math.floor(time / (tickSeconds * 1000));
    perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + 1);
  }
  const burstMax = Math.max(...perBucket.values());

  const idleMs: number[] = [];
  const idleStatements: number[] = [];
  const busyMs: number[] = [];
  const runsPerTick: number[] = [];
  const statementsPerRun: number[] = [];
  const depthByHour: number[] = [];
  let skipped = 0;
  const start = Date.now();
  const ticks = Math.ceil((24 * 3600) / tickSeconds) + 1;
  for (let tick = 0; tick < ticks; tick++) {
    const now = new Date(start + tick * tickSeconds * 1000);
    const before = statements;
    const began = performance.now();
    const result = await scheduler.tick(now);
    const took = performance.now() - began;
    const used = statements - before;
    skipped += result.skipped;
    if (result.claimed === 0) {
      idleMs.push(took);
      idleStatements.push(used);
    } else {
      busyMs.push(took);
      runsPerTick.push(result.claimed);
      statementsPerRun.push(used / result.claimed);
    }
    if (tick % Math.round(3600 / tickSeconds) === 0) {
      const [row] = await counted<{ n: number }[]>`
        select count(*)::int as n from reports where status in ('queued', 'running')`;
      depthByHour.push(row?.n ?? 0);
    }
  }
  const [total] = await counted<{ runs: number; reports: number }[]>`
    select (select count(*)::int from monitor_runs) as runs, (select count(*)::int from reports) as reports`;

  console.log(`simulated 24 h: ${ticks} ticks of ${tickSeconds} s`);
  console.log(
    `idle tick (nothing due, ${idleMs.length} ticks): p50 ${ms(percentile(idleMs, 50))}, p95 ${ms(percentile(idleMs, 95))}, ${percentile(idleStatements, 50)} statements`,
  );
  console.log(
    `tick starting runs (${busyMs.length} ticks): p50 ${ms(percentile(busyMs, 50))}, p95 ${ms(percentile(busyMs, 95))}; runs per tick max ${Math.max(...runsPerTick)}, p95 ${percentile(runsPerTick, 95)}, p50 ${percentile(runsPerTick, 50)}; statements per run p50 ${percentile(statementsPerRun, 50).toFixed(1)}`,
  );
  console.log(`runs: ${total?.runs} (reports ${total?.reports}, skipped ${skipped})`);
  console.log(
    `midnight: the ${daily.size} daily monitors start over ${spreadSeconds.toFixed(0)} s (jitter), at most ${burstMax} in one ${tickSeconds} s tick (without jitter: ${daily.size} in one)`,
  );
  console.log(`analysis queue depth (queued reports, no worker) at each simulated hour: ${depthByHour.join(", ")}`);
} finally {
  await services.close();
  await db.close();
  await admin.unsafe(`drop database ${name} with (force)`);
  await admin.end();
}

// The other half of issue 25's figures: one advisory fanned out to FAN_OUT_SITES sites.
console.log("");
printFanOut(await advisoryFanOutBench({ sites: FAN_OUT_SITES, adminUrl }));
process.exit(0);
