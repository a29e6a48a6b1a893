/**
 * The API's error codes: every error is RFC 9457 `application/problem+json` with one of these
 * stable `code`s, its HTTP status and title. The one list, for the server that answers with
 * them, the OpenAPI document and the clients that act on them; docs/errors.md documents each
 * (a test keeps the two in step).
 */
export const PROBLEMS = {
  invalid_request: { status: 400, title: "The request is not valid" },
  unauthorized: { status: 401, title: "Authentication required" },
  quota_exhausted: { status: 402, title: "Monthly report quota exhausted" },
  monitor_limit_reached: { status: 403, title: "The account has as many monitors as its plan allows" },
  not_found: { status: 404, title: "Not found" },
  no_report: { status: 404, title: "The site has no completed report in this period" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  not_acceptable: { status: 406, title: "No acceptable representation" },
  idempotency_in_progress: {
    status: 409,
    title: "A request with this Idempotency-Key is still running",
  },
  report_already_finished: { status: 409, title: "The report already finished" },
  report_cancelled: { status: 409, title: "The report was cancelled" },
  payload_too_large: { status: 413, title: "Request body too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  invalid_url: { status: 422, title: "The URL is not valid" },
  url_not_allowed: { status: 422, title: "The URL is not allowed" },
  site_unreachable: { status: 422, title: "The site could not be reached" },
  idempotency_key_reused: {
    status: 422,
    title: "This Idempotency-Key was used with a different request",
  },
  webhook_limit_reached: { status: 422, title: "The account has as many webhooks as it may" },
  rate_limited: { status: 429, title: "Too many requests" },
  internal_error: { status: 500, title: "Internal server error" },
  webhooks_unavailable: { status: 501, title: "Webhooks are not set up on this service" },
  site_auth_unavailable: { status: 501, title: "Site credentials are not enabled on this service" },
  unavailable: { status: 503, title: "Service unavailable" },
  overloaded: { status: 503, title: "Too many analyses are waiting" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

export const PROBLEM_CODES = Object.keys(PROBLEMS) as [ProblemCode, ...ProblemCode[]];

export const PROBLEM_CONTENT_TYPE = "application/problem+json";
