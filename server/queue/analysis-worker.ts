/**
 * The worker role: takes analysis jobs from the queue and finishes each report exactly once.
 *
 * Exactly once, under crashes: pg-boss may hand a job to a second worker (the first one died
 * or stalled past `expireInSeconds`). The report row is the truth — a job whose report is
 * already completed or failed is dropped, and storing the result is one transaction whose
 * UPDATE only matches an unfinished report, committing the credit in the same transaction.
 * A report that cannot start in time (queue too long, or a crash too late) fails with its
 * credit returned.
 */
import { type Report, TARGET_LIMITS, type TargetLimits } from "../../shared/report.ts";
import { TargetNotAllowedError } from "../analyzer/errors.ts";
import type { Config } from "../config.ts";
import type { Queryable, Sql } from "../db/database.ts";
import { ApiProblem } from "../http/problem.ts";
import type { Logger } from "../logging/logger.ts";
import type { QuotaService } from "../quota/quota.service.ts";
import {
  completedReport,
  failedReport,
  logAllowlistHint,
  storedFailure,
  toProblem,
} from "../reports/report-outcome.ts";
import type { AnalyzeFn } from "../reports/reports.service.ts";
import type { Slots } from "./host-slots.ts";
import { ANALYSIS_QUEUE, type AnalysisJob, type JobQueue } from "./job-queue.ts";
import type { QueueMetrics } from "./metrics.ts";
import type { TargetLimits as TargetLimitsService } from "./target-limits.ts";

export interface WorkerDeps {
  sql: Sql;
  quota: QuotaService;
  queue: JobQueue;
  /** Analyses at once, per account and per target, claimed in the database. */
  slots: Slots;
  targets: TargetLimitsService;
  analyze: AnalyzeFn;
  config: Pick<Config, "workerConcurrency" | "accountConcurrency" | "analysisTimeoutMs">;
  /** AGGRESSIVE_MAX_REQUESTS: what an aggressive analysis asks of its target's hourly budget. */
  aggressiveMaxRequests: number;
  /** A job must start within this long of its report's creation (see reportDeadlines). */
  startWithinMs: number;
  logger: Logger;
  metrics: QueueMetrics;
}

/** Seconds before a job whose target is busy is offered again. */
const HOST_BUSY_RETRY_SECONDS = 2;
/** Seconds before a job whose account runs its plan's analyses at once already is offered again. */
const ACCOUNT_BUSY_RETRY_SECONDS = 1;

interface ReportRow {
  status: string;
  created_at: Date;
  reservation_id: string | null;
  body: Report;
}

export class AnalysisWorker {
  private readonly shutdown = new AbortController();
  private workerId: string | undefined;

  constructor(private readonly deps: WorkerDeps) {}

  async start(): Promise<void> {
    const { queue, config } = this.deps;
    this.workerId = await queue.boss.work<AnalysisJob>(
      ANALYSIS_QUEUE,
      {
        localConcurrency: config.workerConcurrency,
        batchSize: 1,
        // A loop fetches again at once when its job took longer than this, and otherwise waits
        // for the rest of it. With LISTEN/NOTIFY pg-boss would wait notifyPollingIntervalSeconds
        // (2 s by default) even with jobs ready, which halved throughput in bench:throughput;
        // 0.5 s costs an idle worker 2 small queries a second per slot.
        pollingIntervalSeconds: 0.5,
        notifyPollingIntervalSeconds: 0.5,
        groupConcurrency: { default: 1, tiers: config.accountConcurrency },
      },
      async ([job]) => {
        if (job) await this.run(job.data);
      },
    );
    const id = this.workerId;
    queue.wakeLocal = () => queue.boss.notifyWorker(id);
  }

  /** Stops taking jobs, lets running ones finish (up to `timeoutMs`), then aborts them. */
  async stop(timeoutMs: number): Promise<void> {
    this.deps.queue.wakeLocal = undefined;
    const abort = setTimeout(() => this.shutdown.abort(), timeoutMs);
    try {
      if (this.workerId) await this.deps.queue.boss.offWork(ANALYSIS_QUEUE, { id: this.workerId, wait: true });
    } finally {
      clearTimeout(abort);
    }
  }

  /** One job. Public for tests; the queue calls it. */
  async run(job: AnalysisJob): Promise<void> {
    const { sql, slots, targets, queue, config, startWithinMs } = this.deps;
    const [row] = await sql<ReportRow[]>`
      select status, created_at, reservation_id, body from reports where id = ${job.reportId}`;
    if (!row || (row.status !== "queued" && row.status !== "running")) return; // finished already

    if (Date.now() > row.created_at.getTime() + startWithinMs) {
      const problem = new ApiProblem(
        "overloaded",
        "The service was too busy to start this analysis in time. Nothing was charged; try again.",
      );
      await this.fail(row, job, problem, "queue");
      return;
    }
    // The plan's analyses at once, claimed in the database: pg-boss's group concurrency keeps
    // most extra jobs of the account from being fetched, but two worker processes fetching
    // at the same moment could both start one (issue 21, row 7). The slot is the rule.
    const accountKey = `account:${job.accountId}`;
    if (!(await slots.acquire(accountKey, config.accountConcurrency[job.plan] ?? 1, job.reportId))) {
      await queue.send(job, { startAfterSeconds: ACCOUNT_BUSY_RETRY_SECONDS });
      return;
    }
    let targetKeys: string[] = [];
    try {
      const target = await targets.keysFor(job.target);
      const busy = await slots.acquireAll(target.keys, targets.settings.hostConcurrency, job.reportId);
      if (busy) {
        // Politeness: the site or its address is being analysed HOST_CONCURRENCY times already.
        // Offer the job again shortly instead of holding a worker slot while waiting.
        await slots.release(accountKey, job.reportId);
        await queue.send(
          { ...job, targetWaitSince: job.targetWaitSince ?? Date.now() },
          {
            startAfterSeconds: HOST_BUSY_RETRY_SECONDS,
          },
        );
        return;
      }
      targetKeys = target.keys;
      await this.analyse(row, job, target.host, targetKeys);
    } finally {
      await slots.release(accountKey, job.reportId).catch(() => {});
      // The target's slots stay taken while the pace's bucket refills (target-limits.ts).
      await slots.releaseAfter(targetKeys, job.reportId, targets.refillMs).catch(() => {});
    }
  }

