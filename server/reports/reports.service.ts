/**
 * Reports on the API side: generate (validate → check capacity → reserve a credit → store
 * the queued report, its job and its Idempotency-Key binding → enqueue), wait for a worker to
 * finish it when the caller wants the result now, deliver it (charges.ts), read, cancel, and
 * the housekeeping that keeps credits honest when analyses die.
 *
 * The API process never analyses: workers do (server/reports/analysis-worker.ts). A report is
 * charged once, when it has completed and its client could learn of it (docs/plans.md, "What is
 * charged"): an async report at its 202, a synchronous one when its 201 (or 202 past
 * SYNC_WAIT_MS) is sent, or its client hung up with an Idempotency-Key — not when the service
 * answered 503 or could not answer at all.
 */
import { DEFAULT_ANALYSIS_MODE, REPORT_SCHEMA_VERSION, type Report, type ReportMetadata } from "../../shared/report.ts";
import { redactor, type SiteAuth, siteAuthProblems, siteAuthSecrets } from "../../shared/site-auth.ts";
import type { IdempotencyService } from "../access/idempotency.service.ts";
import { type KeyClaim, withIdempotencyKey } from "../access/idempotent-request.ts";
import type { AnalysisResult } from "../analyzer/analyze.ts";
import type { TargetPolicy } from "../analyzer/fetch/target-policy.ts";
import { siteKey, validateTargetUrl } from "../analyzer/target-url.ts";
import { getPlan, type PlanId } from "../billing/plans.ts";
import type { QuotaService } from "../billing/quota.service.ts";
import type { Queryable, Sql } from "../platform/db/database.ts";
import { isTransientDbError, retryTransient } from "../platform/db/transient.ts";
import { unavailableProblem } from "../platform/http/errors.plugin.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { isId, newId } from "../platform/ids.ts";
import type { Logger } from "../platform/logger.ts";
import type { ServiceMetrics } from "../platform/prometheus.ts";
import { type AnalysisQueue, FAIR_PRIORITY_BASE } from "./analysis-queue.ts";
import { deliverReport } from "./charges.ts";
import type { ReportDeadlines } from "./deadlines.ts";
import { freeQueueCap, isFreePlan } from "./plan-shares.ts";
import type { ReportOptions } from "./report-options.ts";
import { cancelledFailure, logAllowlistHint, problemFrom, type StoredFailure } from "./report-outcome.ts";
import type { ReportOutcomes } from "./report-outcomes.ts";
import type { SiteAuthVault } from "./site-auth-vault.ts";

/**
 * Runs one analysis with the report's options: `mode` "aggressive" adds the opt-in enumeration
 * (docs/enumeration.md); `siteAuth`, opened by the worker for this analysis only, opens a
 * protected site (sent to the URL's origin only). The per-target limits
 * (reports/target-limits.ts) come with them: the pace of its requests and the enumeration's
 * request budget granted from the target's hour.
 */
export interface AnalyzeRequest extends ReportOptions {
  /** Requests the analysis may start in any one second (absent: no pace). */
  requestsPerSecond?: number;
  /** Aggressive mode: requests the enumeration may make (absent: AGGRESSIVE_MAX_REQUESTS). */
  aggressiveRequests?: number;
  /** The target gave no answer lately: a quick check's deadline first (reports/dead-targets.ts). */
  quickCheckMs?: number;
}
export type AnalyzeFn = (url: string, signal: AbortSignal, request: AnalyzeRequest) => Promise<AnalysisResult>;

export interface GenerateInput {
  url: string;
  metadata?: ReportMetadata;
  /** Read from the request by parseReportOptions; credentials are sealed for the worker, never stored readable. */
  options: ReportOptions;
}

/**
 * Whom a report is generated for, and all that generating it reads about them: the plan
 * (the queue groups an account's analyses by it, for the plan's concurrency) and the monthly
 * quota (told in a quota_exhausted answer). The API passes the token's principal, the web
 * builds it from the signed-in account.
 */
export interface ReportCaller {
  accountId: string;
  planId: PlanId;
  monthlyQuota: number;
}

