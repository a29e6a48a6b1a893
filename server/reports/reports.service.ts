/**
 * Reports on the API side: generate (validate → check capacity → reserve a credit → store
 * the queued report → enqueue), wait for a worker to finish it when the caller wants the
 * result now, read, and the housekeeping that keeps credits honest when analyses die.
 *
 * The API process never analyses: workers do (server/queue/analysis-worker.ts), and store
 * the report and charge its credit in one short transaction at the end.
 */
import { REPORT_SCHEMA_VERSION, type Report, type ReportMetadata } from "../../shared/report.ts";
import type { AnalysisResult } from "../analyzer/analyze.ts";
import type { AnalysisMode } from "../analyzer/enumeration/plan.ts";
import type { TargetPolicy } from "../analyzer/fetch/target-policy.ts";
import { siteKey, validateTargetUrl } from "../analyzer/target-url.ts";
import type { Queryable, Sql } from "../db/database.ts";
import { ApiProblem } from "../http/problem.ts";
import {
  type IdempotencyService,
  isValidIdempotencyKey,
  requestFingerprint,
} from "../idempotency/idempotency.service.ts";
import { isId, newId } from "../lib/ids.ts";
import type { Logger } from "../logging/logger.ts";
import { getPlan, type PlanId } from "../plans/catalogue.ts";
import { FAIR_PRIORITY_BASE, type JobQueue } from "../queue/job-queue.ts";
import type { QueueMetrics } from "../queue/metrics.ts";
import type { QuotaService } from "../quota/quota.service.ts";
import { logAllowlistHint, problemFrom, type StoredFailure } from "./report-outcome.ts";

/**
 * Runs one analysis; `mode` "aggressive" adds the opt-in enumeration (docs/enumeration.md).
 * The per-target limits (queue/target-limits.ts) come with it: the pace of its requests and
 * the enumeration's request budget granted from the target's hour.
 */
export interface AnalyzeRequest {
  mode: AnalysisMode;
  /** Requests per second (absent: no pace). */
  requestsPerSecond?: number;
  /** Aggressive mode: requests the enumeration may make (absent: AGGRESSIVE_MAX_REQUESTS). */
  aggressiveRequests?: number;
}
export type AnalyzeFn = (url: string, signal: AbortSignal, request?: AnalyzeRequest) => Promise<AnalysisResult>;

export interface GenerateInput {
  url: string;
  metadata?: ReportMetadata;
  /** "passive" (default) or "aggressive". */
  mode?: AnalysisMode;
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
  /** Prefer: respond-async → answer 202 at once and analyse in the background. */
  respondAsync?: boolean;
  idempotencyKey?: string;
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
  queue: JobQueue;
  policy: TargetPolicy;
  /** Reports unfinished longer than this are failed by the sweeper (credit long released). */
  staleAfterMs: number;
  /** QUEUE_MAX_DEPTH: queued + running reports past which new ones are refused. */
  queueMaxDepth: number;
  /** SYNC_WAIT_MS: how long a synchronous call waits for its report before answering 202. */
  syncWaitMs: number;
  logger: Logger;
  metrics: QueueMetrics;
}

/** Retry-After of a refusal for a full account queue: about one short analysis. */
const QUEUE_FULL_RETRY_SECONDS = 10;

/** How often a waiting synchronous request looks at its report. */
const WAIT_POLL_MS = 150;

export class ReportService {
  private readonly shutdown = new AbortController();

  constructor(private readonly deps: ReportsDeps) {}

  async generate(caller: ReportCaller, input: GenerateInput, options: GenerateOptions = {}): Promise<GenerateOutcome> {
    const { idempotency } = this.deps;
    const key = options.idempotencyKey;
    if (key === undefined) return this.generateOnce(caller, input, options);

    if (!isValidIdempotencyKey(key)) {
      throw new ApiProblem("invalid_request", "Idempotency-Key must be 1–255 printable ASCII characters.");
    }
    const fingerprint = requestFingerprint({ ...input, respond_async: options.respondAsync === true });
    const claim = await idempotency.claim(caller.accountId, key, fingerprint);
    switch (claim.kind) {
      case "mismatch":
        throw new ApiProblem(
          "idempotency_key_reused",
          "This Idempotency-Key was already used with a different request body. Use a new key for a new request.",
        );
      case "in_progress":
        throw new ApiProblem(
          "idempotency_in_progress",
          "The first request with this Idempotency-Key is still running. Retry shortly to get its result.",
          { headers: { "retry-after": "2" } },
        );
      case "replay": {
        const report = await this.get(caller.accountId, claim.reportId);
        if (!report) throw new ApiProblem("not_found", "The report of this Idempotency-Key no longer exists.");
        return { status: claim.status === 202 ? 202 : 201, report, replayed: true };
      }
      case "new":
        break;
    }
    try {
      const outcome = await this.generateOnce(caller, input, options);
      await idempotency.complete(caller.accountId, key, outcome.status, outcome.report.id);
      return outcome;
    } catch (error) {
      await idempotency.abandon(caller.accountId, key).catch(() => {});
      throw error;
    }
  }

