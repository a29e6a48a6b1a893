/**
 * Fresh databases for tests, on both backends:
 *  - PostgreSQL: a new database per call (CREATE DATABASE wpreport_test_…), dropped after;
 *  - PGlite (the embedded default): a copy of a migrated template data directory, opened
 *    through the same openDatabase() path the server uses.
 */
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { syncPlans } from "../../server/billing/plans-sync.ts";
import { type Database, openDatabase } from "../../server/platform/db/database.ts";
import { loadMigrations } from "../../server/platform/db/migrate.ts";
import { silentLogger } from "../../server/platform/logger.ts";
import { HAS_POSTGRES, POSTGRES_ADMIN_URL } from "./env.ts";

export type Backend = "pglite" | "postgres";

export interface TestDatabase extends Database {
  backend: Backend;
  /** DATABASE_URL for other processes (PostgreSQL only). */
  url?: string;
  /** DATA_DIR of an embedded database. */
  dataDir?: string;
  /** Closes and deletes the database. */
  destroy(): Promise<void>;
}

/** Backends to run the suites on; PostgreSQL only where it is reachable. */
export const BACKENDS: Backend[] = HAS_POSTGRES ? ["pglite", "postgres"] : ["pglite"];

export async function createPostgresDatabase(): Promise<TestDatabase> {
  const name = `wpreport_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: "", dbPoolMax: 20 }, silentLogger, {
    role: "server",
  });
  await syncPlans(db.sql);
  return {
    ...db,
    backend: "postgres",
    url: url.toString(),
    async destroy() {
      await db.close();
      const cleanup = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

const migrationsHash = Bun.hash(
  loadMigrations()
    .map((m) => m.sql)
    .join("\n"),
).toString(36);
let template: Promise<string> | undefined;

/** A migrated PGlite data directory, built once per schema and reused across runs. */
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = path.join(tmpdir(), `wpreport-pglite-template-${migrationsHash}`);
    if (existsSync(path.join(dir, "pglite", "PG_VERSION"))) return dir;
    const building = mkdtempSync(path.join(tmpdir(), "wpreport-pglite-build-"));
    const db = await openDatabase({ databaseUrl: undefined, dataDir: building, dbPoolMax: 4 }, silentLogger, {
      role: "server",
    });
    await syncPlans(db.sql);
    await db.close();
    try {
      renameSync(building, dir);
    } catch {
      rmSync(building, { recursive: true, force: true }); // another run built it first
    }
    return dir;
  })();
  return template;
}

/** A DATA_DIR holding a migrated embedded database, not opened (for server subprocesses). */
export async function preparePgliteDataDir(): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "wpreport-test-"));
  cpSync(path.join(await pgliteTemplate(), "pglite"), path.join(dataDir, "pglite"), { recursive: true });
  return dataDir;
}

export async function createPgliteDatabase(): Promise<TestDatabase> {
  const dataDir = await preparePgliteDataDir();
  const db = await openDatabase({ databaseUrl: undefined, dataDir, dbPoolMax: 4 }, silentLogger, { role: "server" });
  return {
    ...db,
    backend: "pglite",
    dataDir,
    async destroy() {
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  return backend === "postgres" ? createPostgresDatabase() : createPgliteDatabase();
}