export interface GenerateOptions {
  /** Prefer: respond-async → answer 202 at once and analyze in the background. */
  respondAsync?: boolean;
  idempotencyKey?: string;
  /**
   * Aborted when the client goes away (the request's signal). A synchronous call then stops
   * waiting: without an Idempotency-Key its report is cancelled (nobody can learn of it), with
   * one it goes on, delivered: charged when it completes (a retry with the key replays it).
   */
  signal?: AbortSignal;
  /** The monitor whose run this is (reports.monitor_id): its report events name it. */
  monitorId?: string;
}

export interface GenerateOutcome {
  status: 201 | 202;
  report: Report;
  /** True when this answer replays an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

interface ReportsDeps {
  sql: Sql;
  quota: QuotaService;
  idempotency: IdempotencyService;
  queue: AnalysisQueue;
  policy: TargetPolicy;
  /**
   * The deadlines of each kind of report: its credit is held, and its sealed site credentials
   * kept, for its kind's holdMs; the sweeper fails it once that has passed.
   */
  deadlines: ReportDeadlines;
  /** QUEUE_MAX_DEPTH: queued + running reports past which new ones are refused. */
  queueMaxDepth: number;
  /** SYNC_WAIT_MS: how long a synchronous call waits for its report before answering 202. */
  syncWaitMs: number;
  logger: Logger;
  metrics: ServiceMetrics;
  /** Seals site credentials for the worker; undefined → requests with site_auth are refused (501). */
  siteAuth: SiteAuthVault | undefined;
  /** Told of reports the sweeper fails (report-outcomes.ts); the worker tells of the rest. */
  outcomes: ReportOutcomes;
}

/** Retry-After of a refusal for a full account queue: about one short analysis. */
const QUEUE_FULL_RETRY_SECONDS = 10;

/** How often a waiting synchronous request looks at its report. */
const WAIT_POLL_MS = 150;
/** How long delivering a finished report may retry a database that is briefly away. */
const DELIVERY_RETRY_MS = 10_000;

/** How a synchronous wait ended. */
type Waited =
  | { kind: "finished" | "deadline"; report: Report; failure: StoredFailure | null }
  | { kind: "gone" }
  | { kind: "missing" };

export class ReportService {
  private readonly shutdown = new AbortController();

  constructor(private readonly deps: ReportsDeps) {}

  /** With an Idempotency-Key (access/idempotent-request.ts), the key is bound in the report's transaction. */
  async generate(caller: ReportCaller, input: GenerateInput, options: GenerateOptions = {}): Promise<GenerateOutcome> {
    return withIdempotencyKey(
      this.deps.idempotency,
      {
        accountId: caller.accountId,
        key: options.idempotencyKey,
        // A monitor's run is its own request: its key never replays another route's report of the same URL.
        identity: {
          ...requestIdentity(input),
          respond_async: options.respondAsync === true,
          ...(options.monitorId ? { monitor_id: options.monitorId } : {}),
        },
      },
      {
        run: (claim) => this.generateOnce(caller, input, options, claim),
        replay: (bound) => this.replay(caller, bound.reportId, bound.respondAsync, options),
      },
    );
  }

