/**
 * Idempotency-Key support for POST /api/generate-report (docs/api.md, "Idempotency").
 *
 * The first request with a key claims it (a row naming that request, `claim_id`). When it
 * stores its report, the key is *bound* to that report in the same transaction, and stays
 * bound for 24 hours whatever happens next — an error answer, a dropped connection, a
 * process killed mid-wait: a repeat with the same body gets that report (waiting for it, or
 * 202 while it runs), and a report is charged once at most. A repeat with another body is
 * refused (422); a repeat while the first request has not stored its report yet gets 409.
 *
 * A key is free again only when no report of it can be charged: the request failed before
 * storing one (invalid URL, quota, overloaded — "a retry really retries"), or its report
 * failed (site unreachable, cancelled, interrupted: nothing charged). A claim whose request
 * died before storing its report is taken over after a few seconds; binding checks
 * `claim_id`, so a slow first request that loses its claim cannot bind a second report.
 *
 * The webhook POSTs (create, test, rotate-secret, redeliver) use the same keys, bound to the
 * resource they answered about (`bindResource`); such a key is never freed by a report's fate.
 */
import { createHash } from "node:crypto";
import type { Queryable, Sql } from "../platform/db/database.ts";
import { newId } from "../platform/ids.ts";

export const IDEMPOTENCY_TTL_HOURS = 24;
/** Printable ASCII, as most APIs (Stripe, IETF draft) accept. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export type Claim =
  | { kind: "new"; claimId: string }
  | {
      kind: "bound";
      /** The report (or, for the webhook POSTs, the resource) the key is bound to. */
      reportId: string;
      respondAsync: boolean;
      /** The status the first request answered with (202 for an async report). */
      status: number;
    }
  | { kind: "mismatch" }
  | { kind: "in_progress" };

/** How long a claim may stay unbound before another request may take the key over. */
export const UNBOUND_CLAIM_MS = 10_000;

/** Answer statuses recorded with a bound key: what the first request asked for. */
const ASYNC_STATUS = 202;
const SYNC_STATUS = 201;

export function isValidIdempotencyKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** Stable hash of a JSON value: object keys sorted at every level. */
export function requestFingerprint(value: unknown): string {
  const canonical = (input: unknown): unknown => {
    if (Array.isArray(input)) return input.map(canonical);
    if (input && typeof input === "object") {
      return Object.fromEntries(
        Object.keys(input)
          .sort()
          .map((key) => [key, canonical((input as Record<string, unknown>)[key])]),
      );
    }
    return input;
  };
  return createHash("sha256")
    .update(JSON.stringify(canonical(value)))
    .digest("hex");
}

/** The request lost its claim before binding it (another request took the key over). */
export class ClaimLostError extends Error {
  constructor() {
    super("the Idempotency-Key was taken over by another request");
  }
}

export class IdempotencyService {
  constructor(
    private readonly sql: Sql,
    /** An unbound claim older than this is from a request that died, and may be taken over. */
    private readonly unboundAfterMs = UNBOUND_CLAIM_MS,
  ) {}

  async claim(accountId: string, key: string, fingerprint: string): Promise<Claim> {
    const claimId = newId("clm");
    // Taken when free: expired, claimed by a request that died before storing its report, or
    // (same body only) bound to a report that no longer exists or failed — nothing charged.
    const claimed = await this.sql`
      insert into idempotency_keys (account_id, key, request_hash, state, expires_at, claim_id)
      values (${accountId}, ${key}, ${fingerprint}, 'in_progress',
              now() + ${IDEMPOTENCY_TTL_HOURS} * interval '1 hour', ${claimId})
      on conflict (account_id, key) do update set
        request_hash = excluded.request_hash, state = 'in_progress',
        response_status = null, report_id = null, claim_id = excluded.claim_id,
        created_at = now(), expires_at = excluded.expires_at
      where idempotency_keys.expires_at < now()
         or (idempotency_keys.report_id is null
             and idempotency_keys.created_at < now() - ${this.unboundAfterMs} * interval '1 millisecond')
         or (idempotency_keys.report_id like 'rep\_%' and idempotency_keys.request_hash = excluded.request_hash
             and not exists (select 1 from reports r
                             where r.id = idempotency_keys.report_id and r.status <> 'failed'))
      returning key`;
    if (claimed.length > 0) return { kind: "new", claimId };

    const [row] = await this.sql<{ request_hash: string; response_status: number | null; report_id: string | null }[]>`
      select request_hash, response_status, report_id from idempotency_keys
      where account_id = ${accountId} and key = ${key}`;
    // Deleted between our two statements (swept, or its request failed): claim again.
    if (!row) return this.claim(accountId, key, fingerprint);
    if (row.request_hash !== fingerprint) return { kind: "mismatch" };
    if (row.report_id === null) return { kind: "in_progress" };
    return {
      kind: "bound",
      reportId: row.report_id,
      respondAsync: row.response_status === ASYNC_STATUS,
      status: row.response_status ?? SYNC_STATUS,
    };
  }

  /**
   * Binds the claimed key to its report, inside the transaction that stores the report: the
   * report exists exactly when its key names it. Throws ClaimLostError (rolling the report
   * back) when another request took the key over meanwhile.
   */
  async bind(
    tx: Queryable,
    claim: { accountId: string; key: string; claimId: string },
    reportId: string,
    respondAsync: boolean,
  ): Promise<void> {
    const rows = await tx`
      update idempotency_keys set state = 'completed', report_id = ${reportId},
        response_status = ${respondAsync ? ASYNC_STATUS : SYNC_STATUS}
      where account_id = ${claim.accountId} and key = ${claim.key}
        and claim_id = ${claim.claimId} and report_id is null
      returning key`;
    if (rows.length === 0) throw new ClaimLostError();
  }

  /**
   * Binds the claimed key to the resource a (non-report) request answered about, with its
   * status: a repeat gets that resource as it is now. Throws ClaimLostError when another
   * request took the key over meanwhile.
   */
  async bindResource(
    claim: { accountId: string; key: string; claimId: string },
    resourceId: string,
    status: number,
  ): Promise<void> {
    const rows = await this.sql`
      update idempotency_keys set state = 'completed', report_id = ${resourceId}, response_status = ${status}
      where account_id = ${claim.accountId} and key = ${claim.key}
        and claim_id = ${claim.claimId} and report_id is null
      returning key`;
    if (rows.length === 0) throw new ClaimLostError();
  }

  /** Frees a claim whose request failed before storing a report. A bound key is never freed. */
  async abandon(accountId: string, key: string, claimId: string): Promise<void> {
    await this.sql`
      delete from idempotency_keys
      where account_id = ${accountId} and key = ${key} and claim_id = ${claimId} and report_id is null`;
  }

  /** Drops expired keys and claims abandoned by requests that died before storing a report. */
  async sweep(): Promise<number> {
    const rows = await this.sql`
      delete from idempotency_keys
      where expires_at < now()
         or (report_id is null and created_at < now() - ${this.unboundAfterMs} * interval '1 millisecond')
      returning key`;
    return rows.length;
  }
}
