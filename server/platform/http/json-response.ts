/**
 * JSON responses built directly. Route `response` schemas still document them (OpenAPI)
 * and tests validate them; returning a Response skips Elysia's per-request re-encoding of
 * the body through the schema, which was a measurable share of a request's CPU time.
 */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}