  private async generateOnce(
    caller: ReportCaller,
    input: GenerateInput,
    options: GenerateOptions,
    claim: KeyClaim | undefined,
  ): Promise<GenerateOutcome> {
    const verdict = validateTargetUrl(input.url, this.deps.policy);
    if (!verdict.ok) {
      if (verdict.byAddressPolicy) logAllowlistHint(this.deps.logger, verdict.detail);
      throw new ApiProblem(verdict.code, verdict.detail);
    }
    const target = verdict.url.toString();
    const siteAuth = this.checkSiteAuth(input.options.siteAuth);
    await this.assertCapacity();
    await this.assertReachableRecently(caller);

    const { holdMs } = this.deps.deadlines.of(input.options);
    const reservation = await this.deps.quota.reserve(caller.accountId, holdMs);
    if (!reservation) throw await this.quotaExhausted(caller);

    const report: Report = {
      id: newId("rep"),
      schema_version: REPORT_SCHEMA_VERSION,
      status: "queued",
      url: input.url,
      final_url: null,
      redirects: [],
      created_at: new Date().toISOString(),
      completed_at: null,
      duration_ms: null,
      // A secret pasted into the metadata too is not kept there either.
      metadata: redactor(siteAuthSecrets(siteAuth)).deep(input.metadata ?? {}),
      summary: null,
      wordpress: null,
      theme: null,
      plugins: [],
      hosting: null,
      performance: null,
      seo: null,
      security: null,
      checks: [],
      errors: [],
      intel: null,
      mode: input.options.mode,
      enumeration: null,
      installed_themes: [],
    };
    const { sql } = this.deps;
    const respondAsync = options.respondAsync === true;
    try {
      // The report, its job and its key's binding are one transaction: after a crash there is
      // either all or none. An async report is delivered by the 202 that follows at once.
      await sql.begin(async (tx) => {
        // One admission of the account at a time: its count and its insert cannot interleave
        // with another's, so the plan's cap on queued reports is exact across API processes.
        await tx`select pg_advisory_xact_lock(hashtext(${`wpreport:admit:${caller.accountId}`}))`;
        const unfinished = await this.assertQueueRoom(tx, caller);
        await this.assertFreeShare(tx, caller);
        await tx`
          insert into reports (id, account_id, url, site_key, status, metadata, body, created_at, reservation_id,
                               target, delivered_at, idempotency_key, monitor_id, stale_at, lab)
          values (${report.id}, ${caller.accountId}, ${report.url}, ${siteKey(verdict.url)}, 'queued',
                  ${tx.json(report.metadata as never)}, ${tx.json(report as never)}, ${report.created_at},
                  ${reservation.id}, ${target}, ${respondAsync ? new Date() : null}, ${claim?.key ?? null},
                  ${options.monitorId ?? null}, ${new Date(Date.parse(report.created_at) + holdMs)},
                  ${input.options.lab !== undefined})`;
        if (claim) await this.deps.idempotency.bind(tx, claim, report.id, respondAsync);
        const job = {
          reportId: report.id,
          accountId: caller.accountId,
          target,
          host: verdict.url.hostname,
          mode: input.options.mode,
          ...(input.options.siteTls ? { siteTls: input.options.siteTls } : {}),
          ...(input.options.lab ? { lab: input.options.lab } : {}),
        };
        if (siteAuth) {
          // Sealed beside the report; the job only says there is something to open (no secret in it).
          const expiresAt = new Date(Date.now() + holdMs);
          await this.deps.siteAuth?.seal(tx, report.id, siteAuth, expiresAt);
        }
        const sealed = siteAuth ? { siteAuth: true } : {};
        // Fair order across accounts: this account's n-th unfinished report waits behind every
        // other account's first n − 1 (docs/plans.md, "Fair queues").
        const priority = FAIR_PRIORITY_BASE - unfinished;
        await this.deps.queue.send({ ...job, plan: caller.planId, priority, ...sealed }, { tx });
      });
      this.deps.queue.wakeLocal?.();
    } catch (error) {
      await this.deps.quota.release(reservation.id).catch(() => {});
      throw error;
    }
    if (respondAsync) return { status: 202, report, replayed: false };
    return this.awaitReport(caller.accountId, report, options, { keyed: claim !== undefined, replayed: false });
  }

  /** A repeat of a request whose Idempotency-Key is bound to a report: that report, never another. */
  private async replay(
    caller: ReportCaller,
    reportId: string,
    respondAsync: boolean,
    options: GenerateOptions,
  ): Promise<GenerateOutcome> {
    const report = await this.get(caller.accountId, reportId);
    if (!report) throw reportGoneProblem();
    if (respondAsync) return { status: 202, report, replayed: true };
    return this.awaitReport(caller.accountId, report, options, { keyed: true, replayed: true });
  }

