/**
 * The wpreport API client shared by the GitHub Action and the CLI for other CI systems.
 *
 * - Typed from the report types; errors are ApiError with the problem+json `code`.
 * - Retries 429, 503, a proxy's 502 and 504, and 409 idempotency_in_progress, honouring Retry-After (seconds or an
 *   HTTP date, RFC 9110 §10.2.3), and network failures with backoff — never past the caller's
 *   deadline. A POST is only retried when it
 *   carries an Idempotency-Key, so a retry can never be charged twice.
 * - Built on @actions/http-client, which honours the runner's proxy settings.
 */
import { createHash } from "node:crypto";
import { HttpClient } from "@actions/http-client";
import type { Problem, Usage } from "./api.ts";
import type { Diff } from "./diff-schema.ts";
import type { AnalysisMode, LabDevice, LabThrottling, Report, ReportMetadata } from "./report.ts";
import { retryAfterMs } from "./retry-after.ts";
import type { SiteAuth } from "./site-auth.ts";

export type { Problem, ReportListItem, Usage } from "./api.ts";
export { retryAfterMs };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }

  get code(): string {
    return this.problem.code ?? (this.status === 0 ? "network_error" : "http_error");
  }
}

export interface RetryInfo {
  attempt: number;
  waitMs: number;
  reason: string;
}

export interface ClientOptions {
  apiUrl: string;
  token: string;
  userAgent?: string;
  /** Epoch ms after which no new attempt starts (the step's timeout). */
  deadline?: number;
  maxRetries?: number;
  onRetry?: (info: RetryInfo) => void;
  /** Injected for tests; defaults to a real timer. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Answers worth another attempt: asked to wait (429, 503), and a reverse proxy's 502 and 504 —
 * an API process behind it died or restarted mid-call (docker-compose.yml runs nginx before two
 * replicas), which is a dropped connection seen through the proxy. A POST is retried only with
 * its Idempotency-Key, so none of these can make or charge a second report.
 */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

const NETWORK_BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 16_000];

/** The body of POST /api/generate-report. */
export interface GenerateReportInput {
  url: string;
  metadata?: ReportMetadata;
  mode?: AnalysisMode;
  /** Credentials of a protected site (shared/site-auth.ts): secrets, never part of an Idempotency-Key. */
  site_auth?: SiteAuth;
  /** A staging site's certificate: not verified, or by this private CA (shared/site-tls.ts). */
  tls?: "verify" | "insecure";
  tls_ca?: string;
  /** A lab run (docs/report.md, "Lab"). */
  lab?: boolean;
  lab_device?: LabDevice;
  lab_throttling?: LabThrottling;
  lab_runs?: number;
}

/** JSON with object keys sorted at every level, so that equal bodies hash alike whatever their key order. */
function canonicalJson(value: unknown): string {
  const canonical = (input: unknown): unknown => {
    if (Array.isArray(input)) return input.map(canonical);
    if (input && typeof input === "object")
      return Object.fromEntries(
        Object.keys(input)
          .sort()
          .map((key) => [key, canonical((input as Record<string, unknown>)[key])]),
      );
    return input;
  };
  return JSON.stringify(canonical(value));
}

/** The matrix values as given (`toJSON(matrix)`), canonical; "" when the job has no matrix. */
function canonicalMatrix(raw: string | undefined): string {
  const text = raw?.trim() ?? "";
  if (text === "" || text === "null" || text === "{}") return "";
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text;
  }
}

/** A key segment within the service's charset (printable ASCII), short and readable. */
const segment = (value: string) => value.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64);

