/**
 * The analysis job queue: pg-boss on the service's own database (see docs/decisions.md).
 *
 * pg-boss talks to the database through the service's own postgres.js pool (onOurPool), so
 * the queue lives wherever the reports live: PostgreSQL, or the embedded PGlite through its
 * socket. One queue engine on both backends.
 *
 * Per-account concurrency is pg-boss's group concurrency: each job's group is its account,
 * with the account's plan as the group tier, so an account never runs more analyses at once
 * than its plan allows — across every worker, counted in the database.
 */
import { type Db, PgBoss } from "pg-boss";
import type { AnalysisMode } from "../analyzer/enumeration/plan.ts";
import type { Config } from "../config.ts";
import type { Database, Queryable, Sql } from "../db/database.ts";
import type { Logger } from "../logging/logger.ts";
import type { PlanId } from "../plans/catalogue.ts";

export const ANALYSIS_QUEUE = "analysis";
const SCHEMA = "pgboss";

/** What a worker needs to run one report's analysis. Everything else is in the report row. */
export interface AnalysisJob {
  reportId: string;
  accountId: string;
  /** The validated target URL. */
  target: string;
  /** Host name of the target, for the per-host limit. */
  host: string;
  /** The account's plan when queued: its tier of per-account concurrency. */
  plan: PlanId;
  /** "aggressive" for opt-in enumeration; absent (jobs queued before 1.2.0 too) means passive. */
  mode?: AnalysisMode;
  /**
   * pg-boss priority (higher first): the account's unfinished reports when this one was
   * queued, counted down from FAIR_PRIORITY_BASE — an account's first report goes before
   * another account's 40th (docs/plans.md, "Fair queues"). Kept when the job is offered again.
   */
  priority?: number;
  /** When the job first found its target busy (ms since epoch): the report's waited_ms. */
  targetWaitSince?: number;
}

/** The priority of an account's first unfinished report; its n-th gets FAIR_PRIORITY_BASE − n + 1. */
export const FAIR_PRIORITY_BASE = 1_000;

export interface JobQueue {
  boss: PgBoss;
  /**
   * Queues a job. With `tx`, inside that postgres.js transaction: the job exists exactly when
   * the transaction that stores its report commits (no report without a job after a crash).
   */
  send(job: AnalysisJob, options?: { startAfterSeconds?: number; tx?: Queryable }): Promise<void>;
  /** Seconds a running job may take before pg-boss hands it to another worker. */
  readonly expireInSeconds: number;
  /** Set by this process's worker: fetch now instead of at the next poll. */
  wakeLocal: (() => void) | undefined;
  stop(options?: { graceful: boolean; timeoutMs: number }): Promise<void>;
}

/**
 * Seconds a job may stay active before pg-boss gives it to another worker: the analysis
 * deadline (the analysis is aborted there) plus time to store the result.
 */
export function jobExpirySeconds(analysisTimeoutMs: number): number {
  return Math.ceil(analysisTimeoutMs / 1000) + 10;
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

export async function openJobQueue(
  config: Pick<Config, "analysisTimeoutMs" | "accountConcurrency" | "role">,
  db: Database,
  logger: Logger,
): Promise<JobQueue> {
  const boss = new PgBoss({
    db: onOurPool(db.sql),
    schema: SCHEMA,
    // Cron schedules (the intel refresh) are evaluated where jobs run; pg-boss sends one job
    // per occurrence however many processes evaluate them.
    schedule: config.role !== "api",
    supervise: true,
    // On PostgreSQL, workers in every process wake the moment a job is queued (polling stays
    // as the backstop). PGlite's notifications do not cross its socket: there workers poll,
    // and a job queued in this process wakes this process's worker directly (wakeLocal).
    useListenNotify: embeddedless(db),
    maintenanceIntervalSeconds: 30,
    // How soon a dead worker's job is noticed (after its expiry) and handed to another.
    superviseIntervalSeconds: 5,
    monitorIntervalSeconds: 5,
  });
  boss.on("error", (error) => logger.error("job queue error", { error }));
  await startSerialised(db.sql, () => boss.start());
  // A worker that dies mid-job holds it until it expires; then pg-boss gives it to another
  // worker once (retryLimit 1). The report row decides whether there is anything left to do.
  const expireInSeconds = jobExpirySeconds(config.analysisTimeoutMs);
  await boss.createQueue(ANALYSIS_QUEUE, {
    retryLimit: 1,
    retryDelay: 1,
    notify: embeddedless(db),
    expireInSeconds,
    deleteAfterSeconds: 24 * 3600,
  });
  const queue: JobQueue = {
    boss,
    expireInSeconds,
    wakeLocal: undefined,
    async send(job, options = {}) {
      await boss.send(ANALYSIS_QUEUE, job as unknown as object, {
        group: { id: job.accountId, tier: job.plan },
        priority: job.priority ?? 0,
        startAfter: options.startAfterSeconds,
        ...(options.tx ? { db: inTransaction(options.tx) } : {}),
      });
      // After a transaction commits, the caller wakes the worker (see wakeLocal).
      if (!options.startAfterSeconds && !options.tx) queue.wakeLocal?.();
    },
    async stop(options = { graceful: true, timeoutMs: 10_000 }) {
      await boss.stop({ graceful: options.graceful, timeout: options.timeoutMs, close: false });
    },
  };
  return queue;
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
    await lock`select pg_advisory_lock(hashtext('wpreport:pg-boss start'))`;
    await start();
  } finally {
    await lock`select pg_advisory_unlock(hashtext('wpreport:pg-boss start'))`.catch(() => {});
    lock.release();
  }
}

function embeddedless(db: Database): boolean {
  return db.kind === "postgres";
}