  /**
   * A synchronous call: waits for the report (up to SYNC_WAIT_MS), then delivers it — 201
   * when it completed, 202 with its Location while it still runs — or answers the problem
   * that failed it. A database that is briefly away does not end the wait.
   */
  private async awaitReport(
    accountId: string,
    report: Report,
    options: GenerateOptions,
    how: { keyed: boolean; replayed: boolean },
  ): Promise<GenerateOutcome> {
    const waited = await this.waitFor(accountId, report.id, Date.now() + this.deps.syncWaitMs, options.signal);
    switch (waited.kind) {
      case "missing":
        // Another request with the same key saw the report fail and removed it (a synchronous
        // call leaves no failed report behind) — typically during a database storm that failed
        // the analysis. Not a 404: the request was interrupted, and a retry with the key starts
        // afresh (issue 30).
        throw reportGoneProblem();
      case "gone":
        await this.clientWentAway(accountId, report.id, how.keyed);
        throw new ApiProblem("unavailable", "The client closed the connection before the report was ready.");
      case "finished":
        if (waited.report.status === "failed") {
          // A synchronous call that produced no report leaves none behind: the caller gets the
          // problem (e.g. 422 site_unreachable), as if the analysis had run in this request. A
          // cancelled report stays: whoever cancelled it was answered with it.
          if (waited.failure?.code !== "report_cancelled")
            await this.deps.sql`delete from reports where id = ${report.id} and status = 'failed'`.catch(() => {});
          throw problemFrom(waited.failure);
        }
        await this.deliver(accountId, report.id);
        return { status: 201, report: waited.report, replayed: how.replayed };
      case "deadline":
        // Still queued or running: the report finishes in the background; the 202 delivers it.
        await this.deliver(accountId, report.id);
        return { status: 202, report: waited.report, replayed: how.replayed };
    }
  }

  /**
   * The client of a synchronous call closed the connection before its report was ready
   * (docs/decisions.md, "A client that hangs up pays for what it asked"). Without a key nobody
   * can ever learn of the report: it is cancelled, uncharged. With one, the client asked and
   * the analysis goes on: the report is delivered now, so it is charged when it completes —
   * as every view (the portfolio, webhooks, the client report) shows it then; a retry with the
   * key replays it without a second charge. A report that completed while the cancel was on
   * its way is delivered and charged too.
   */
  private async clientWentAway(accountId: string, reportId: string, keyed: boolean): Promise<void> {
    if (!keyed) {
      const cancelled = await this.cancel(accountId, reportId, "the client closed the connection").then(
        () => true,
        (error) => !(error instanceof ApiProblem && error.code === "report_already_finished"),
      );
      if (cancelled) return;
    }
    await this.deliver(accountId, reportId).catch((error) =>
      this.deps.logger.warn("a report whose client went away could not be delivered", { report_id: reportId, error }),
    );
  }

  /** Marks the report delivered (and charges it if completed), riding out a short database outage. */
  private async deliver(accountId: string, reportId: string): Promise<void> {
    const { sql, quota } = this.deps;
    try {
      await retryTransient(() => deliverReport(sql, quota, accountId, reportId), {
        deadline: Date.now() + DELIVERY_RETRY_MS,
      });
    } catch (error) {
      // Not delivered, so not charged; a retry with the Idempotency-Key delivers it later.
      if (isTransientDbError(error)) throw unavailableProblem();
      throw error;
    }
  }

  /**
   * The request's site credentials, checked (the header allowlist, value characters) and with a
   * way to the worker; undefined when there are none. Problems never quote a value.
   */
  private checkSiteAuth(auth: SiteAuth | undefined): SiteAuth | undefined {
    if (!auth) return undefined;
    const problems = siteAuthProblems(auth);
    if (problems.length > 0) {
      const errors = problems.map((problem) => ({
        location: "body",
        pointer: `/site_auth${problem.pointer}`,
        detail: problem.detail,
      }));
      throw new ApiProblem(
        "invalid_request",
        `site_auth${problems[0]?.pointer.replaceAll("/", ".")} ${problems[0]?.detail}.`,
        { extensions: { errors } },
      );
    }
    if (!this.deps.siteAuth) {
      this.deps.logger.warn("site credentials refused: SITE_AUTH_KEY is not set", {
        hint: "set SITE_AUTH_KEY (32 random bytes, e.g. openssl rand -base64 32) to the same value on every API and worker process",
      });
      throw new ApiProblem(
        "site_auth_unavailable",
        "This service is not set up to analyze sites with credentials (site_auth); ask its operator. Nothing was charged.",
      );
    }
    return auth;
  }

