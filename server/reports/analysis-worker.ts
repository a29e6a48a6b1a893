/**
 * The worker role: takes analysis jobs from the queue and finishes each report exactly once.
 *
 * Exactly once, under crashes: pg-boss may hand a job to a second worker (the first one died
 * or stalled past `expireInSeconds`). The report row is the truth — a job whose report is
 * already completed or failed is dropped, and storing the result is one transaction whose
 * UPDATE only matches an unfinished report, committing the credit in the same transaction.
 * A report that cannot start in time (queue too long, or a crash too late) fails with its
 * credit returned.
 *
 * A database that is briefly away (dropped connections, a restart, a table lock) never fails a
 * report: each step rides it out (platform/db/transient.ts), and past that the job fails and pg-boss
 * runs it again. A worker that dies stops its jobs' heartbeats, so pg-boss hands them to
 * another worker within seconds (analysis-queue.ts). While it analyses, the worker renews its host
 * slots and notices a cancelled report (ReportService.cancel) within TICK_MS, and stops it.
 */
import { DEFAULT_ANALYSIS_MODE, type Report, TARGET_LIMITS, type TargetLimits } from "../../shared/report.ts";
import { redactor, type SiteAuth, siteAuthSecrets } from "../../shared/site-auth.ts";
import { isIncomplete } from "../analyzer/completeness.ts";
import { TargetNotAllowedError } from "../analyzer/errors.ts";
import { QUICK_CHECK_FAILED } from "../analyzer/gather/homepage.ts";
import type { QuotaService } from "../billing/quota.service.ts";
import type { Queryable, Sql, Transaction } from "../platform/db/database.ts";
import { retryTransient } from "../platform/db/transient.ts";
import { withinDeadline } from "../platform/deadline.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import type { Logger } from "../platform/logger.ts";
import type { ServiceMetrics } from "../platform/prometheus.ts";
import { ANALYSIS_QUEUE, type AnalysisJob, type AnalysisQueue, LAB_QUEUE } from "./analysis-queue.ts";
import { settleCharge } from "./charges.ts";
import { DeadTargets } from "./dead-targets.ts";
import type { ReportDeadlines } from "./deadlines.ts";
import { freeWorkerCap, isFreePlan } from "./plan-shares.ts";
import { completedReport, failedReport, logAllowlistHint, storedFailure, toProblem } from "./report-outcome.ts";
import type { ReportOutcomes } from "./report-outcomes.ts";
import type { AnalyzeFn } from "./reports.service.ts";
import type { ReportsSettings } from "./settings.ts";
import type { SiteAuthVault } from "./site-auth-vault.ts";
import type { Slots } from "./slots.ts";
import type { TargetLimits as TargetLimitsService } from "./target-limits.ts";

type Redactor = ReturnType<typeof redactor>;

export interface WorkerDeps {
  sql: Sql;
  quota: QuotaService;
  queue: AnalysisQueue;
  /** Analyses at once, per account and per target, claimed in the database. */
  slots: Slots;
  targets: TargetLimitsService;
  /** Targets that gave no answer lately, checked quickly first (dead-targets.ts). */
  deadTargets: DeadTargets;
  analyze: AnalyzeFn;
  /** Opens the sealed site credentials of a report; undefined when this process has no key. */
  siteAuth?: SiteAuthVault;
  config: Pick<ReportsSettings, "workerConcurrency" | "accountConcurrency" | "analysisTimeoutMs" | "lab">;
  /** AGGRESSIVE_MAX_REQUESTS: what an aggressive analysis asks of its target's hourly budget. */
  aggressiveMaxRequests: number;
  /** A job must start within its kind's startWithinMs of its report's creation. */
  deadlines: ReportDeadlines;
  logger: Logger;
  metrics: ServiceMetrics;
  /** Told of each report this worker finishes, in the transaction that stores it (report-outcomes.ts). */
  outcomes: ReportOutcomes;
}

