/**
 * CORS for the API (`/api/*`): any origin may call it, without credentials.
 *
 * The API authenticates with a bearer token the caller's own code sends, never with cookies,
 * so a page on another origin gains nothing from a visitor's browser that it could not do
 * from anywhere else: `Access-Control-Allow-Origin: *` and no `Allow-Credentials` (browsers
 * then refuse to attach cookies). The web interface (cookies, CSRF tokens) and the Stripe
 * webhook get no CORS headers at all. Decided in docs/decisions.md.
 *
 * Applied by the Bun.serve wrapper (server.ts), so that every /api answer carries the
 * headers, also those made outside the app (an early 413, a 500); and preflights are
 * answered there, before the app: no token, no rate-limit count.
 */

/** Request headers a browser client may send (beyond the CORS-safelisted ones). */
const ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "Prefer", "Accept", "X-Request-Id"];

/** Response headers a browser client may read (beyond the CORS-safelisted ones). */
const EXPOSED_HEADERS = [
  "Location",
  "Link",
  "ETag",
  "Retry-After",
  "WWW-Authenticate",
  "RateLimit",
  "RateLimit-Policy",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-Request-Id",
  "Idempotent-Replayed",
  "Preference-Applied",
  "Queue-Position",
];

/** How long a browser may reuse a preflight's answer (Chromium caps this at 2 h). */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

export function isCorsPath(pathname: string): boolean {
  return pathname.startsWith("/api/");
}

/** A CORS preflight: OPTIONS with Origin and Access-Control-Request-Method. */
export function isPreflight(request: Request): boolean {
  return (
    request.method === "OPTIONS" &&
    request.headers.has("origin") &&
    request.headers.has("access-control-request-method")
  );
}

/** Headers on every /api response: readable from any origin, without credentials. */
export const CORS_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED_HEADERS.join(", "),
};

/** The extra headers of a preflight's answer for a route that answers `methods`. */
export function preflightHeaders(methods: readonly string[]): Record<string, string> {
  return {
    "access-control-allow-methods": methods.join(", "),
    "access-control-allow-headers": ALLOWED_HEADERS.join(", "),
    "access-control-max-age": String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}
