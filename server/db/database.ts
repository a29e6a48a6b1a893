/**
 * The database handle: postgres.js against either a PostgreSQL server (DATABASE_URL) or
 * the embedded PGlite, which is reached through its socket server so that both run the
 * exact same SQL through the same driver (one code path, one dialect).
 */
import postgres from "postgres";
import type { Config } from "../config.ts";
import type { Logger } from "../logging/logger.ts";
import { type EmbeddedDatabase, openEmbedded } from "./embedded.ts";
import { migrate } from "./migrate.ts";

export type Sql = postgres.Sql;
/** A connection or an open transaction: anything a query can run on. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

export interface Database {
  sql: Sql;
  kind: "postgres" | "embedded";
  /** Closes the pool (and the embedded engine, if this process owns it). */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** "server" owns the embedded engine; "cli" borrows a running server's when there is one. */
  role: "server" | "cli";
  /** Apply pending migrations (default true). */
  migrate?: boolean;
}

const DRIVER_OPTIONS = {
  onnotice: () => {},
  connect_timeout: 10,
  idle_timeout: 60,
  connection: { application_name: "wpreport" },
} as const;

export async function openDatabase(
  config: Pick<Config, "databaseUrl" | "dataDir" | "dbPoolMax">,
  logger: Logger,
  options: OpenOptions,
): Promise<Database> {
  let sql: Sql;
  let embedded: EmbeddedDatabase | undefined;
  if (config.databaseUrl) {
    sql = postgres(config.databaseUrl, { ...DRIVER_OPTIONS, max: config.dbPoolMax });
  } else {
    embedded = await openEmbedded(config.dataDir, options.role, logger);
    // PGlite runs one statement at a time; a small pool keeps queueing in the driver.
    sql = postgres({
      ...DRIVER_OPTIONS,
      ...embedded.connection,
      database: "postgres",
      username: "postgres",
      max: Math.min(config.dbPoolMax, 4),
    });
  }
  const database: Database = {
    sql,
    kind: embedded ? "embedded" : "postgres",
    async close() {
      await sql.end({ timeout: 5 });
      await embedded?.close();
    },
  };
  try {
    if (options.migrate !== false) await migrate(sql, logger);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