/** An error as a log field, with the site credentials' secrets replaced. */
function redactedError(error: unknown, redact: Redactor): { name: string; message: string; stack?: string } {
  const known = error instanceof Error ? error : new Error(String(error));
  return {
    name: known.name,
    message: redact.text(known.message),
    ...(known.stack ? { stack: redact.text(known.stack) } : {}),
  };
}

/** The same problem, with the secrets replaced in its detail and extensions. */
function redactedProblem(problem: ApiProblem, redact: Redactor): ApiProblem {
  const detail = redact.text(problem.detail);
  const extensions = problem.options.extensions ? redact.deep(problem.options.extensions) : undefined;
  if (detail === problem.detail && extensions === problem.options.extensions) return problem;
  return new ApiProblem(problem.code, detail, { ...problem.options, ...(extensions ? { extensions } : {}) });
}

/**
 * Seconds before a job whose target is busy is offered again. It keeps its place in the
 * target's fair order meanwhile (Slots.claimTargets): when a slot frees, any claim hands it to
 * the first job in that order, which finds it granted when offered again.
 */
const HOST_BUSY_RETRY_SECONDS = 2;
/** Seconds before a job whose account runs its plan's analyses at once already is offered again. */
const ACCOUNT_BUSY_RETRY_SECONDS = 1;
/** Seconds before a Free account's job is offered again while the Free share of this worker is in use. */
const FREE_SHARE_RETRY_SECONDS = 1;
/** How long one database step may ride out a database that is away before the job fails (and is retried). */
const DB_RETRY_MS = 30_000;
/** How long past its deadline a stop waits for the job queue to let go (analyses store their outcome meanwhile). */
const STOP_MARGIN_MS = 3_000;
/** How often running analyses renew their slots and look for a cancellation. */
export const TICK_MS = 1_000;

interface ReportRow {
  status: string;
  created_at: Date;
  reservation_id: string | null;
  monitor_id: string | null;
  body: Report;
}