  private async generateOnce(
    caller: ReportCaller,
    input: GenerateInput,
    options: GenerateOptions,
  ): Promise<GenerateOutcome> {
    const verdict = validateTargetUrl(input.url, this.deps.policy);
    if (!verdict.ok) {
      if (verdict.byAddressPolicy) logAllowlistHint(this.deps.logger, verdict.detail);
      throw new ApiProblem(verdict.code, verdict.detail);
    }
    const target = verdict.url.toString();
    await this.assertCapacity();
    await this.assertReachableRecently(caller);

    const reservation = await this.deps.quota.reserve(caller.accountId);
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
      metadata: input.metadata ?? {},
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
      mode: input.mode ?? "passive",
      enumeration: null,
      installed_themes: [],
    };
    const { sql } = this.deps;
    try {
      // The report and its job are one transaction: after a crash there is either both or neither.
      await sql.begin(async (tx) => {
        // One admission of the account at a time: its count and its insert cannot interleave
        // with another's, so the plan's cap on queued reports is exact across API processes.
        await tx`select pg_advisory_xact_lock(hashtext(${`wpreport:admit:${caller.accountId}`}))`;
        const unfinished = await this.assertQueueRoom(tx, caller);
        await tx`
          insert into reports (id, account_id, url, site_key, status, metadata, body, created_at, reservation_id, target)
          values (${report.id}, ${caller.accountId}, ${report.url}, ${siteKey(verdict.url)}, 'queued',
                  ${tx.json(report.metadata as never)}, ${tx.json(report as never)}, ${report.created_at},
                  ${reservation.id}, ${target})`;
        const job = { reportId: report.id, accountId: caller.accountId, target, host: verdict.url.hostname };
        const mode = report.mode === "aggressive" ? { mode: report.mode } : {};
        // Fair order across accounts: this account's n-th unfinished report waits behind every
        // other account's first n − 1 (docs/plans.md, "Fair queues").
        const priority = FAIR_PRIORITY_BASE - unfinished;
        await this.deps.queue.send({ ...job, plan: caller.planId, priority, ...mode }, { tx });
      });
      this.deps.queue.wakeLocal?.();
    } catch (error) {
      await this.deps.quota.release(reservation.id).catch(() => {});
      throw error;
    }
    if (options.respondAsync) return { status: 202, report, replayed: false };

    const final = await this.waitFor(caller.accountId, report.id);
    if (final?.report.status === "completed") return { status: 201, report: final.report, replayed: false };
    if (final?.report.status === "failed") {
      // A synchronous call that produced no report leaves none behind: the caller gets the
      // problem (e.g. 422 site_unreachable), as if the analysis had run in this request.
      await sql`delete from reports where id = ${report.id} and status = 'failed'`;
      throw problemFrom(final.failure);
    }
    // Still queued or running at the deadline: the report finishes in the background.
    return { status: 202, report: final?.report ?? report, replayed: false };
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

  /** Polls the report until a worker finishes it, the sync deadline passes, or we shut down. */
  private async waitFor(
    accountId: string,
    reportId: string,
  ): Promise<{ report: Report; failure: StoredFailure | null } | undefined> {
    const deadline = Date.now() + this.deps.syncWaitMs;
    for (;;) {
      const [row] = await this.deps.sql<{ body: Report; failure: StoredFailure | null }[]>`
        select body, failure from reports where id = ${reportId} and account_id = ${accountId}`;
      if (!row) return undefined;
      const done = row.body.status === "completed" || row.body.status === "failed";
      if (done || Date.now() >= deadline || this.shutdown.signal.aborted)
        return { report: row.body, failure: row.failure };
      await Bun.sleep(WAIT_POLL_MS);
    }
  }

  /** 1-based place of a queued report in the service-wide queue (oldest first); undefined otherwise. */
  async queuePosition(reportId: string): Promise<number | undefined> {
    const [row] = await this.deps.sql<{ n: number | null }[]>`
      select (select count(*)::int from reports q
              where q.status = 'queued' and (q.created_at, q.id) <= (r.created_at, r.id)) as n
      from reports r where r.id = ${reportId} and r.status = 'queued'`;
    return row?.n ?? undefined;
  }

  async get(accountId: string, reportId: string): Promise<Report | undefined> {
    if (!isId("rep", reportId)) return undefined;
    const [row] = await this.deps.sql<{ body: Report }[]>`
      select body from reports where id = ${reportId} and account_id = ${accountId}`;
    return row?.body;
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
    const rows = await this.deps.sql`
      update reports set
        status = 'failed', completed_at = now(), failure = ${this.deps.sql.json(stored as never)},
        body = body || jsonb_build_object('status', 'failed', 'completed_at', to_jsonb(now()), 'errors', ${this.deps.sql.json(failure)}::jsonb)
      where status in ('queued', 'running') and created_at < now() - ${this.deps.staleAfterMs} * interval '1 millisecond'
      returning id`;
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
