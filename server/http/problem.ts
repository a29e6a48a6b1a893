/**
 * RFC 9457 problem details: the one way this service reports an error.
 *
 * Every error leaves as `application/problem+json` with `type`, `title`, `status`,
 * `detail`, a stable machine-readable `code` and the `request_id`. The catalogue below is
 * the single list of codes (SPEC.md §4); docs/errors.md documents the same list.
 */

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export const PROBLEMS = {
  invalid_request: { status: 400, title: "The request is not valid" },
  unauthorized: { status: 401, title: "Authentication required" },
  quota_exhausted: { status: 402, title: "Monthly report quota exhausted" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  not_acceptable: { status: 406, title: "No acceptable representation" },
  idempotency_in_progress: {
    status: 409,
    title: "A request with this Idempotency-Key is still running",
  },
  payload_too_large: { status: 413, title: "Request body too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  invalid_url: { status: 422, title: "The URL is not valid" },
  url_not_allowed: { status: 422, title: "The URL is not allowed" },
  site_unreachable: { status: 422, title: "The site could not be reached" },
  idempotency_key_reused: {
    status: 422,
    title: "This Idempotency-Key was used with a different request",
  },
  rate_limited: { status: 429, title: "Too many requests" },
  internal_error: { status: 500, title: "Internal server error" },
  unavailable: { status: 503, title: "Service unavailable" },
  overloaded: { status: 503, title: "Too many analyses are waiting" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  request_id: string;
  [extension: string]: unknown;
}

/** An error that becomes a problem+json response. Throw it from anywhere in a request. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly options: {
      /** Extra members of the problem object (RFC 9457 extensions), e.g. `resets_at`. */
      extensions?: Record<string, unknown>;
      /** Extra response headers, e.g. Retry-After or WWW-Authenticate. */
      headers?: Record<string, string>;
    } = {},
  ) {
    super(detail);
    this.name = "ApiProblem";
    this.status = PROBLEMS[code].status;
    this.title = PROBLEMS[code].title;
  }
}

/** The `type` URI of a code: a page on this service that explains it. */
export function problemType(baseUrl: string, code: ProblemCode): string {
  return `${baseUrl}/problems/${code}`;
}

export function problemBody(problem: ApiProblem, baseUrl: string, requestId: string): ProblemBody {
  return {
    ...problem.options.extensions,
    type: problemType(baseUrl, problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    request_id: requestId,
  };
}

export function problemResponse(
  problem: ApiProblem,
  baseUrl: string,
  requestId: string,
  extraHeaders: Record<string, string> = {},
): Response {
  const headers = new Headers({
    "content-type": PROBLEM_CONTENT_TYPE,
    "cache-control": "no-store",
    ...extraHeaders,
    ...problem.options.headers,
  });
  return new Response(JSON.stringify(problemBody(problem, baseUrl, requestId)), {
    status: problem.status,
    headers,
  });
}
