/**
 * Storage: migrations under concurrent start-up (PostgreSQL), and the embedded PGlite
 * serving many postgres.js connections at once without mixing their queries up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { PLANS } from "../../server/billing/plans.ts";
import { syncPlans } from "../../server/billing/plans-sync.ts";
import { openDatabase } from "../../server/platform/db/database.ts";
import { loadMigrations } from "../../server/platform/db/migrate.ts";
import { silentLogger } from "../../server/platform/logger.ts";
import { createPgliteDatabase, createPostgresDatabase, type TestDatabase } from "../helpers/databases.ts";
import { HAS_POSTGRES, POSTGRES_ADMIN_URL } from "../helpers/env.ts";

describe.skipIf(!HAS_POSTGRES)("migrations on PostgreSQL", () => {
  test("two instances starting at once apply each migration exactly once", async () => {
    const name = `wpreport_test_mig_${Date.now().toString(36)}`;
    const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    const config = { databaseUrl: url.toString(), dataDir: "", dbPoolMax: 2 };
    try {
      const [a, b, c] = await Promise.all([
        openDatabase(config, silentLogger, { role: "server" }),
        openDatabase(config, silentLogger, { role: "server" }),
        openDatabase(config, silentLogger, { role: "server" }),
      ]);
      const rows = await a.sql<{ version: number }[]>`select version from schema_migrations order by version`;
      expect(rows.map((row) => row.version)).toEqual(loadMigrations().map((m) => m.version));
      await Promise.all([syncPlans(a.sql), syncPlans(b.sql), syncPlans(c.sql)]);
      const plans = await a.sql`select id, monthly_quota, requests_per_minute from plans order by sort_order`;
      expect(plans.map((plan) => [plan.id, plan.monthly_quota, plan.requests_per_minute])).toEqual(
        PLANS.map((plan) => [plan.id, plan.monthlyQuota, plan.requestsPerMinute]),
      );
      await Promise.all([a.close(), b.close(), c.close()]);
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });

  test("a failing migration is rolled back and reported with its name", async () => {
    const db = await createPostgresDatabase();
    try {
      const { migrate } = await import("../../server/platform/db/migrate.ts");
      const broken = [
        { version: 9999, name: "broken", sql: "create table half_done (id int); select no_such_function();" },
      ];
      await expect(migrate(db.sql, silentLogger, broken)).rejects.toThrow("Migration 9999_broken failed");
      const [exists] = await db.sql`select to_regclass('half_done') as t`;
      expect(exists?.t).toBeNull();
    } finally {
      await db.destroy();
    }
  });
});

describe("embedded PGlite through its socket", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createPgliteDatabase();
  });
  afterAll(() => db.destroy());

  test("many concurrent connections get their own results, transactions stay isolated", async () => {
    const clients = Array.from({ length: 6 }, () =>
      postgres({
        path: `${db.dataDir}/pglite.sock`,
        database: "postgres",
        username: "postgres",
        max: 3,
        onnotice: () => {},
      }),
    );
    try {
      const first = clients[0] as postgres.Sql;
      await first`create table if not exists echo_test (n int)`;
      const work = clients.flatMap((client, c) =>
        Array.from({ length: 40 }, async (_, i) => {
          const n = c * 1000 + i;
          if (i % 10 === 0) {
            // A transaction that is rolled back must leave nothing behind.
            await client
              .begin(async (tx) => {
                await tx`insert into echo_test (n) values (${-n - 1})`;
                throw new Error("rollback");
              })
              .catch(() => {});
          }
          const [row] = await client<{ n: number; s: string }[]>`select ${n}::int as n, ${`v${n}`}::text as s`;
          return row?.n === n && row?.s === `v${n}`;
        }),
      );
      const results = await Promise.all(work);
      expect(results.every(Boolean)).toBe(true);
      const [left] = await first`select count(*)::int as n from echo_test`;
      expect(left?.n).toBe(0);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });

  test("a client that disconnects inside a transaction does not block the others", async () => {
    const quitter = postgres({ path: `${db.dataDir}/pglite.sock`, database: "postgres", username: "postgres", max: 1 });
    const reserved = await quitter.reserve();
    await reserved`begin`;
    await reserved`select 1`;
    await quitter.end({ timeout: 0 });
    const [row] = await db.sql`select 42 as answer`;
    expect(row?.answer).toBe(42);
  });
});
