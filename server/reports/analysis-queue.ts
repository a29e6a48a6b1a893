/**
 * The analysis queue: one pg-boss job per report, on the service's queue engine
 * (platform/queue.ts). The report row is the truth; the job only says "analyze this report".
 *
 * Per-account concurrency is pg-boss's group concurrency (a first filter): each job's group is
 * its account, with the account's plan as the group tier; the worker's account slot
 * (slots.ts) is the rule across processes.
 */

import type { PgBoss } from "pg-boss";
import type { AnalysisMode } from "../../shared/report.ts";
import type { SiteTls } from "../../shared/site-tls.ts";
import type { PlanId } from "../billing/plans.ts";
import type { Queryable } from "../platform/db/database.ts";
import { inTransaction, type QueueEngine } from "../platform/queue.ts";
import type { LabOptions } from "./report-options.ts";
import type { ReportsSettings } from "./settings.ts";

export const ANALYSIS_QUEUE = "analysis";
/**
 * Lab reports (`"lab": true`) wait on a queue of their own, run by each worker process at most
 * LAB_CONCURRENCY at a time beside the passive analyses: a flood of lab reports fills only
 * this queue, and never holds up a passive report (docs/report.md, "Lab").
 */
export const LAB_QUEUE = "analysis-lab";

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
  /**
   * The report's mode (report-options.ts). Every job names it now; one queued by an older
   * release names only "aggressive", and the worker reads its absence as DEFAULT_ANALYSIS_MODE.
   */
  mode?: AnalysisMode;
  /**
   * pg-boss priority (higher first): the account's unfinished reports when this one was
   * queued, counted down from FAIR_PRIORITY_BASE — an account's first report goes before
   * another account's 40th (docs/plans.md, "Fair queues"). Kept when the job is offered again.
   */
  priority?: number;
  /** When the job first found its target busy (ms since epoch): the report's waited_ms. */
  targetWaitSince?: number;
  /**
   * True when the report has sealed site credentials (reports/site-auth-vault.ts) for the worker
   * to open. The job itself never carries them: pg-boss keeps job rows after they finish.
   */
  siteAuth?: boolean;
  /**
   * How the site's certificate is checked when not by the public roots (shared/site-tls.ts): a
   * private CA's PEM is public data, so unlike credentials it travels in the job.
   */
  siteTls?: SiteTls;
  /** A lab run besides the analysis (report-options.ts): the job goes to LAB_QUEUE. */
  lab?: LabOptions;
}

/** The priority of an account's first unfinished report; its n-th gets FAIR_PRIORITY_BASE − n + 1. */
export const FAIR_PRIORITY_BASE = 1_000;

export interface AnalysisQueue {
  boss: PgBoss;
  /**
   * Queues a job. With `tx`, inside that postgres.js transaction: the job exists exactly when
   * the transaction that stores its report commits (no report without a job after a crash).
   */
  send(job: AnalysisJob, options?: { startAfterSeconds?: number; tx?: Queryable; id?: string }): Promise<void>;
  /** Seconds a running job may take before pg-boss hands it to another worker. */
  readonly expireInSeconds: number;
  /** The same for a lab job, whose analysis may also take LAB_TIMEOUT_MS. */
  readonly labExpireInSeconds: number;
  /** Set by this process's worker: fetch now instead of at the next poll. */
  wakeLocal: (() => void) | undefined;
}

/**
 * Seconds a job may stay active before pg-boss gives it to another worker: the analysis
 * deadline (the analysis is aborted there) plus time to store the result.
 */
export function jobExpirySeconds(analysisTimeoutMs: number): number {
  return Math.ceil(analysisTimeoutMs / 1000) + 10;
}

/** Seconds without a heartbeat after which a running job is taken from its (dead) worker; pg-boss's minimum. */
export const HEARTBEAT_SECONDS = 10;
/** Retries of a job whose worker died or whose database stayed away. */
const JOB_RETRY_LIMIT = 5;

/** The queue a job goes to: lab reports wait on their own. */
export const queueOf = (job: Pick<AnalysisJob, "lab">) => (job.lab ? LAB_QUEUE : ANALYSIS_QUEUE);

export async function createAnalysisQueue(
  config: Pick<ReportsSettings, "analysisTimeoutMs" | "lab">,
  engine: QueueEngine,
): Promise<AnalysisQueue> {
  const { boss } = engine;
  // A worker renews its jobs' heartbeats every 2 s (analysis-worker.ts); one that dies stops, and
  // pg-boss's supervisor (every 5 s, in every process) fails the job past HEARTBEAT_SECONDS
  // and gives it to another worker — seconds, not the analysis deadline. A job that failed
  // because the database stayed away is retried the same way. The report row decides whether
  // there is anything left to do, so a retry never runs a finished report twice.
  const expireInSeconds = jobExpirySeconds(config.analysisTimeoutMs);
  const settings = {
    retryLimit: JOB_RETRY_LIMIT,
    retryDelay: 1,
    expireInSeconds,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    deleteAfterSeconds: 24 * 3600,
  };
  await boss.createQueue(ANALYSIS_QUEUE, { ...settings, notify: engine.notify });
  // createQueue leaves an existing queue as it was: bring one made by an older release up to date.
  await boss.updateQueue(ANALYSIS_QUEUE, settings);
  const labExpireInSeconds = jobExpirySeconds(config.analysisTimeoutMs + config.lab.timeoutMs);
  const labSettings = { ...settings, expireInSeconds: labExpireInSeconds };
  await boss.createQueue(LAB_QUEUE, { ...labSettings, notify: engine.notify });
  await boss.updateQueue(LAB_QUEUE, labSettings);
  const queue: AnalysisQueue = {
    boss,
    expireInSeconds,
    labExpireInSeconds,
    wakeLocal: undefined,
    async send(job, options = {}) {
      await boss.send(queueOf(job), job as unknown as object, {
        group: { id: job.accountId, tier: job.plan },
        priority: job.priority ?? 0,
        startAfter: options.startAfterSeconds,
        ...(options.id ? { id: options.id } : {}),
        ...(options.tx ? { db: inTransaction(options.tx) } : {}),
      });
      // After a transaction commits, the caller wakes the worker (see wakeLocal).
      if (!options.startAfterSeconds && !options.tx) queue.wakeLocal?.();
    },
  };
  return queue;
}
