/**
 * Idempotency-Key support for POST /api/generate-report (docs/api.md, "Idempotency").
 *
 * The first request with a key claims it (`in_progress`). When it succeeds, the key
 * records the response status and report id for 24 hours; a repeat with the same body
 * gets that report back with the same status and is not charged. A repeat with another
 * body is refused (422), and a repeat while the first is still running gets 409.
 * Failures are not recorded: the claim is dropped so that a retry really retries
 * (a site that was down, a quota that was topped up).
 */
import { createHash } from "node:crypto";
import type { Sql } from "../db/database.ts";

export const IDEMPOTENCY_TTL_HOURS = 24;
/** Printable ASCII, as most APIs (Stripe, IETF draft) accept. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export type Claim =
  | { kind: "new" }
  | { kind: "replay"; status: number; reportId: string }
  | { kind: "mismatch" }
  | { kind: "in_progress" };

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

export class IdempotencyService {
  constructor(
    private readonly sql: Sql,
    /** A claim older than this is from a crashed request and may be taken over. */
    private readonly staleAfterMs: number,
  ) {}

  async claim(accountId: string, key: string, fingerprint: string): Promise<Claim> {
    const claimed = await this.sql`
      insert into idempotency_keys (account_id, key, request_hash, state, expires_at)
      values (${accountId}, ${key}, ${fingerprint}, 'in_progress',
              now() + ${IDEMPOTENCY_TTL_HOURS} * interval '1 hour')
      on conflict (account_id, key) do update set
        request_hash = excluded.request_hash, state = 'in_progress',
        response_status = null, report_id = null,
        created_at = now(), expires_at = excluded.expires_at
      where idempotency_keys.expires_at < now()
         or (idempotency_keys.state = 'in_progress'
             and idempotency_keys.created_at < now() - ${this.staleAfterMs} * interval '1 millisecond')
      returning key`;
    if (claimed.length > 0) return { kind: "new" };

    const [row] = await this.sql<
      { request_hash: string; state: string; response_status: number | null; report_id: string | null }[]
    >`select request_hash, state, response_status, report_id from idempotency_keys
      where account_id = ${accountId} and key = ${key}`;
    // Deleted between our two statements (the owner failed): claim again.
    if (!row) return this.claim(accountId, key, fingerprint);
    if (row.request_hash !== fingerprint) return { kind: "mismatch" };
    if (row.state === "in_progress" || row.response_status === null || row.report_id === null) {
      return { kind: "in_progress" };
    }
    return { kind: "replay", status: row.response_status, reportId: row.report_id };
  }

  async complete(accountId: string, key: string, status: number, reportId: string): Promise<void> {
    await this.sql`
      update idempotency_keys set state = 'completed', response_status = ${status}, report_id = ${reportId}
      where account_id = ${accountId} and key = ${key}`;
  }

  async abandon(accountId: string, key: string): Promise<void> {
    await this.sql`
      delete from idempotency_keys
      where account_id = ${accountId} and key = ${key} and state = 'in_progress'`;
  }

  /** Drops expired keys and claims abandoned by crashed requests. */
  async sweep(): Promise<number> {
    const rows = await this.sql`
      delete from idempotency_keys
      where expires_at < now()
         or (state = 'in_progress' and created_at < now() - ${this.staleAfterMs} * interval '1 millisecond')
      returning key`;
    return rows.length;
  }
}