export class AnalysisWorker {
  private readonly shutdown = new AbortController();
  private workerId: string | undefined;
  private labWorkerId: string | undefined;
  /** The analyses this process runs: report id → how to stop it. */
  private readonly running = new Map<string, AbortController>();
  private ticker: ReturnType<typeof setInterval> | undefined;
  /** Free accounts' analyses this process runs now: at most freeWorkerCap (plan-shares.ts). */
  private freeRunning = 0;

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
        // Renewed every 2 s against a 10 s heartbeat (analysis-queue.ts): a busy event loop that
        // misses a few renewals does not get its running jobs handed to a second worker.
        heartbeatRefreshSeconds: 2,
      },
      async ([job]) => {
        if (job) await this.run(job.data);
      },
    );
    // Lab reports on their own queue and their own few slots (LAB_CONCURRENCY): however many
    // wait there, the passive queue above keeps all of its WORKER_CONCURRENCY.
    this.labWorkerId = await queue.boss.work<AnalysisJob>(
      LAB_QUEUE,
      {
        localConcurrency: config.lab.concurrency,
        batchSize: 1,
        // Lab runs take seconds each: a slower poll costs them nothing and halves an idle
        // worker's queries for this queue (a local send wakes it at once, wakeLocal).
        pollingIntervalSeconds: 2,
        notifyPollingIntervalSeconds: 2,
        groupConcurrency: { default: 1, tiers: config.accountConcurrency },
        heartbeatRefreshSeconds: 2,
      },
      async ([job]) => {
        if (job) await this.run(job.data);
      },
    );
    const id = this.workerId;
    const labId = this.labWorkerId;
    queue.wakeLocal = () => {
      queue.boss.notifyWorker(id);
      queue.boss.notifyWorker(labId);
    };
    this.ticker = setInterval(() => void this.tick(), TICK_MS);
    this.ticker.unref?.();
  }

  /**
   * Keeps this process's analyses honest: renews their slots (so a dead worker's slots
   * free themselves within one lease, Slots) and stops those whose report is no longer
   * running here — cancelled, or finished by another attempt.
   */
  private async tick(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    try {
      await this.deps.slots.renew(ids);
      const ended = await this.deps.sql<{ id: string }[]>`
        select id from reports where id in ${this.deps.sql(ids)} and status not in ('queued', 'running')`;
      for (const { id } of ended) this.running.get(id)?.abort();
    } catch (error) {
      // The database is away: nothing to learn this time; the next tick tries again.
      this.deps.logger.debug("worker tick failed", { error: (error as Error).message });
    }
  }

  /** Stops taking jobs, lets running ones finish (up to `timeoutMs`), then aborts them. */
  async stop(timeoutMs: number): Promise<void> {
    this.deps.queue.wakeLocal = undefined;
    clearInterval(this.ticker);
    const abort = setTimeout(() => this.shutdown.abort(), timeoutMs);
    try {
      if (!this.workerId) return;
      // pg-boss waits for its fetch loop too, which can hang after the database dropped its
      // connections (platform/deadline.ts). Running analyses are aborted at timeoutMs; past that
      // and a margin to store their outcome, stop without it — the jobs' heartbeats lapse and
      // another worker takes them.
      const labId = this.labWorkerId;
      const offWork = Promise.all([
        this.deps.queue.boss.offWork(ANALYSIS_QUEUE, { id: this.workerId, wait: true }),
        labId ? this.deps.queue.boss.offWork(LAB_QUEUE, { id: labId, wait: true }) : undefined,
      ]);
      const waitMs = (this.running.size > 0 ? timeoutMs : 0) + STOP_MARGIN_MS;
      await withinDeadline(offWork, waitMs, "stopping the analysis worker", this.deps.logger);
    } finally {
      clearTimeout(abort);
    }
  }

  /** One job. Public for tests; the queue calls it. */
  async run(job: AnalysisJob): Promise<void> {
    const { sql, queue, config } = this.deps;
    const { startWithinMs } = this.deps.deadlines.of(job);
    const [row] = await retried(
      () => sql<ReportRow[]>`
      select status, created_at, reservation_id, monitor_id, body from reports where id = ${job.reportId}`,
    );
    if (!row || (row.status !== "queued" && row.status !== "running")) return; // finished already

    if (Date.now() > row.created_at.getTime() + startWithinMs) {
      const problem = new ApiProblem(
        "overloaded",
        "The service was too busy to start this analysis in time. Nothing was charged; try again.",
      );
      await this.fail(row, job, problem, "queue");
      return;
    }
    // Free accounts together get at most their share of this process's slots, so a flood of
    // Free accounts never holds every worker (docs/plans.md, "Fair queues"). Checked and
    // counted in one synchronous step; the job is offered again, not held.
    const free = isFreePlan(job.plan);
    if (free) {
      if (this.freeRunning >= freeWorkerCap(config.workerConcurrency)) {
        await retried(() => queue.send(job, { startAfterSeconds: FREE_SHARE_RETRY_SECONDS }));
        return;
      }
      this.freeRunning++;
    }
    try {
      await this.runHoldingShare(row, job);
    } finally {
      if (free) this.freeRunning--;
    }
  }

  /** The rest of a job, once it holds its plan share: the account's slot, the target's, the analysis. */
  private async runHoldingShare(row: ReportRow, job: AnalysisJob): Promise<void> {
    const { slots, targets, queue, config } = this.deps;
    // The plan's analyses at once, claimed in the database: pg-boss's group concurrency keeps
    // most extra jobs of the account from being fetched, but two worker processes fetching
    // at the same moment could both start one (issue 21, row 7). The slot is the rule.
    const accountKey = `account:${job.accountId}`;
    const accountLimit = config.accountConcurrency[job.plan] ?? 1;
    if (!(await retried(() => slots.acquire(accountKey, accountLimit, job.reportId)))) {
      await retried(() => queue.send(job, { startAfterSeconds: ACCOUNT_BUSY_RETRY_SECONDS }));
      return;
    }
    let targetKeys: string[] = [];
    try {
      const target = await targets.keysFor(job.target);
      // The job that offers it again if it must wait: a claim that grants it slots starts it at once.
      const nextJobId = crypto.randomUUID();
      const claimant = { reportId: job.reportId, accountId: job.accountId, since: row.created_at, nextJobId };
      const granted = await retried(() => slots.claimTargets(target.keys, targets.limitOf, claimant));
      if (!granted) {
        // Politeness: the site (HOST_CONCURRENCY) or its address (TARGET_ADDRESS_CONCURRENCY) is
        // being analyzed as many times as allowed already, or other accounts are before this
        // one in the target's fair order. The job keeps its place and is offered again shortly
        // instead of holding a worker while waiting.
        await retried(() => slots.release(accountKey, job.reportId));
        await retried(() =>
          queue.send(
            { ...job, targetWaitSince: job.targetWaitSince ?? Date.now() },
            { startAfterSeconds: HOST_BUSY_RETRY_SECONDS, id: nextJobId },
          ),
        );
        return;
      }
      targetKeys = target.keys;
      // The pace is the share of the slots it was granted (pace-shares.ts), fixed for the analysis.
      const slotOf = await retried(() => slots.slotNumbers(target.keys, job.reportId));
      const requestsPerSecond = targets.analysisRps(target.keys, slotOf);
      await this.runAnalysis(row, job, { host: target.host, keys: targetKeys, requestsPerSecond });
    } finally {
      await slots.release(accountKey, job.reportId).catch(() => {});
      // The target's slots stay taken for one pace window more (target-limits.ts): the next
      // analysis in them cannot add its first second to this one's last.
      await slots.releaseAfter(targetKeys, job.reportId, targets.paceWindowMs).catch(() => {});
    }
  }

  /** Runs the analysis of a job holding its slots, and stores the outcome. */
  private async runAnalysis(
    row: ReportRow,
    job: AnalysisJob,
    target: { host: string; keys: string[]; requestsPerSecond: number },
  ): Promise<void> {
    const { host, keys: targetKeys, requestsPerSecond } = target;
    const { sql, config, metrics, targets, deadTargets } = this.deps;
    const stop = new AbortController();
    this.running.set(job.reportId, stop);
    const startedAt = Date.now();
    let ended = false;
    const finish = metrics.startRun();
    const done = (outcome: string) => {
      ended = true;
      finish(outcome);
    };
    // Site credentials, opened only now and held in memory for this analysis; every text that
    // leaves it (the report, a failure, a log line) has their secrets replaced.
    let redact = redactor([]);
    try {
      const started = await retried(
        () => sql`
        update reports set status = 'running', started_at = coalesce(started_at, now()),
          body = jsonb_set(body, '{status}', '"running"')
        where id = ${job.reportId} and status in ('queued', 'running')
        returning id`,
      );
      if (started.length === 0) return done("cancelled"); // cancelled (or finished) meanwhile
      const mode = job.mode ?? DEFAULT_ANALYSIS_MODE;
      const aggressiveRequests =
        mode === "aggressive"
          ? await retried(() => targets.grantAggressive(targetKeys, this.deps.aggressiveMaxRequests))
          : undefined;
      // A lab report's browser has its own hard deadline (LAB_TIMEOUT_MS) on top of the analysis's.
      const timeoutMs = config.analysisTimeoutMs + (job.lab ? config.lab.timeoutMs : 0);
      const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.shutdown.signal, stop.signal]);
      // The site (its origin), its host or its address gave no answer lately: check it answers
      // at all before holding the slots for the full deadlines (dead-targets.ts).
      const healthKeys = [...targetKeys, DeadTargets.originKey(job.target)];
      const quickCheckMs = await retried(() => deadTargets.checkFor(healthKeys)).catch(() => undefined);
      let result: Awaited<ReturnType<WorkerDeps["analyze"]>>;
      try {
        const siteAuth = job.siteAuth ? await this.openSiteAuth(job) : undefined;
        redact = redactor(siteAuthSecrets(siteAuth));
        const siteTls = job.siteTls;
        result = await this.deps.analyze(job.target, signal, {
          mode,
          requestsPerSecond: requestsPerSecond || undefined,
          aggressiveRequests,
          siteAuth,
          siteTls,
          ...(job.lab ? { lab: job.lab } : {}),
          quickCheckMs,
        });
      } catch (error) {
        if (stop.signal.aborted) return done("cancelled"); // the report was ended elsewhere
        let problem = toProblem(error);
        await this.noteAnswer(healthKeys, problem);
        if (
          problem?.code === "site_unreachable" &&
          quickCheckMs !== undefined &&
          problem.detail.startsWith(QUICK_CHECK_FAILED)
        )
          problem = deadTargetProblem(problem, quickCheckMs, deadTargets.settings.windowMs);
        if (!problem)
          this.deps.logger.error("analysis failed", { report_id: job.reportId, error: redactedError(error, redact) });
        if (error instanceof TargetNotAllowedError) logAllowlistHint(this.deps.logger, redact.text(error.message));
        const failure = problem ?? new ApiProblem("internal_error", "The analysis failed unexpectedly.");
        if (countsAsDeadSite(failure)) {
          // Counted per account and minute for admission (docs/plans.md, "Fair queues").
          await sql`insert into unreachable_failures (account_id) values (${job.accountId})`.catch(() => {});
        }
        await this.fail(row, job, redactedProblem(failure, redact), "analysis");
        return done(failure.code);
      }
      const limits = targetLimitsOf(result.target_limits, {
        host,
        waitedMs: job.targetWaitSince ? Math.max(0, startedAt - job.targetWaitSince) : 0,
        requestsPerSecond,
        aggressiveRequests,
        aggressiveWanted: this.deps.aggressiveMaxRequests,
      });
      await this.noteAnswer(healthKeys, "answered");
      const completed = completedReport(row.body, redact.deep({ ...result, target_limits: limits }), startedAt);
      await this.complete(row, job, completed);
      done("completed");
    } finally {
      // Thrown past every retry (the database stayed away): pg-boss runs the job again.
      if (!ended) finish("retried");
      this.running.delete(job.reportId);
    }
  }

  /**
   * Remembers whether the target answered: a `site_unreachable` for want of an answer in time
   * marks its keys for the quick check (dead-targets.ts); any answer clears them. Best effort:
   * a database that is away only costs the next analysis its quick check.
   */
  private async noteAnswer(keys: string[], outcome: "answered" | ApiProblem | undefined): Promise<void> {
    const { deadTargets } = this.deps;
    if (outcome === undefined) return; // an error of ours says nothing about the site
    const reason = outcome === "answered" ? undefined : outcome.options.extensions?.reason;
    const work =
      outcome === "answered"
        ? deadTargets.answered(keys)
        : outcome.code === "site_unreachable" && DeadTargets.isNoAnswer(reason)
          ? deadTargets.noAnswer(keys, reason as string)
          : Promise.resolve();
    await work.catch((error) => this.deps.logger.debug("dead target note failed", { error: (error as Error).message }));
  }

  /**
   * Stores a completed report and charges it if its client already knows of it (an async
   * report, or a synchronous one past its 202); otherwise the API charges it on delivery
   * (reports/charges.ts). An incomplete report is never charged: its credit goes back. A
   * database that stays away past DB_RETRY_MS fails the job, and pg-boss runs it again.
   */
  private async complete(row: ReportRow, job: AnalysisJob, report: Report): Promise<void> {
    const { sql, quota } = this.deps;
    const billable = !isIncomplete(report);
    await retried(() =>
      sql.begin(async (tx) => {
        const stored = await this.store(tx, report, null, billable);
        if (stored && billable) await settleCharge(tx, quota, report.id);
        if (stored) await this.ended(tx, row, job, { report, failure: null, billable });
        if (job.siteAuth) await this.deps.siteAuth?.discard(tx, job.reportId);
      }),
    );
    if (!billable && row.reservation_id) {
      const reservation = row.reservation_id;
      await retried(() => quota.release(reservation)).catch(() => {});
    }
  }

  private async fail(row: ReportRow, job: AnalysisJob, problem: ApiProblem, stage: string): Promise<void> {
    const failed = failedReport(row.body, problem, stage);
    try {
      await retried(() =>
        this.deps.sql.begin(async (tx) => {
          const stored = await this.store(tx, failed, problem, false);
          if (stored)
            await this.ended(tx, row, job, { report: failed, failure: storedFailure(problem), billable: false });
          if (job.siteAuth) await this.deps.siteAuth?.discard(tx, job.reportId);
        }),
      );
    } catch (error) {
      this.deps.logger.error("could not mark report failed; the sweeper will", { report_id: job.reportId, error });
    }
    // Idempotent: a credit already committed (or released) is not touched again.
    const reservation = row.reservation_id;
    if (reservation) await retried(() => this.deps.quota.release(reservation)).catch(() => {});
  }

  /** Tells the other features (events, monitors, site components) in the storing transaction. */
  private ended(
    tx: Transaction,
    row: ReportRow,
    job: AnalysisJob,
    outcome: { report: Report; failure: ReturnType<typeof storedFailure> | null; billable: boolean },
  ): Promise<void> {
    return this.deps.outcomes.ended(tx, { accountId: job.accountId, monitorId: row.monitor_id, ...outcome });
  }

  /** The report's sealed credentials; a report whose credentials cannot be opened fails (uncharged). */
  private async openSiteAuth(job: AnalysisJob): Promise<SiteAuth | undefined> {
    const opened = this.deps.siteAuth ? await this.deps.siteAuth.open(job.reportId) : undefined;
    if (opened?.kind === "open") return opened.auth;
    const why =
      opened?.kind === "unreadable"
        ? opened.why
        : opened
          ? "they are gone (the report was finished by another attempt, or swept)"
          : "this process has no SITE_AUTH_KEY";
    this.deps.logger.error("site credentials could not be opened", { report_id: job.reportId, reason: why });
    throw new ApiProblem(
      "internal_error",
      "The site credentials of this report could not be read by the worker (the service restarted or was reconfigured before the analysis started). Nothing was charged; send the request again.",
    );
  }

  /** Writes the final state if the report is still unfinished; false when another attempt (or a cancel) won. */
  private async store(tx: Queryable, report: Report, problem: ApiProblem | null, billable: boolean): Promise<boolean> {
    const rows = await tx`
      update reports set status = ${report.status}, score = ${report.summary?.score ?? null},
        grade = ${report.summary?.grade ?? null}, body = ${tx.json(report as never)},
        completed_at = ${report.completed_at}, billable = ${billable},
        failure = ${problem ? tx.json(storedFailure(problem) as never) : null}
      where id = ${report.id} and status in ('queued', 'running')
      returning id`;
    return rows.length > 0;
  }
}

