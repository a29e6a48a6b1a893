/**
 * How an analysis ends, in one place for the API (which answers a waiting request) and the
 * worker (which stores the result): a completed report, or a failed one with the problem
 * that a synchronous caller receives.
 */
import type { Report } from "../../shared/report.ts";
import type { AnalysisResult } from "../analyzer/analyze.ts";
import { SiteUnreachableError, TargetNotAllowedError } from "../analyzer/errors.ts";
import { ApiProblem, PROBLEMS, type ProblemCode } from "../platform/http/problem.ts";
import type { Logger } from "../platform/logger.ts";

/** What the `failure` column keeps: enough to raise the same ApiProblem again. */
export interface StoredFailure {
  code: ProblemCode;
  detail: string;
  extensions?: Record<string, unknown>;
}

export function completedReport(report: Report, result: AnalysisResult, startedAt: number): Report {
  const completedAt = new Date();
  return {
    ...report,
    ...result,
    status: "completed",
    completed_at: completedAt.toISOString(),
    duration_ms: Math.max(0, completedAt.getTime() - startedAt),
  };
}

export function failedReport(report: Report, problem: ApiProblem, stage = "analysis"): Report {
  return {
    ...report,
    status: "failed",
    completed_at: new Date().toISOString(),
    duration_ms: Math.max(0, Date.now() - Date.parse(report.created_at)),
    errors: [{ stage, kind: problem.code, message: problem.detail }],
  };
}

/** Analysis failures that mean "no report": the caller's URL, or the site, not us. */
export function toProblem(error: unknown): ApiProblem | undefined {
  if (error instanceof ApiProblem) return error;
  if (error instanceof TargetNotAllowedError) {
    return new ApiProblem("url_not_allowed", `The site cannot be analysed: ${error.message}.`);
  }
  if (error instanceof SiteUnreachableError) {
    return new ApiProblem("site_unreachable", error.message, { extensions: { reason: error.kind } });
  }
  return undefined;
}

/**
 * A target refused by the address policy (loopback, private, single-label host…) is often an
 * operator trying the service on a local site. The hint that TARGET_ALLOWLIST exists goes to the
 * log (and the admin docs) only: callers learn the reason, not how the policy is configured.
 */
export function logAllowlistHint(logger: Logger, reason: string): void {
  logger.info("target refused by the address policy", {
    reason,
    hint: "to analyze chosen private or local hosts (e.g. a test site), list them with their ports in TARGET_ALLOWLIST, e.g. TARGET_ALLOWLIST=127.0.0.1:8088 (see docs/configuration.md)",
  });
}

/** How a cancelled report ends: the failure a waiting synchronous call answers, and its errors[]. */
export function cancelledFailure(reason: string): { stored: StoredFailure; errors: Report["errors"] } {
  return {
    stored: {
      code: "report_cancelled",
      detail: `The report was cancelled (${reason}) before it finished. Nothing was charged.`,
    },
    errors: [
      { stage: "analysis", kind: "cancelled", message: `The report was cancelled (${reason}); nothing was charged.` },
    ],
  };
}

export function storedFailure(problem: ApiProblem): StoredFailure {
  return { code: problem.code, detail: problem.detail, extensions: problem.options.extensions };
}

export function problemFrom(failure: StoredFailure | null | undefined): ApiProblem {
  if (!failure || !(failure.code in PROBLEMS)) {
    return new ApiProblem("internal_error", "The analysis failed unexpectedly.");
  }
  const headers: Record<string, string> =
    failure.code === "overloaded" || failure.code === "unavailable" ? { "retry-after": "30" } : {};
  return new ApiProblem(failure.code, failure.detail, { extensions: failure.extensions, headers });
}