  /**
   * A Free account's report is admitted only while Free accounts together have fewer than
   * their share of QUEUE_MAX_DEPTH unfinished (plan-shares.ts), so that a flood of Free
   * accounts never takes the paying plans' room. Free admissions take one shared lock, so the
   * count and the insert cannot interleave across API processes: the share is exact.
   */
  private async assertFreeShare(tx: Queryable, caller: ReportCaller): Promise<void> {
    if (!isFreePlan(caller.planId)) return;
    await tx`select pg_advisory_xact_lock(hashtext('wpreport:admit:free-share'))`;
    const [row] = await tx<{ n: number }[]>`
      select count(*)::int as n from reports r join accounts a on a.id = r.account_id
      where r.status in ('queued', 'running') and a.plan_id = 'free'`;
    const cap = freeQueueCap(this.deps.queueMaxDepth);
    if ((row?.n ?? 0) < cap) return;
    this.deps.metrics.overloaded();
    throw new ApiProblem(
      "overloaded",
      `Free accounts have ${cap} analyses waiting across the service, the most they may have together (paying plans keep the rest of the queue). Nothing was charged; retry after the Retry-After delay, or upgrade the plan.`,
      { headers: { "retry-after": "30" }, extensions: { retry_after: 30, limit: "free_queue_share" } },
    );
  }

  /** Refuses new work, before any credit is taken, when too much is waiting already. */
  private async assertCapacity(): Promise<void> {
    const [row] = await this.deps.sql<{ n: number }[]>`
      select count(*)::int as n from reports where status in ('queued', 'running')`;
    if ((row?.n ?? 0) < this.deps.queueMaxDepth) return;
    this.deps.metrics.overloaded();
    throw new ApiProblem(
      "overloaded",
      "Too many analyses are waiting across the service. Nothing was charged; retry after the Retry-After delay.",
      { headers: { "retry-after": "30" }, extensions: { retry_after: 30 } },
    );
  }

  /**
   * The plan's cap on an account's queued and running reports (Plan.maxQueued), checked under
   * the account's admission lock. Returns how many the account has unfinished.
   */
  private async assertQueueRoom(tx: Queryable, caller: ReportCaller): Promise<number> {
    const plan = getPlan(caller.planId);
    const [row] = await tx<{ n: number }[]>`
      select count(*)::int as n from reports
      where account_id = ${caller.accountId} and status in ('queued', 'running')`;
    const unfinished = row?.n ?? 0;
    if (unfinished < plan.maxQueued) return unfinished;
    throw new ApiProblem(
      "rate_limited",
      `This account has ${unfinished} reports queued or running, the most the ${plan.name} plan allows at once. Nothing was charged; retry when one has finished.`,
      {
        headers: { "retry-after": String(QUEUE_FULL_RETRY_SECONDS) },
        extensions: { retry_after: QUEUE_FULL_RETRY_SECONDS, limit: "queued_reports", max_queued: plan.maxQueued },
      },
    );
  }

  /**
   * Reports of sites that never answered cost nothing, but each holds a worker until the
   * analysis deadline: past the plan's number of them in the last minute, new reports wait.
   */
  private async assertReachableRecently(caller: ReportCaller): Promise<void> {
    const plan = getPlan(caller.planId);
    const [row] = await this.deps.sql<{ n: number; oldest_ms: number | null }[]>`
      select count(*)::int as n,
        (extract(epoch from (now() - min(failed_at))) * 1000)::float8 as oldest_ms
      from unreachable_failures
      where account_id = ${caller.accountId} and failed_at > now() - interval '1 minute'`;
    if ((row?.n ?? 0) < plan.unreachablePerMinute) return;
    const retryAfter = Math.max(1, Math.ceil((60_000 - (row?.oldest_ms ?? 0)) / 1000));
    throw new ApiProblem(
      "rate_limited",
      `${row?.n} reports of this account failed in the last minute because the site never answered (the ${plan.name} plan allows ${plan.unreachablePerMinute}). Nothing was charged; check the sites are up, and retry after the Retry-After delay.`,
      {
        headers: { "retry-after": String(retryAfter) },
        extensions: {
          retry_after: retryAfter,
          limit: "unreachable_per_minute",
          unreachable_per_minute: plan.unreachablePerMinute,
        },
      },
    );
  }