/**
 * What a report of a dead target says: it gave no answer lately, and none to the quick check
 * either, so the analysis ended there (docs/target-policy.md, "Dead targets fail fast").
 */
function deadTargetProblem(problem: ApiProblem, checkMs: number, windowMs: number): ApiProblem {
  const detail = `${problem.detail} It gave no answer to the service's analyses in the last ${Math.round(windowMs / 1000)} s either, so this analysis made only that quick check instead of waiting for the full deadlines. Nothing was charged; try again once the site answers.`;
  return new ApiProblem(problem.code, detail, {
    ...problem.options,
    extensions: { ...problem.options.extensions, quick_check_ms: checkMs },
  });
}

/**
 * Failures the target caused count toward the account's dead-site limit (`unreachablePerMinute`):
 * a site that never answered, and one refused when analysed (a name that resolves to loopback
 * or a private address: `url_not_allowed`). Both are free, and both make a `report.failed`
 * event, so uncounted they were a free way to make the service send alerts (issue 30). The
 * service's own failures (internal errors, overload, a database away) are not the caller's.
 */
const SERVICE_FAILURES: ReadonlySet<string> = new Set([
  "internal_error",
  "overloaded",
  "unavailable",
  "report_cancelled",
]);
export function countsAsDeadSite(failure: ApiProblem): boolean {
  return !SERVICE_FAILURES.has(failure.code);
}

/** A database step that rides out a short outage (platform/db/transient.ts). */
function retried<T>(work: () => Promise<T>): Promise<T> {
  return retryTransient(work, { deadline: Date.now() + DB_RETRY_MS });
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
