/**
 * What the monitoring feature's API routes (webhooks, monitors) share: Idempotency-Key on
 * their POSTs, answers with their headers, and bodiless requests. What every CRUD resource of
 * the API shares (id parameters, pages, deletes) is platform/http/resource-routes.ts.
 */

import { type Static, type TObject, Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { ProblemCode } from "../../shared/problems.ts";
import type { IdempotencyService } from "../access/idempotency.service.ts";
import { withIdempotencyKey } from "../access/idempotent-request.ts";
import { jsonResponse } from "../platform/http/json-response.ts";
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
 * Idempotency-Key as on POST /api/generate-report (access/idempotent-request.ts), keyed per
 * account and operation: a repeat with the same request gets the first answer — the resource as
 * it is now — with `Idempotent-Replayed: true`, and does nothing again. The key is bound to the
 * resource once `run` has answered.
 */
export function idempotent(
  idempotency: IdempotencyService,
  accountId: string,
  key: string | undefined,
  request: unknown,
  run: () => Promise<Answer>,
  replay: (id: string, status: number) => Promise<unknown>,
): Promise<Answer & { replayed: boolean }> {
  return withIdempotencyKey<Answer & { replayed: boolean }>(
    idempotency,
    { accountId, key, identity: request },
    {
      run: async (claim) => {
        const answer = await run();
        if (claim) await idempotency.bindResource(claim, answer.id, answer.status);
        return { ...answer, replayed: false };
      },
      replay: async ({ reportId: id, status }) => ({ status, id, body: await replay(id, status), replayed: true }),
    },
  );
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
