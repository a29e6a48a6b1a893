/**
 * What the monitoring feature's API routes (webhooks, monitors) share: Idempotency-Key on
 * their POSTs, the Link header of a page, answers with their headers, and bodiless requests.
 */

import { type Static, type TObject, Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { ProblemCode } from "../../shared/problems.ts";
import { type IdempotencyService, isValidIdempotencyKey, requestFingerprint } from "../access/idempotency.service.ts";
import { jsonResponse } from "../platform/http/json-response.ts";
import { nextPageLink } from "../platform/http/pagination.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { parseQuery } from "../platform/http/query.ts";

export const IDEMPOTENCY = Type.Object({
  "idempotency-key": Type.Optional(
    Type.String({
      maxLength: 255,
      description: "Makes retries safe: a repeat within 24 h gets the first answer instead of acting again",
    }),
  ),
});
export const IDEMPOTENCY_ERRORS: ProblemCode[] = ["idempotency_in_progress", "idempotency_key_reused"];
export interface Answer {
  status: number;
  /** The resource the answer is about, recorded with the Idempotency-Key. */
  id: string;
  body: unknown;
}

/**
 * Idempotency-Key as on POST /api/generate-report (docs/api.md#idempotency), keyed per account
 * and operation: a repeat with the same request gets the first answer — the resource as it is
 * now — with `Idempotent-Replayed: true`, and does nothing again.
 */
export async function idempotent(
  idempotency: IdempotencyService,
  accountId: string,
  key: string | undefined,
  request: unknown,
  run: () => Promise<Answer>,
  replay: (id: string, status: number) => Promise<unknown>,
): Promise<Answer & { replayed: boolean }> {
  if (key === undefined) return { ...(await run()), replayed: false };
  if (!isValidIdempotencyKey(key))
    throw new ApiProblem("invalid_request", "Idempotency-Key must be 1–255 printable ASCII characters.");
  const claim = await idempotency.claim(accountId, key, requestFingerprint(request));
  switch (claim.kind) {
    case "mismatch":
      throw new ApiProblem(
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request. Use a new key for a new request.",
      );
    case "in_progress":
      throw new ApiProblem(
        "idempotency_in_progress",
        "The first request with this Idempotency-Key is still running. Retry shortly to get its result.",
        { headers: { "retry-after": "2" } },
      );
    case "bound":
      return {
        status: claim.status,
        id: claim.reportId,
        body: await replay(claim.reportId, claim.status),
        replayed: true,
      };
    case "new":
      break;
  }
  const held = { accountId, key, claimId: claim.claimId };
  let answer: Answer;
  try {
    answer = await run();
  } catch (error) {
    await idempotency.abandon(accountId, key, claim.claimId).catch(() => {});
    throw error;
  }
  await idempotency.bindResource(held, answer.id, answer.status);
  return { ...answer, replayed: false };
}

/** The next page's Link header of a monitoring listing (cursor `before`): platform/http/pagination.ts. */
export function nextLink(
  base: string,
  path: string,
  query: Record<string, unknown>,
  cursor: string | null,
): Record<string, string> {
  const { link } = nextPageLink(`${base}${path}`, query, "before", cursor);
  return link ? { link } : {};
}

export function answer(result: Answer & { replayed: boolean }, headers: Record<string, string> = {}): Response {
  return jsonResponse(result.body, result.status, {
    ...headers,
    ...(result.replayed ? { "idempotent-replayed": "true" } : {}),
  });
}

/** Query strings read against the operation's schema (a 400 naming the parameter otherwise). */
export const queryOf = <T extends TObject>(schema: T, raw: Record<string, string | undefined>): Static<T> =>
  parseQuery(schema, raw);

/**
 * The requests that take no body (DELETE; POST test, rotate-secret, redeliver, run) accept none: clients send them
 * without Content-Type. This parser runs before the API guard's JSON reader (hooks run in the
 * order they are added) and answers for an empty body; a body, if sent, is read as usual.
 */
export const emptyBodyAllowed = (feature: string) =>
  new Elysia({ name: `${feature}.empty-body` }).onParse({ as: "scoped" }, ({ request }) => {
    const length = request.headers.get("content-length");
    if (length === "0" || (!request.body && !request.headers.has("transfer-encoding"))) return {};
  });
