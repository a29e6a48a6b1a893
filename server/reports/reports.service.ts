/**
 * Reports: generate (validate → reserve credit → analyse → store + charge), read, and
 * the housekeeping that keeps credits honest when analyses die.
 *
 * No transaction is ever held open across the network work of an analysis; storing the
 * report and charging its credit is one short transaction at the end.
 */
import { REPORT_SCHEMA_VERSION, type Report, type ReportMetadata } from "../../shared/report.ts";
import type { AnalysisResult } from "../analyzer/analyze.ts";
import { SiteUnreachableError, TargetNotAllowedError } from "../analyzer/errors.ts";
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
import type { QuotaService, Reservation } from "../quota/quota.service.ts";
import { RESERVATION_GRACE_MS } from "../quota/quota.service.ts";
import type { Principal } from "../tokens/token.service.ts";

export type AnalyzeFn = (url: string, signal: AbortSignal) => Promise<AnalysisResult>;

export interface GenerateInput {
  url: string;
  metadata?: ReportMetadata;
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
  analyze: AnalyzeFn;
  policy: TargetPolicy;
  analysisTimeoutMs: number;
  logger: Logger;
}

export class ReportService {
  private readonly background = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();

  constructor(private readonly deps: ReportsDeps) {}

  async generate(principal: Principal, input: GenerateInput, options: GenerateOptions = {}): Promise<GenerateOutcome> {
    const { idempotency } = this.deps;
    const key = options.idempotencyKey;
    if (key === undefined) return this.generateOnce(principal, input, options);

    if (!isValidIdempotencyKey(key)) {
      throw new ApiProblem("invalid_request", "Idempotency-Key must be 1–255 printable ASCII characters.");
    }
    const fingerprint = requestFingerprint({ ...input, respond_async: options.respondAsync === true });
    const claim = await idempotency.claim(principal.accountId, key, fingerprint);
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
        const report = await this.get(principal.accountId, claim.reportId);
        if (!report) throw new ApiProblem("not_found", "The report of this Idempotency-Key no longer exists.");
        return { status: claim.status === 202 ? 202 : 201, report, replayed: true };
      }
      case "new":
        break;
    }
    try {
      const outcome = await this.generateOnce(principal, input, options);
      await idempotency.complete(principal.accountId, key, outcome.status, outcome.report.id);
      return outcome;
    } catch (error) {
      await idempotency.abandon(principal.accountId, key).catch(() => {});
      throw error;
    }
  }

  private async generateOnce(
    principal: Principal,
    input: GenerateInput,
    options: GenerateOptions,
  ): Promise<GenerateOutcome> {
    const verdict = validateTargetUrl(input.url, this.deps.policy);
    if (!verdict.ok) throw new ApiProblem(verdict.code, verdict.detail);
    const target = verdict.url.toString();

    const reservation = await this.deps.quota.reserve(principal.accountId);
    if (!reservation) throw await this.quotaExhausted(principal);

    const report: Report = {
      id: newId("rep"),
      schema_version: REPORT_SCHEMA_VERSION,
      status: options.respondAsync ? "queued" : "running",
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
    };
    const owner = { accountId: principal.accountId, siteKey: siteKey(verdict.url) };

    if (options.respondAsync) {
      try {
        await this.insertWith(this.deps.sql, report, owner);
      } catch (error) {
        await this.deps.quota.release(reservation.id);
        throw error;
      }
      this.track(this.runInBackground(report, target, reservation));
      return { status: 202, report, replayed: false };
    }

    try {
      const result = await this.runAnalysis(target);
      const completed = this.complete(report, result);
      await this.deps.sql.begin(async (tx) => {
        await this.insertWith(tx, completed, owner);
        await this.deps.quota.commit(tx, reservation.id);
      });
      return { status: 201, report: completed, replayed: false };
    } catch (error) {
      await this.deps.quota.release(reservation.id).catch((releaseError) => {
        this.deps.logger.error("could not release credit; the sweeper will", {
          reservation_id: reservation.id,
          error: releaseError,
        });
      });
      throw toProblem(error) ?? error;
    }
  }

  async get(accountId: string, reportId: string): Promise<Report | undefined> {
    if (!isId("rep", reportId)) return undefined;
    const [row] = await this.deps.sql<{ body: Report }[]>`
      select body from reports where id = ${reportId} and account_id = ${accountId}`;
    return row?.body;
  }

  /** Marks analyses that outlived their deadline (crashed process) as failed. */
  async sweepStale(): Promise<number> {
    const staleMs = this.deps.analysisTimeoutMs + RESERVATION_GRACE_MS;
    const failure = [
      { stage: "analysis", kind: "interrupted", message: "the analysis was interrupted and did not finish" },
    ];
    const rows = await this.deps.sql`
      update reports set
        status = 'failed', completed_at = now(),
        body = body || jsonb_build_object('status', 'failed', 'completed_at', to_jsonb(now()), 'errors', ${this.deps.sql.json(failure)}::jsonb)
      where status in ('queued', 'running') and created_at < now() - ${staleMs} * interval '1 millisecond'
      returning id`;
    return rows.length;
  }

  /** Waits for background analyses (graceful shutdown); aborts them after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    const all = Promise.allSettled([...this.background]);
    const timer = setTimeout(() => this.shutdown.abort(), timeoutMs);
    await all;
    clearTimeout(timer);
  }

  private async runAnalysis(target: string): Promise<AnalysisResult> {
    const signal = AbortSignal.any([AbortSignal.timeout(this.deps.analysisTimeoutMs), this.shutdown.signal]);
    return this.deps.analyze(target, signal);
  }

  private complete(report: Report, result: AnalysisResult): Report {
    const completedAt = new Date();
    return {
      ...report,
      ...result,
      status: "completed",
      completed_at: completedAt.toISOString(),
      duration_ms: Math.max(0, completedAt.getTime() - Date.parse(report.created_at)),
    };
  }

  private async runInBackground(report: Report, target: string, reservation: Reservation): Promise<void> {
    const { sql, quota, logger } = this.deps;
    try {
      await sql`update reports set status = 'running', body = jsonb_set(body, '{status}', '"running"') where id = ${report.id}`;
      const result = await this.runAnalysis(target);
      const completed = this.complete(report, result);
      await sql.begin(async (tx) => {
        await this.updateWith(tx, completed);
        await quota.commit(tx, reservation.id);
      });
    } catch (error) {
      await quota.release(reservation.id).catch(() => {});
      let problem = toProblem(error);
      if (!problem) {
        logger.error("background analysis failed", { report_id: report.id, error });
        problem = new ApiProblem("internal_error", "The analysis failed unexpectedly.");
      }
      const failed: Report = {
        ...report,
        status: "failed",
        completed_at: new Date().toISOString(),
        duration_ms: Math.max(0, Date.now() - Date.parse(report.created_at)),
        errors: [{ stage: "analysis", kind: problem.code, message: problem.detail }],
      };
      await this.updateWith(sql, failed).catch((updateError) => {
        logger.error("could not mark report failed; the sweeper will", { report_id: report.id, error: updateError });
      });
    }
  }

  private track(task: Promise<void>) {
    this.background.add(task);
    task.finally(() => this.background.delete(task));
  }

  /** The owning account and the site key live in columns, not in the report body. */
  private async insertWith(sql: Queryable, report: Report, owner: { accountId: string; siteKey: string }) {
    await sql`
      insert into reports (id, account_id, url, site_key, status, metadata, score, grade, body, created_at, completed_at)
      values (${report.id}, ${owner.accountId}, ${report.url}, ${owner.siteKey}, ${report.status},
              ${sql.json(report.metadata as never)}, ${report.summary?.score ?? null}, ${report.summary?.grade ?? null},
              ${sql.json(report as never)}, ${report.created_at}, ${report.completed_at})`;
  }

  private async updateWith(sql: Queryable, report: Report) {
    await sql`
      update reports set status = ${report.status}, score = ${report.summary?.score ?? null},
        grade = ${report.summary?.grade ?? null}, body = ${sql.json(report as never)},
        completed_at = ${report.completed_at}
      where id = ${report.id}`;
  }

  private async quotaExhausted(principal: Principal): Promise<ApiProblem> {
    const usage = await this.deps.quota.usage(principal.accountId, principal.monthlyQuota);
    const resetsAt = usage.period.end.toISOString();
    return new ApiProblem(
      "quota_exhausted",
      `All ${usage.quota} reports of this month's quota are used. The quota resets at ${resetsAt}; upgrade the plan for more.`,
      { extensions: { quota: usage.quota, used: usage.used, in_progress: usage.reserved, resets_at: resetsAt } },
    );
  }
}

/** Analysis failures that mean "no report": the caller's URL, or the site, not us. */
function toProblem(error: unknown): ApiProblem | undefined {
  if (error instanceof ApiProblem) return error;
  if (error instanceof TargetNotAllowedError) {
    return new ApiProblem("url_not_allowed", `The site cannot be analysed: ${error.message}.`);
  }
  if (error instanceof SiteUnreachableError) {
    return new ApiProblem("site_unreachable", error.message, { extensions: { reason: error.kind } });
  }
  return undefined;
}