  /** Drops the per-minute and per-hour counters that no limit reads any more (the sweeper). */
  async sweepLimits(): Promise<void> {
    await this.deps.sql`delete from unreachable_failures where failed_at < now() - interval '1 minute'`;
    await this.deps.sql`delete from target_hourly_requests where hour < date_trunc('hour', now())`;
  }

  /**
   * Polls the report until a worker finishes it, the deadline passes, the client goes away or
   * we shut down. Transient database errors (dropped connections, a lock past lock_timeout)
   * are waited out until the deadline.
   */
  private async waitFor(accountId: string, reportId: string, deadline: number, signal?: AbortSignal): Promise<Waited> {
    for (;;) {
      if (signal?.aborted) return { kind: "gone" };
      let row: { body: Report; failure: StoredFailure | null } | undefined;
      try {
        [row] = await this.deps.sql<{ body: Report; failure: StoredFailure | null }[]>`
          select body, failure from reports where id = ${reportId} and account_id = ${accountId}`;
        if (!row) return { kind: "missing" };
      } catch (error) {
        if (!isTransientDbError(error) || Date.now() >= deadline) throw error;
      }
      if (row) {
        const done = row.body.status === "completed" || row.body.status === "failed";
        if (done) return { kind: "finished", report: row.body, failure: row.failure };
        if (Date.now() >= deadline || this.shutdown.signal.aborted)
          return { kind: "deadline", report: row.body, failure: row.failure };
      }
      await sleep(WAIT_POLL_MS, signal);
    }
  }

  /**
   * 1-based place of a queued report in the service-wide queue it waits on (oldest first):
   * lab reports and the others have queues of their own, so neither counts the other's.
   */
  async queuePosition(reportId: string): Promise<number | undefined> {
    const [row] = await this.deps.sql<{ n: number | null }[]>`
      select (select count(*)::int from reports q
              where q.status = 'queued' and q.lab = r.lab and (q.created_at, q.id) <= (r.created_at, r.id)) as n
      from reports r where r.id = ${reportId} and r.status = 'queued'`;
    return row?.n ?? undefined;
  }

  /**
   * A report of the account, by id. Whoever reads a report by its id has learnt of it: one not
   * delivered yet (its synchronous call got no answer) is delivered now, and charged if it
   * completed.
   */
  async get(accountId: string, reportId: string): Promise<Report | undefined> {
    if (!isId("rep", reportId)) return undefined;
    const [row] = await this.deps.sql<{ body: Report; delivered: boolean }[]>`
      select body, delivered_at is not null as delivered from reports
      where id = ${reportId} and account_id = ${accountId}`;
    if (row && !row.delivered) await deliverReport(this.deps.sql, this.deps.quota, accountId, reportId);
    return row?.body;
  }

  /**
   * POST /api/report/{id}/cancel: a queued or running report ends as failed (errors[].kind
   * "cancelled"), uncharged, its credit returned; the worker running it stops within a second
   * or two. Cancelling a cancelled report answers it again; a finished one is a 409.
   */
  async cancel(accountId: string, reportId: string, reason = "cancelled by the client"): Promise<Report> {
    if (!isId("rep", reportId)) throw new ApiProblem("not_found", "There is no report with this id in your account.");
    const { sql } = this.deps;
    const failure = cancelledFailure(reason);
    // The report's end and its credit's return commit together: nobody sees a cancelled report
    // whose credit is still held, and a failed return does not leave the report running.
    const row = await sql.begin(async (tx) => {
      const [ended] = await tx<{ body: Report; reservation_id: string | null }[]>`
        update reports set
          status = 'failed', completed_at = now(), failure = ${tx.json(failure.stored as never)},
          delivered_at = coalesce(delivered_at, now()),
          body = body || jsonb_build_object('status', 'failed', 'completed_at', to_jsonb(now()),
                                            'errors', ${tx.json(failure.errors as never)}::jsonb)
        where id = ${reportId} and account_id = ${accountId} and status in ('queued', 'running')
        returning body, reservation_id`;
      if (ended?.reservation_id) await this.deps.quota.release(ended.reservation_id, tx);
      return ended;
    });
    if (row) {
      this.deps.logger.info("report cancelled", { report_id: reportId, reason });
      return row.body;
    }
    const [current] = await sql<{ body: Report }[]>`
      select body from reports where id = ${reportId} and account_id = ${accountId}`;
    if (!current) throw new ApiProblem("not_found", "There is no report with this id in your account.");
    if (current.body.errors.some((error) => error.kind === "cancelled")) return current.body;
    throw new ApiProblem(
      "report_already_finished",
      `The report already ${current.body.status === "completed" ? "completed" : "failed"}; only a queued or running report can be cancelled.`,
      { extensions: { status: current.body.status } },
    );
  }