/**
 * The Idempotency-Key of one CI step's report request: `ci-<run>-<attempt>-<hash>`, the hash
 * (SHA-256, 32 hex digits) covering the run and attempt as given — GitHub's run id and
 * attempt, GitLab's pipeline and job id, Jenkins' BUILD_TAG (a rebuild is a new build), or
 * Bitbucket's repository and build number with the step's UUID —, the job (GITHUB_JOB,
 * CI_JOB_NAME), the step (GITHUB_ACTION: the step's id, unique within a job), the matrix
 * values (`matrix`, the Action's input) and the request body itself. So:
 *
 * - the client's own retries, and the same step started again within the same run attempt,
 *   send the same key with the same body: the service answers with the first report and does
 *   not charge again;
 * - another step, another job, another matrix combination or another body (URL, environment,
 *   mode, commit) sends another key: it never gets another request's report back, and never a
 *   422 `idempotency_key_reused` it could do nothing about;
 * - a new run attempt (a re-run of the workflow) makes a new report.
 *
 * Outside CI (no run id) there is no key, and the client does not retry the POST.
 * At most 3 + 64 + 1 + 64 + 1 + 32 = 165 printable ASCII characters (the service takes 1–255).
 */
export function idempotencyKeyFor(
  env: Record<string, string | undefined>,
  body: GenerateReportInput,
  scope: { matrix?: string } = {},
): string | undefined {
  // Bitbucket's build numbers count per repository: the repository makes them unique.
  const bitbucketRun = env.BITBUCKET_BUILD_NUMBER
    ? `${env.BITBUCKET_REPO_FULL_NAME ?? "bitbucket"}#${env.BITBUCKET_BUILD_NUMBER}`
    : undefined;
  const run = env.GITHUB_RUN_ID ?? env.CI_PIPELINE_ID ?? env.BUILD_TAG ?? bitbucketRun;
  if (!run) return undefined;
  // The key is sent and stored: site credentials stay out of it (rotating one is no new request).
  const { site_auth: _secret, ...request } = body;
  const attempt = env.GITHUB_RUN_ATTEMPT ?? env.CI_JOB_ID ?? env.BITBUCKET_STEP_UUID ?? "1";
  const hash = createHash("sha256")
    .update(
      canonicalJson({
        run,
        attempt,
        job: env.GITHUB_JOB ?? env.CI_JOB_NAME ?? "",
        step: env.GITHUB_ACTION ?? "",
        matrix: canonicalMatrix(scope.matrix),
        body: request,
      }),
    )
    .digest("hex")
    .slice(0, 32);
  return `ci-${segment(run)}-${segment(attempt)}-${hash}`;
}

/** One sentence a person can act on, for the errors people actually meet. */
export function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  const detail = error.problem.detail ? ` ${error.problem.detail}` : "";
  switch (error.code) {
    case "unauthorized":
      return "The wpreport API refused the token. Check that the secret holds a current token (wpr_…) that has not been revoked or expired.";
    case "quota_exhausted":
      return `This month's report quota is used up, so no new report could be made.${
        typeof error.problem.resets_at === "string" ? ` It resets at ${error.problem.resets_at}.` : ""
      } Upgrade the plan for more reports.`;
    case "rate_limited":
      return `The wpreport API kept answering "too many requests" until the time limit.${detail}`;
    case "site_unreachable":
      return `wpreport could not reach the site.${detail} Is it up and reachable from the internet?`;
    case "url_not_allowed":
    case "invalid_url":
      return `The URL cannot be analyzed.${detail}`;
    case "site_auth_unavailable":
      return "This wpreport service is not set up to analyze sites with credentials (http-auth, http-headers, http-cookies): its operator has to set SITE_AUTH_KEY. Nothing was charged.";
    case "network_error":
      return `Could not reach the wpreport API: ${error.message}`;
    default:
      return `The wpreport API answered ${error.status}${error.problem.code ? ` (${error.problem.code})` : ""}.${detail}`;
  }
}

/**
 * A Diff from a service older than some of its fields (API < 1.4.0: no assertions, baseline or
 * verdict warnings), completed with what those fields say when there is nothing to say.
 */
function withDiffDefaults(answer: Diff, base: string): Diff {
  const partial = answer as Partial<Diff> & Diff;
  return {
    ...partial,
    assertions: partial.assertions ?? { rules: [], results: [], unmatched: [] },
    baseline: partial.baseline ?? {
      rule: base === "latest" || base === "none" || base === "last-passing" ? base : "report",
      id: partial.base_id,
      reason: partial.base_id ? `${partial.base_id}, chosen by the service` : "no baseline",
    },
    verdict: { ...partial.verdict, warnings: partial.verdict.warnings ?? [] },
  };
}

