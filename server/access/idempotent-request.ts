/**
 * The one Idempotency-Key flow of the API's POSTs (docs/api.md#idempotency): POST
 * /api/generate-report (reports.service.ts) and the monitoring POSTs (monitoring/route-helpers.ts)
 * both go through withIdempotencyKey, so a key means the same everywhere:
 *
 * claim the key → a repeat with another request is refused (422 idempotency_key_reused), one
 * while the first has not bound its result waits (409 idempotency_in_progress), one whose key is
 * bound gets that result again (`replay`) → otherwise `run` does the work and binds the key (in
 * its own transaction, or after it) → a run that fails frees the key, so a retry really retries.
 *
 * The key's storage and its rules (takeover, expiry) are IdempotencyService's.
 */
import { ApiProblem } from "../platform/http/problem.ts";
import {
  type Claim,
  ClaimLostError,
  type IdempotencyService,
  isValidIdempotencyKey,
  requestFingerprint,
} from "./idempotency.service.ts";

/** An Idempotency-Key claimed by this request: what binding it (bind, bindResource) names. */
export interface KeyClaim {
  accountId: string;
  key: string;
  claimId: string;
}

/** A key already bound to a result: the report (or resource) and the status first answered. */
export type BoundKey = Extract<Claim, { kind: "bound" }>;

export interface IdempotentRequest {
  accountId: string;
  /** The Idempotency-Key header; undefined runs the request once, with nothing to replay. */
  key: string | undefined;
  /** What makes two requests with the key the same request (hashed by requestFingerprint). */
  identity: unknown;
}

export interface IdempotentSteps<T> {
  /** Does the work; given a claim (a key was sent), binds it to its result before returning. */
  run: (claim: KeyClaim | undefined) => Promise<T>;
  /** The answer to a repeat whose key is bound: the bound result, never a new one. */
  replay: (bound: BoundKey) => Promise<T>;
}

export async function withIdempotencyKey<T>(
  idempotency: IdempotencyService,
  request: IdempotentRequest,
  steps: IdempotentSteps<T>,
): Promise<T> {
  const { accountId, key } = request;
  if (key === undefined) return steps.run(undefined);
  if (!isValidIdempotencyKey(key)) {
    throw new ApiProblem("invalid_request", "Idempotency-Key must be 1–255 printable ASCII characters.");
  }
  const claim = await idempotency.claim(accountId, key, requestFingerprint(request.identity));
  switch (claim.kind) {
    case "mismatch":
      throw new ApiProblem(
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request. Use a new key for a new request.",
      );
    case "in_progress":
      throw idempotencyInProgress();
    case "bound":
      return steps.replay(claim);
    case "new":
      break;
  }
  try {
    return await steps.run({ accountId, key, claimId: claim.claimId });
  } catch (error) {
    // Failed before its result was bound: the key is free again, so a retry really retries.
    // A bound key is never freed here (abandon leaves bound keys alone).
    await idempotency.abandon(accountId, key, claim.claimId).catch(() => {});
    // Another request took the key over meanwhile: this one is its repeat now.
    if (error instanceof ClaimLostError) throw idempotencyInProgress();
    throw error;
  }
}

/** The first request with the key has not bound its result yet: retry shortly. */
export function idempotencyInProgress(): ApiProblem {
  return new ApiProblem(
    "idempotency_in_progress",
    "The first request with this Idempotency-Key is still running. Retry shortly to get its result.",
    { headers: { "retry-after": "2" } },
  );
}
