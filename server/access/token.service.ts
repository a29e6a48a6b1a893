/**
 * API tokens (docs/accounts.md): created show-once, stored as SHA-256 only, listed by visible
 * prefix, revocable. Authentication reads the database on every request so that a
 * revocation or expiry takes effect on the very next call, on every instance.
 */

import type { PlanId } from "../billing/plans.ts";
import type { Sql } from "../platform/db/database.ts";
import { isId, newId } from "../platform/ids.ts";
import { quotaPeriod } from "../platform/quota-period.ts";
import { generateToken, hashToken, isWellFormedToken, visiblePrefix } from "./token-format.ts";

export interface TokenRecord {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** Who is calling, and the limits that apply to them right now. */
export interface Principal {
  accountId: string;
  tokenId: string;
  planId: PlanId;
  monthlyQuota: number;
  requestsPerMinute: number;
  /**
   * The account's usage in the current quota period, read in the same query as the token
   * (GET /api/usage answers from it without a second round trip).
   */
  usage: { periodKey: string; used: number; reserved: number };
}

interface TokenRow {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const toRecord = (row: TokenRow): TokenRecord => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  prefix: row.prefix,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
});

/** last_used_at is written at most this often per token, to keep reads read-only. */
const LAST_USED_RESOLUTION_MS = 60_000;
export const MAX_TOKEN_NAME_LENGTH = 100;

export class TokenService {
  private readonly lastTouched = new Map<string, number>();

  constructor(private readonly sql: Sql) {}

  /** Creates a token; the plaintext is returned here once and never stored. */
  async create(
    accountId: string,
    options: { name?: string; expiresAt?: Date | null } = {},
  ): Promise<{ token: string; record: TokenRecord }> {
    const token = generateToken();
    const name = (options.name ?? "").trim().slice(0, MAX_TOKEN_NAME_LENGTH) || "API token";
    const [row] = await this.sql<TokenRow[]>`
      insert into api_tokens (id, account_id, name, prefix, token_hash, expires_at)
      values (${newId("tok")}, ${accountId}, ${name}, ${visiblePrefix(token)},
              ${hashToken(token)}, ${options.expiresAt ?? null})
      returning id, account_id, name, prefix, created_at, last_used_at, expires_at, revoked_at`;
    if (!row) throw new Error("token insert returned nothing");
    return { token, record: toRecord(row) };
  }

  async list(accountId: string): Promise<TokenRecord[]> {
    const rows = await this.sql<TokenRow[]>`
      select id, account_id, name, prefix, created_at, last_used_at, expires_at, revoked_at
      from api_tokens where account_id = ${accountId} order by created_at desc, id desc`;
    return rows.map(toRecord);
  }

  /** Revokes a token of this account; false when there is no such (active) token. */
  async revoke(accountId: string, tokenId: string): Promise<boolean> {
    if (!isId("tok", tokenId)) return false;
    const rows = await this.sql`
      update api_tokens set revoked_at = now()
      where id = ${tokenId} and account_id = ${accountId} and revoked_at is null
      returning id`;
    return rows.length > 0;
  }

  /** Finds a token by id whatever its account (admin CLI). */
  async findById(tokenId: string): Promise<TokenRecord | undefined> {
    if (!isId("tok", tokenId)) return undefined;
    const [row] = await this.sql<TokenRow[]>`
      select id, account_id, name, prefix, created_at, last_used_at, expires_at, revoked_at
      from api_tokens where id = ${tokenId}`;
    return row ? toRecord(row) : undefined;
  }

  /**
   * The principal for a presented token, or undefined for any failure (malformed, bad
   * checksum, unknown, revoked, expired) — callers must not tell these apart to clients.
   */
  async authenticate(token: string): Promise<Principal | undefined> {
    if (!isWellFormedToken(token)) return undefined;
    const periodKey = quotaPeriod().key;
    const [row] = await this.sql<
      {
        token_id: string;
        account_id: string;
        plan_id: PlanId;
        monthly_quota: number;
        requests_per_minute: number;
        used: number | null;
        reserved: number | null;
      }[]
    >`
      select t.id as token_id, a.id as account_id, a.plan_id, p.monthly_quota,
             coalesce(a.rate_limit_per_minute, p.requests_per_minute) as requests_per_minute,
             u.used, u.reserved
      from api_tokens t
      join accounts a on a.id = t.account_id
      join plans p on p.id = a.plan_id
      left join usage_periods u on u.account_id = a.id and u.period_start = ${periodKey}
      where t.token_hash = ${hashToken(token)}
        and t.revoked_at is null
        and (t.expires_at is null or t.expires_at > now())`;
    if (!row) return undefined;
    this.touch(row.token_id);
    return {
      accountId: row.account_id,
      tokenId: row.token_id,
      planId: row.plan_id,
      monthlyQuota: row.monthly_quota,
      requestsPerMinute: row.requests_per_minute,
      usage: { periodKey, used: row.used ?? 0, reserved: row.reserved ?? 0 },
    };
  }

  /** Records last use, at most once a minute per token and without delaying the request. */
  private touch(tokenId: string): void {
    const now = Date.now();
    const last = this.lastTouched.get(tokenId) ?? 0;
    if (now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastTouched.set(tokenId, now);
    if (this.lastTouched.size > 10_000) this.lastTouched.clear();
    this.sql`update api_tokens set last_used_at = now() where id = ${tokenId}`.catch(() => {
      this.lastTouched.delete(tokenId);
    });
  }
}
