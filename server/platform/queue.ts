/**
 * The job queue engine: pg-boss on the service's own database (see docs/decisions.md). Every
 * feature's queue (analyses in reports/, webhook deliveries and emails in monitoring/, the
 * intel refresh) is a pg-boss queue on this one engine.
 *
 * pg-boss talks to the database through the service's own postgres.js pool (onOurPool), so
 * the queue lives wherever the reports live: PostgreSQL, or the embedded PGlite through its
 * socket. One queue engine on both backends.
 */
import { type Db, PgBoss } from "pg-boss";
import type { Database, Queryable, Sql } from "./db/database.ts";
import type { Logger } from "./logger.ts";
import type { PlatformSettings } from "./settings.ts";

const SCHEMA = "pgboss";

export interface QueueEngine {
  boss: PgBoss;
  /** True when workers in other processes wake on LISTEN/NOTIFY (PostgreSQL, not PGlite). */
  readonly notify: boolean;
  stop(options?: { graceful: boolean; timeoutMs: number }): Promise<void>;
}

/**
 * pg-boss on the service's own postgres.js pool — the same connections, to PostgreSQL or
 * through the embedded PGlite's socket. pg-boss sends its schema and maintenance work as
 * `BEGIN; …; COMMIT;` scripts without parameters: those run with the simple protocol on a
 * reserved connection (a pool may not split a transaction across connections); everything
 * else is one parameterised statement.
 */
function onOurPool(sql: Sql): Db {
  const db: Db = {
    async executeSql(text: string, values?: unknown[]) {
      if (values && values.length > 0) {
        return { rows: (await sql.unsafe(text, values as never[])) as unknown as unknown[] };
      }
      const reserved = await sql.reserve();
      try {
        const result = (await reserved.unsafe(text).simple()) as unknown as unknown[];
        // A script answers one result per statement: keep the rows of all of them.
        return { rows: result.some(Array.isArray) ? result.flat() : result };
      } finally {
        reserved.release();
      }
    },
    async listen(channel: string, onNotification: (payload: string) => void, onReconnect: () => void) {
      const subscription = await sql.listen(channel, onNotification, onReconnect);
      return { close: () => subscription.unlisten() };
    },
  };
  return db;
}

export async function openQueueEngine(
  config: Pick<PlatformSettings, "role">,
  db: Database,
  logger: Logger,
): Promise<QueueEngine> {
  const notify = embeddedless(db);
  const boss = new PgBoss({
    db: onOurPool(db.sql),
    schema: SCHEMA,
    // Cron schedules (the intel refresh, monitors, the daily digest) are evaluated where jobs
    // run; pg-boss sends one job per occurrence however many processes evaluate them.
    schedule: config.role !== "api",
    supervise: true,
    // On PostgreSQL, workers in every process wake the moment a job is queued (polling stays
    // as the backstop). PGlite's notifications do not cross its socket: there workers poll,
    // and a job queued in this process wakes this process's worker directly (wakeLocal).
    useListenNotify: notify,
    maintenanceIntervalSeconds: 30,
    // How soon a dead worker's job is noticed (after its expiry) and handed to another.
    superviseIntervalSeconds: 5,
    monitorIntervalSeconds: 5,
  });
  boss.on("error", (error) => logger.error("job queue error", { error }));
  await startSerialised(db.sql, () => boss.start());
  return {
    boss,
    notify,
    async stop(options = { graceful: true, timeoutMs: 10_000 }) {
      await boss.stop({ graceful: options.graceful, timeout: options.timeoutMs, close: false });
    },
  };
}

/**
 * Offers jobs now that were sent to start later (their start time moved to now), if they are
 * still waiting for it: a job that was handed what it was waiting for need not wait out its
 * delay. Jobs already fetched, finished or unknown are left alone.
 */
export async function startNow(tx: Queryable, queue: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx`
    update ${tx(SCHEMA)}.job set start_after = now()
    where name = ${queue} and id::text in ${tx(ids as string[])} and state = 'created' and start_after > now()`;
}

/** pg-boss statements run on one of our postgres.js transactions (a single parameterised statement each). */
export function inTransaction(tx: Queryable): Db {
  return {
    async executeSql(text: string, values?: unknown[]) {
      return { rows: (await tx.unsafe(text, (values ?? []) as never[])) as unknown as unknown[] };
    },
  };
}

/**
 * pg-boss installs and migrates its schema at start; several processes starting at once on a
 * new database race on CREATE SCHEMA ("duplicate key … pg_namespace_nspname_index"). A
 * session advisory lock lets one process at a time through.
 */
async function startSerialised(sql: Sql, start: () => Promise<unknown>): Promise<void> {
  const lock = await sql.reserve();
  try {
    await lock`set lock_timeout = 0`; // wait for the other process however long it takes
    await lock`select pg_advisory_lock(hashtext('wpreport:pg-boss start'))`;
    await start();
  } finally {
    await lock`select pg_advisory_unlock(hashtext('wpreport:pg-boss start'))`.catch(() => {});
    await lock`reset lock_timeout`.catch(() => {});
    lock.release();
  }
}

function embeddedless(db: Database): boolean {
  return db.kind === "postgres";
}