export class WpreportClient {
  private readonly http: HttpClient;
  private readonly base: string;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ClientOptions) {
    this.base = options.apiUrl.replace(/\/+$/, "");
    this.http = new HttpClient(options.userAgent ?? "wpreport-client", [], { allowRetries: false, keepAlive: true });
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  close(): void {
    this.http.dispose();
  }

  async generateReport(
    input: GenerateReportInput,
    options: { idempotencyKey?: string } = {},
  ): Promise<{ report: Report; replayed: boolean }> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    const { body, headers: responseHeaders } = await this.call<Report>("POST", "/api/generate-report", {
      body: JSON.stringify(input),
      headers,
      retryable: Boolean(options.idempotencyKey),
    });
    return { report: body, replayed: responseHeaders["idempotent-replayed"] === "true" };
  }

  async getReport(id: string): Promise<Report> {
    return (await this.call<Report>("GET", `/api/report/${encodeURIComponent(id)}`)).body;
  }

  /**
   * The service's comparison of report `id` with `base` — `last-passing` (the service's rule:
   * the newest earlier report of the same site and environment that passed the gate), `latest`,
   * a report id or `none` — with the verdict for `query`'s thresholds (and `prefer_ref`). The
   * diff's `baseline` names the baseline and why.
   */
  async diff(id: string, base: string, query: Record<string, string> = {}): Promise<Diff> {
    const params = new URLSearchParams({ base, ...query });
    return withDiffDefaults(
      (await this.call<Diff>("GET", `/api/report/${encodeURIComponent(id)}/diff?${params}`)).body,
      base,
    );
  }

  async usage(): Promise<Usage> {
    return (await this.call<Usage>("GET", "/api/usage")).body;
  }

  private async call<T>(
    method: string,
    path: string,
    options: { body?: string; headers?: Record<string, string>; retryable?: boolean } = {},
  ): Promise<{ body: T; headers: Record<string, string | string[] | undefined> }> {
    const retryable = method === "GET" || options.retryable === true;
    const maxRetries = this.options.maxRetries ?? 8;
    for (let attempt = 1; ; attempt++) {
      let status = 0;
      let text = "";
      let headers: Record<string, string | string[] | undefined> = {};
      try {
        const response = await this.http.request(method, `${this.base}${path}`, options.body ?? null, {
          accept: "application/json",
          authorization: `Bearer ${this.options.token}`,
          ...options.headers,
        });
        status = response.message.statusCode ?? 0;
        headers = response.message.headers;
        text = await response.readBody();
      } catch (error) {
        const wait = NETWORK_BACKOFF_MS[Math.min(attempt - 1, NETWORK_BACKOFF_MS.length - 1)] as number;
        if (!retryable || attempt > maxRetries || !this.canWait(wait)) {
          throw new ApiError(0, {}, (error as Error).message);
        }
        this.options.onRetry?.({ attempt, waitMs: wait, reason: (error as Error).message });
        await this.sleep(wait);
        continue;
      }
      if (status >= 200 && status < 300) return { body: JSON.parse(text) as T, headers };

      let problem: Problem = {};
      try {
        problem = JSON.parse(text) as Problem;
      } catch {
        problem = { detail: text.slice(0, 200) };
      }
      const again = RETRY_STATUSES.has(status) || (status === 409 && problem.code === "idempotency_in_progress");
      if (again && retryable && attempt <= maxRetries) {
        const wait = retryAfterMs(headers["retry-after"]) ?? 1_000 * 2 ** (attempt - 1);
        if (this.canWait(wait)) {
          this.options.onRetry?.({
            attempt,
            waitMs: wait,
            reason: `${status}${problem.code ? ` ${problem.code}` : ""}`,
          });
          await this.sleep(wait);
          continue;
        }
      }
      throw new ApiError(status, problem, problem.detail ?? `HTTP ${status}`);
    }
  }

  private canWait(ms: number): boolean {
    return this.options.deadline === undefined || Date.now() + ms < this.options.deadline;
  }
}
