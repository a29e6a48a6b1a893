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

/**
 * A JSON document or list a GET returns (a listing, one site, a diff, usage): a client may keep
 * it and revalidate. `private`: a bearer-token answer is for the caller's own cache only;
 * `no-cache`: asked again every time, with the weak ETag the wrapper adds from its content
 * (representation.ts), so an unchanged answer is a 304 without a body.
 */
export function jsonDocument(body: unknown, headers: Record<string, string> = {}): Response {
  return jsonResponse(body, 200, { "cache-control": "private, no-cache", ...headers });
}
