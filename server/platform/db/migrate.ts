/**
 * Versioned SQL migrations from server/platform/db/migrations (NNNN_name.sql), applied in order at
 * start-up. A session-level advisory lock serialises instances that start together: the
 * second waits, then finds nothing left to do.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Logger } from "../logger.ts";
import type { Sql } from "./database.ts";

const MIGRATIONS_DIR = path.join(import.meta.dir, "migrations");
/** Arbitrary constant naming wpreport's migration lock (pg_advisory_lock key). */
const MIGRATION_LOCK_KEY = 7_263_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      sql: readFileSync(path.join(dir, file), "utf8"),
    }));
}

export async function migrate(sql: Sql, logger: Logger, migrations = loadMigrations()) {
  const connection = await sql.reserve();
  try {
    // Waiting for another instance's migrations, or for a table a migration alters, must not
    // give up after the pool's lock_timeout (database.ts).
    await connection`set lock_timeout = 0`;
    await connection`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      await connection`
        create table if not exists schema_migrations (
          version    integer primary key,
          name       text not null,
          applied_at timestamptz not null default now()
        )`;
      const applied = new Set(
        (await connection<{ version: number }[]>`select version from schema_migrations`).map((row) => row.version),
      );
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        await connection`begin`;
        try {
          await connection.unsafe(migration.sql);
          await connection`insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
          await connection`commit`;
        } catch (error) {
          await connection`rollback`;
          throw new Error(`Migration ${migration.version}_${migration.name} failed: ${(error as Error).message}`);
        }
        logger.info("migration applied", { version: migration.version, name: migration.name });
      }
    } finally {
      await connection`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    await connection`reset lock_timeout`.catch(() => {});
    connection.release();
  }
}
