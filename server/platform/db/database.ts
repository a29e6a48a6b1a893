/**
 * The database handle: postgres.js against either a PostgreSQL server (DATABASE_URL) or
 * the embedded PGlite, which is reached through its socket server so that both run the
 * exact same SQL through the same driver (one code path, one dialect).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import type { Logger } from "../logger.ts";
import type { PlatformSettings } from "../settings.ts";
import { type EmbeddedDatabase, openEmbedded } from "./embedded.ts";
import { migrate } from "./migrate.ts";

export type Sql = postgres.Sql;
/** A connection or an open transaction: anything a query can run on. */
export type Queryable = postgres.Sql | postgres.TransactionSql;
/** An open transaction (sql.begin's handle): it can also make savepoints. */
export type Transaction = postgres.TransactionSql;

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

/**
 * How long a statement may wait for a lock before it fails with 55P03 (see openDatabase): on
 * PostgreSQL, `lock_timeout`; on the embedded PGlite, the wait for its one session.
 */
export const LOCK_TIMEOUT_MS = 5_000;

const DRIVER_OPTIONS = {
  onnotice: () => {},
  connect_timeout: 10,
  idle_timeout: 60,
  connection: { application_name: "wpreport" },
} as const;

/** A line of patches/postgres+3.4.9.patch in each file it changes, from its latest fix. */
const PATCH_MARKERS = {
  // The row counter reset after a failed or cut-off result (issue 30).
  "connection.js": "wpreport patch: the row counter too",
  "index.js": "wpreport patch",
};

/**
 * postgres.js 3.4.9 can throw from a timer when a connection closes under a transaction or a
 * reservation, which ends the process, can send a dead transaction's statements into another
 * session (upstream porsager/postgres#1208, #1216), and after a query that failed while its
 * rows streamed gives the next query on that connection a result with holes, whose first row
 * reads as missing (#1119, #1181: a valid token answered 401 in a connection storm). None is
 * fixed in a release yet. Our fix is patches/postgres+3.4.9.patch, applied at install by
 * patch-package (postinstall). Without it the service must not start: it would crash on the
 * first dropped connection (docs/decisions.md, "postgres.js, patched").
 */
export function assertDriverPatched(): void {
  const dir = path.dirname(fileURLToPath(import.meta.resolve("postgres")));
  // Each file names the latest fix it must carry: a node_modules patched before that fix (a
  // checkout that pulled a newer patch and did not run `npm ci`) is refused as well.
  const unpatched = Object.entries(PATCH_MARKERS).filter(
    ([file, marker]) => !readFileSync(path.join(dir, file), "utf8").includes(marker),
  );
  if (unpatched.length > 0) {
    throw new Error(
      `postgres.js is installed without wpreport's fix (patches/postgres+3.4.9.patch; ${unpatched.map(([file]) => file).join(", ")} unpatched in ${dir}): run \`npm ci\` or \`npx patch-package\``,
    );
  }
}

export async function openDatabase(
  config: Pick<PlatformSettings, "databaseUrl" | "dataDir" | "dbPoolMax">,
  logger: Logger,
  options: OpenOptions,
): Promise<Database> {
  assertDriverPatched();
  let sql: Sql;
  let embedded: EmbeddedDatabase | undefined;
  if (config.databaseUrl) {
    sql = postgres(config.databaseUrl, {
      ...DRIVER_OPTIONS,
      // A statement that waits on a lock (a migration, an operator's LOCK TABLE) gives up
      // after LOCK_TIMEOUT_MS with 55P03: a request then answers 503 with Retry-After, and
      // background work retries (platform/db/transient.ts), instead of hanging. Advisory-lock waits
      // that must not give up (migrate.ts) set it to 0 for their session.
      connection: { ...DRIVER_OPTIONS.connection, lock_timeout: LOCK_TIMEOUT_MS },
      max: config.dbPoolMax,
    });
  } else {
    // PGlite is one session: a transaction holds it for everyone, and the wait for it is
    // bounded like a lock wait here (pglite-session-queue.ts).
    embedded = await openEmbedded(config.dataDir, options.role, logger, { waitLimitMs: LOCK_TIMEOUT_MS });
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
