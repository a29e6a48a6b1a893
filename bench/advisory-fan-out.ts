/**
 * vulnerability.found fan-out benchmark (issue 25; figures in docs/benchmarks.md): one advisory
 * an import adds, affecting every one of BENCH_SITES sites (2,000), on PostgreSQL. Prints:
 *
 *   - the time from the import's commit (the transaction that serves it and queues the fan-out)
 *     to the last vulnerability.found event written to the outbox, and
 *   - to the last webhook delivery received by a local receiver,
 *
 * through the real service (startService, role all: the fan-out and delivery workers run in
 * this process), the real Wordfence importer, and a real HTTP receiver on loopback. The sites'
 * components are inserted directly (site_components), half of them monitored; one account
 * owns them all and subscribed a webhook. Polled every 20 ms: figures have that resolution.
 *
 *   npm run bench:fan-out                      # needs PostgreSQL (BENCH_POSTGRES_URL)
 *   BENCH_SITES=500 npm run bench:fan-out
 *
 * Also called by bench/monitors.ts through `advisoryFanOutBench(options)`. Figures, never assertions.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { importWordfenceFile } from "../server/intel/importer.ts";
import { openDatabase } from "../server/platform/db/database.ts";
import { createLogger } from "../server/platform/logger.ts";
import { loadConfig } from "../server/start/config.ts";
import { startService } from "../server/start/runtime.ts";

export interface AdvisoryFanOutOptions {
  /** Sites the advisory affects (2,000). */
  sites?: number;
  /** A PostgreSQL server's admin URL: a database is created for the run and dropped after it. */
  adminUrl?: string;
  /** How long to wait for the last delivery before giving up (ms). */
  timeoutMs?: number;
}

export interface AdvisoryFanOutFigures {
  sites: number;
  events: number;
  deliveries: number;
  /** From the import's commit to the last event written (ms). */
  toLastEventMs: number;
  /** From the import's commit to the last delivery received (ms). */
  toLastDeliveryMs: number;
  eventsPerSecond: number;
  deliveriesPerSecond: number;
}

const POLL_MS = 20;
const SLUG = "bench-forms";
const ADVISORY_ID = "b0000000-0000-4000-8000-0000000000f1";

function record(id: string, slug: string, to: string, patched: string): Record<string, unknown> {
  return {
    id,
    title: `${slug} <= ${to} - Benchmark advisory`,
    software: [
      {
        type: "plugin",
        name: slug,
        slug,
        affected_versions: {
          [`* - ${to}`]: { from_version: "*", from_inclusive: true, to_version: to, to_inclusive: true },
        },
        patched: true,
        patched_versions: [patched],
        remediation: "Update",
      },
    ],
    informational: false,
    description: "d",
    references: [`https://example.org/${id}`],
    cvss: { vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", score: 6.1, rating: "Medium" },
    cve: null,
    published: "2026-11-01 00:00:00",
    updated: "2026-11-02 00:00:00",
    copyrights: { message: "m", defiant: { notice: "Copyright Defiant Inc.", license: "l", license_url: "u" } },
  };
}

const feedOf = (...records: Record<string, unknown>[]) =>
  JSON.stringify(Object.fromEntries(records.map((entry) => [entry.id as string, entry])));

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return performance.now();
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(POLL_MS);
  }
}

