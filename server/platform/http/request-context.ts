/**
 * Per-request state shared between the outer HTTP wrapper (request id, logging, headers
 * on every response) and the Elysia app (who is calling, deferred body errors).
 *
 * Keyed by the Request object, which Elysia passes through unchanged to every hook.
 */
import type { ApiProblem } from "./problem.ts";

export interface RequestContext {
  id: string;
  startedAt: number;
  /** Route template once matched, e.g. `/api/report/:id` (never the query string). */
  route?: string;
  accountId?: string;
  /** The TCP peer's address, from Bun.serve (see client-request.ts). */
  peer?: string;
  /** Headers added to whatever response leaves, errors included (e.g. rate-limit headers). */
  responseHeaders: Record<string, string>;
  /** A body problem found while parsing, raised only after authentication. */
  bodyProblem?: ApiProblem;
}

const contexts = new WeakMap<Request, RequestContext>();

/** Accept a caller's X-Request-Id when it is short and plain, so traces join up. */
const INBOUND_ID = /^[A-Za-z0-9._:-]{8,64}$/;

export function beginRequest(request: Request, peer?: string): RequestContext {
  const inbound = request.headers.get("x-request-id");
  const context: RequestContext = {
    id: inbound && INBOUND_ID.test(inbound) ? inbound : `req_${crypto.randomUUID().replaceAll("-", "")}`,
    startedAt: performance.now(),
    responseHeaders: {},
    peer,
  };
  contexts.set(request, context);
  return context;
}

export function requestContext(request: Request): RequestContext {
  let context = contexts.get(request);
  if (!context) context = beginRequest(request); // app.handle() called directly (tests)
  return context;
}
