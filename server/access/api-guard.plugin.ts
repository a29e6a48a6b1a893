/**
 * The guard in front of every authenticated API route, in this order:
 *   1. bearer token → principal (401 for any failure, one generic answer),
 *   2. per-account rate limit (429; headers on every authenticated response),
 *   3. body problems found while parsing (413/415/400) — raised only now, so an
 *      unauthenticated caller learns nothing beyond "401".
 * Runs in Elysia's transform phase, i.e. before schema validation.
 */
import { Elysia } from "elysia";
import { readJsonBody } from "../platform/http/json-body.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { requestContext } from "../platform/http/request-context.ts";
import { isStorableText, UNSTORABLE_DETAIL } from "../platform/http/storable-text.ts";
import { decide, limitForWindow, type RateLimiter, rateLimitHeaders } from "./rate-limiter.ts";
import type { Principal, TokenService } from "./token.service.ts";
import { isWellFormedToken } from "./token-format.ts";

export interface ApiGuardDeps {
  tokens: TokenService;
  limiter: RateLimiter;
  maxBodyBytes: number;
  rateWindowSeconds: number;
  /** Told of every 429 (metrics). */
  onRateLimited?: () => void;
}

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is
 * case-insensitive, RFC 9110 §11.1). Undefined when the request carries no bearer credentials:
 * no header, another scheme (Basic…), or the scheme without a token. Never read from the query
 * string or the body — URLs end up in logs.
 */
export function bearerToken(authorization: string | null | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S.*)$/i.exec(authorization?.trim() ?? "");
  return match?.[1]?.trim() || undefined;
}

/**
 * 401 for a request without credentials, or with a token that is not valid. RFC 6750 §3.1: a
 * request that sent no credentials gets the challenge without an error code; one that sent a
 * token that is malformed, unknown, revoked or expired gets `error="invalid_token"`. The body is
 * the same in every case, so a caller learns nothing about which tokens exist.
 */
export function unauthorized(tokenSent: boolean): ApiProblem {
  const challenge = tokenSent ? 'Bearer realm="wpreport", error="invalid_token"' : 'Bearer realm="wpreport"';
  return new ApiProblem(
    "unauthorized",
    "A valid API token is required. Send it as Authorization: Bearer <token>; create tokens in the dashboard or with the admin CLI.",
    { headers: { "www-authenticate": challenge } },
  );
}

/** No Content-Type, and no body declared (Content-Length absent or 0, no Transfer-Encoding). */
function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  return (
    request.headers.has("content-type") ||
    request.headers.has("transfer-encoding") ||
    (length !== null && length !== "0")
  );
}

export function apiGuard(deps: ApiGuardDeps) {
  return new Elysia()
    .onParse({ as: "scoped" }, async ({ request }) => {
      // A POST that sends nothing at all (POST /api/report/{id}/cancel) has nothing to parse;
      // an operation that needs a body still gets its 400 from schema validation.
      if (!hasBody(request)) return {};
      try {
        return await readJsonBody(request, deps.maxBodyBytes);
      } catch (error) {
        if (!(error instanceof ApiProblem)) throw error;
        requestContext(request).bodyProblem = error;
        return {}; // placeholder; the problem is raised after authentication
      }
    })
    .derive({ as: "scoped" }, async ({ request, headers }): Promise<{ principal: Principal }> => {
      const context = requestContext(request);
      const token = bearerToken(headers.authorization);
      if (!token) throw unauthorized(false);
      if (!isWellFormedToken(token)) throw unauthorized(true);

      const principal = await deps.tokens.authenticate(token);
      if (!principal) throw unauthorized(true);
      context.accountId = principal.accountId;

      // Only authenticated calls count, so an attacker holding a revoked token cannot use
      // up its former account's limit.
      const windowMs = deps.rateWindowSeconds * 1000;
      const decision = decide(
        await deps.limiter.count(principal.accountId, windowMs),
        limitForWindow(principal.requestsPerMinute, deps.rateWindowSeconds),
      );
      context.responseHeaders = { ...context.responseHeaders, ...rateLimitHeaders(decision) };
      if (!decision.allowed) {
        deps.onRateLimited?.();
        const retryAfter = Math.max(1, Math.ceil(decision.resetMs / 1000));
        throw new ApiProblem(
          "rate_limited",
          `Rate limit of ${decision.limit} requests per ${deps.rateWindowSeconds === 60 ? "minute" : `${deps.rateWindowSeconds} s`} reached. Retry in ${retryAfter} s.`,
          { headers: { "retry-after": String(retryAfter) }, extensions: { retry_after: retryAfter } },
        );
      }
      if (context.bodyProblem) throw context.bodyProblem;
      const badParameter = [...new URL(request.url).searchParams].find(
        ([name, value]) => !isStorableText(name) || !isStorableText(value),
      );
      if (badParameter) {
        throw new ApiProblem("invalid_request", `A query parameter ${UNSTORABLE_DETAIL}.`, {
          extensions: { errors: [{ location: "query", pointer: "", detail: UNSTORABLE_DETAIL }] },
        });
      }
      return { principal };
    });
}