export async function advisoryFanOutBench(options: AdvisoryFanOutOptions = {}): Promise<AdvisoryFanOutFigures> {
  const sites = options.sites ?? 2_000;
  const adminUrl = options.adminUrl ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const timeoutMs = options.timeoutMs ?? 300_000;
  const name = `wpreport_fanout_${Date.now().toString(36)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${name}`;
  const dir = await mkdtemp(path.join(tmpdir(), "wpreport-fanout-"));
  let received = 0;
  const receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      await request.arrayBuffer();
      received++;
      return new Response("ok");
    },
  });
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: dbUrl.toString(),
    LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 3).toString("base64"),
    TARGET_ALLOWLIST: `127.0.0.1:${receiver.port}`,
    WPORG_API_URL: "off",
    WPVULNERABILITY_API_URL: "off",
    INTEL_REFRESH_CRON: "off",
  });
  const logger = createLogger(config.platform.logLevel);
  const db = await openDatabase(config.platform, logger, { role: "server" });
  const service = await startService(config, logger, { db });
  try {
    const { services } = service;
    const { account } = await services.accounts.ensure("fan-out@example.com", "enterprise");
    await services.monitoring.webhooks.create(account.id, {
      url: `http://127.0.0.1:${receiver.port}/hooks`,
      events: ["vulnerability.found"],
    });
    const rows = Array.from({ length: sites }, (_, n) => ({
      account_id: account.id,
      site_key: `site-${n}.example`,
      environment: "",
      url: `https://site-${n}.example/`,
      report_id: `rep_bench${n.toString().padStart(8, "0")}`,
      report_created_at: new Date(),
      monitor_id: n % 2 === 0 ? `mon_bench${n}` : null,
      component_type: "plugin",
      slug: SLUG,
      name: "Bench Forms",
      version: `1.${n % 9}.0`,
      known_advisories: [],
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db.sql`insert into site_components ${db.sql(rows.slice(i, i + 500) as never[])}`;

    const store = services.intel.store;
    const baseline = path.join(dir, "baseline.json");
    await writeFile(baseline, feedOf(record("b0000000-0000-4000-8000-0000000000f0", "other-plugin", "1.0", "1.1")));
    await importWordfenceFile(store, baseline);

    let committedAt = 0;
    store.added.listen(async () => {
      committedAt = performance.now();
    });
    const added = path.join(dir, "added.json");
    await writeFile(
      added,
      feedOf(
        record("b0000000-0000-4000-8000-0000000000f0", "other-plugin", "1.0", "1.1"),
        record(ADVISORY_ID, SLUG, "1.9.9", "2.0.0"),
      ),
    );
    await importWordfenceFile(store, added);
    const lastEvent = await until(
      async () => {
        const [row] = await db.sql<{ n: number }[]>`
          select count(*)::int as n from events where type = 'vulnerability.found'`;
        return (row?.n ?? 0) >= sites;
      },
      timeoutMs,
      "the events",
    );
    const lastDelivery = await until(() => received >= sites, timeoutMs, "the deliveries");
    const [count] = await db.sql<
      { n: number }[]
    >`select count(*)::int as n from events where type = 'vulnerability.found'`;
    const toLastEventMs = Math.round(lastEvent - committedAt);
    const toLastDeliveryMs = Math.round(lastDelivery - committedAt);
    return {
      sites,
      events: count?.n ?? 0,
      deliveries: received,
      toLastEventMs,
      toLastDeliveryMs,
      eventsPerSecond: Math.round((sites / toLastEventMs) * 1000),
      deliveriesPerSecond: Math.round((sites / toLastDeliveryMs) * 1000),
    };
  } finally {
    await service.stop();
    receiver.stop(true);
    await rm(dir, { recursive: true, force: true });
    await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
}

/** Prints the figures (bench:fan-out, and bench:monitors after the scheduler's). */
export function printFanOut(figures: AdvisoryFanOutFigures): void {
  console.log(`vulnerability.found fan-out: one advisory, ${figures.sites} affected sites, PostgreSQL`);
  console.log(`  events written:       ${figures.events}`);
  console.log(`  deliveries received:  ${figures.deliveries}`);
  console.log(`  commit → last event:    ${figures.toLastEventMs} ms (${figures.eventsPerSecond} events/s)`);
  console.log(`  commit → last delivery: ${figures.toLastDeliveryMs} ms (${figures.deliveriesPerSecond} deliveries/s)`);
}

export const FAN_OUT_SITES = Number(process.env.BENCH_SITES ?? 2_000);

if (import.meta.main) {
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  printFanOut(await advisoryFanOutBench({ sites: FAN_OUT_SITES, adminUrl }));
  process.exit(0);
}