  /** Runs the analysis of a job holding its slots, and stores the outcome. */
  private async analyse(row: ReportRow, job: AnalysisJob, host: string, targetKeys: string[]): Promise<void> {
    const { sql, config, metrics, targets } = this.deps;
    const startedAt = Date.now();
    const done = metrics.startRun();
    try {
      await sql`
        update reports set status = 'running', started_at = coalesce(started_at, now()),
          body = jsonb_set(body, '{status}', '"running"')
        where id = ${job.reportId} and status in ('queued', 'running')`;
      const mode = job.mode ?? "passive";
      const aggressiveRequests =
        mode === "aggressive" ? await targets.grantAggressive(targetKeys, this.deps.aggressiveMaxRequests) : undefined;
      const signal = AbortSignal.any([AbortSignal.timeout(config.analysisTimeoutMs), this.shutdown.signal]);
      const requestsPerSecond = targets.analysisRps || undefined;
      const result = await this.deps.analyze(job.target, signal, { mode, requestsPerSecond, aggressiveRequests });
      const limits = targetLimitsOf(result.target_limits, {
        host,
        waitedMs: job.targetWaitSince ? Math.max(0, startedAt - job.targetWaitSince) : 0,
        requestsPerSecond: targets.analysisRps,
        aggressiveRequests,
        aggressiveWanted: this.deps.aggressiveMaxRequests,
      });
      const completed = completedReport(row.body, { ...result, target_limits: limits }, startedAt);
      await sql.begin(async (tx) => {
        const stored = await this.store(tx, completed, null);
        if (stored && row.reservation_id) await this.deps.quota.commit(tx, row.reservation_id);
      });
      done("completed");
    } catch (error) {
      const problem = toProblem(error);
      if (!problem) this.deps.logger.error("analysis failed", { report_id: job.reportId, error });
      if (error instanceof TargetNotAllowedError) logAllowlistHint(this.deps.logger, error.message);
      const failure = problem ?? new ApiProblem("internal_error", "The analysis failed unexpectedly.");
      if (failure.code === "site_unreachable") {
        // Counted per account and minute for admission (docs/plans.md, "Fair queues").
        await sql`insert into unreachable_failures (account_id) values (${job.accountId})`.catch(() => {});
      }
      await this.fail(row, job, failure, "analysis");
      done(failure.code);
    }
  }

  private async fail(row: ReportRow, job: AnalysisJob, problem: ApiProblem, stage: string): Promise<void> {
    const failed = failedReport(row.body, problem, stage);
    try {
      await this.store(this.deps.sql, failed, problem);
    } catch (error) {
      this.deps.logger.error("could not mark report failed; the sweeper will", { report_id: job.reportId, error });
    }
    // Idempotent: a credit already committed (or released) is not touched again.
    if (row.reservation_id) await this.deps.quota.release(row.reservation_id).catch(() => {});
  }

  /** Writes the final state if the report is still unfinished; false when another attempt won. */
  private async store(tx: Queryable, report: Report, problem: ApiProblem | null): Promise<boolean> {
    const rows = await tx`
      update reports set status = ${report.status}, score = ${report.summary?.score ?? null},
        grade = ${report.summary?.grade ?? null}, body = ${tx.json(report as never)},
        completed_at = ${report.completed_at},
        failure = ${problem ? tx.json(storedFailure(problem) as never) : null}
      where id = ${report.id} and status in ('queued', 'running')
      returning id`;
    return rows.length > 0;
  }
}

/** The report's target_limits: what the analyzer saw of the pace, and what the worker waited for. */
type TargetLimit = (typeof TARGET_LIMITS)[number];

function targetLimitsOf(
  fromAnalysis: TargetLimits | null | undefined,
  seen: {
    host: string;
    waitedMs: number;
    requestsPerSecond: number;
    aggressiveRequests: number | undefined;
    aggressiveWanted: number;
  },
): TargetLimits {
  const hit = new Set<TargetLimit>(fromAnalysis?.hit ?? []);
  if (seen.waitedMs > 0) hit.add("analyses_at_once");
  if (seen.aggressiveRequests !== undefined && seen.aggressiveRequests < seen.aggressiveWanted)
    hit.add("aggressive_requests_per_hour");
  return {
    host: seen.host,
    hit: TARGET_LIMITS.filter((limit) => hit.has(limit)),
    waited_ms: Math.round(seen.waitedMs),
    requests_per_second: seen.requestsPerSecond,
    aggressive_requests: seen.aggressiveRequests ?? null,
  };
}