  /** Marks reports that outlived every deadline (crashed workers, lost jobs) as failed. */
  async sweepStale(): Promise<number> {
    const failure = [
      { stage: "analysis", kind: "interrupted", message: "the analysis was interrupted and did not finish" },
    ];
    const stored: StoredFailure = {
      code: "internal_error",
      detail: "The analysis was interrupted and did not finish.",
    };
    // One transaction: the reports it fails and what the other features learn of them commit together.
    const rows = await this.deps.sql.begin(async (tx) => {
      const swept = await tx<{ account_id: string; monitor_id: string | null; body: Report }[]>`
        update reports set
          status = 'failed', completed_at = now(), failure = ${tx.json(stored as never)},
          body = body || jsonb_build_object('status', 'failed', 'completed_at', to_jsonb(now()), 'errors', ${tx.json(failure)}::jsonb)
        where status in ('queued', 'running')
          and coalesce(stale_at, created_at + ${this.deps.deadlines.lab.holdMs} * interval '1 millisecond') < now()
        returning account_id, monitor_id, body`;
      for (const row of swept) {
        await this.deps.outcomes.ended(tx, {
          accountId: row.account_id,
          report: row.body,
          failure: stored,
          monitorId: row.monitor_id,
          billable: false,
        });
      }
      return swept;
    });
    // Sealed site credentials never outlive their report's analysis (a crash could leave some).
    await this.deps.siteAuth?.sweep();
    return rows.length;
  }

  /** Graceful shutdown: waiting synchronous requests answer now (202, their report continues). */
  async drain(): Promise<void> {
    this.shutdown.abort();
  }

  private async quotaExhausted(caller: ReportCaller): Promise<ApiProblem> {
    const usage = await this.deps.quota.usage(caller.accountId, caller.monthlyQuota);
    const resetsAt = usage.period.end.toISOString();
    return new ApiProblem(
      "quota_exhausted",
      `All ${usage.quota} reports of this month's quota are used. The quota resets at ${resetsAt}; upgrade the plan for more.`,
      { extensions: { quota: usage.quota, used: usage.used, in_progress: usage.reserved, resets_at: resetsAt } },
    );
  }
}

/**
 * What makes two requests the same for an Idempotency-Key: the URL, the metadata and the mode,
 * as the request's body named them before options were parsed — a request that names the default
 * mode is the one that names none. Site credentials are not part of it: a hash of them would be a
 * trace of them in the database (and rotating a secret between retries is no new request).
 */
function requestIdentity(input: GenerateInput): Record<string, unknown> {
  const { mode, lab } = input.options;
  return {
    url: input.url,
    metadata: input.metadata,
    ...(mode !== DEFAULT_ANALYSIS_MODE ? { mode } : {}),
    ...(lab ? { lab } : {}),
  };
}

/** The report a request waited for (or whose key it replays) was removed after failing: retry with the key. */
function reportGoneProblem(): ApiProblem {
  return new ApiProblem(
    "unavailable",
    "The analysis of this request failed and was ended by another request with the same Idempotency-Key. Nothing was charged; retry with the key to start it again.",
    { headers: { "retry-after": "5" }, extensions: { retry_after: 5 } },
  );
}

/** Bun.sleep that ends early when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return Bun.sleep(ms);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
