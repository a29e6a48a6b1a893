/**
 * Accounts: one per customer (an email), holding the plan. Used by the admin CLI now and
 * by the web interface's sign-up later.
 */

import type { PlanId } from "../billing/plans.ts";
import type { Sql } from "../platform/db/database.ts";
import { newId } from "../platform/ids.ts";

/**
 * The plan a new account starts on (as accounts.plan_id's default in the schema). Here, not in
 * billing's catalogue: billing calls accounts' services, so accounts reads nothing of billing's
 * at run time (docs/decisions.md, "Feature folders import in one direction").
 */
export const DEFAULT_PLAN: PlanId = "free";

export interface Account {
  id: string;
  email: string;
  planId: PlanId;
  rateLimitPerMinute: number | null;
  createdAt: Date;
}

interface AccountRow {
  id: string;
  email: string;
  plan_id: PlanId;
  rate_limit_per_minute: number | null;
  created_at: Date;
}

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  email: row.email,
  planId: row.plan_id,
  rateLimitPerMinute: row.rate_limit_per_minute,
  createdAt: row.created_at,
});

// Deliberately loose (RFC 5321 allows a lot); it only has to reject obvious mistakes.
const EMAIL_PATTERN = /^[^\s@<>()",;]+@[^\s@<>()",;]+\.[^\s@<>()",;]+$|^[^\s@<>()",;]+@localhost$/;

export function normaliseEmail(email: string): string | undefined {
  const trimmed = email.trim();
  if (trimmed.length > 254 || !EMAIL_PATTERN.test(trimmed)) return undefined;
  return trimmed.toLowerCase();
}

export class AccountService {
  constructor(private readonly sql: Sql) {}

  async findByEmail(email: string): Promise<Account | undefined> {
    const [row] = await this.sql<AccountRow[]>`
      select id, email, plan_id, rate_limit_per_minute, created_at
      from accounts where lower(email) = lower(${email})`;
    return row ? toAccount(row) : undefined;
  }

  async findById(id: string): Promise<Account | undefined> {
    const [row] = await this.sql<AccountRow[]>`
      select id, email, plan_id, rate_limit_per_minute, created_at from accounts where id = ${id}`;
    return row ? toAccount(row) : undefined;
  }

  async list(): Promise<Account[]> {
    const rows = await this.sql<AccountRow[]>`
      select id, email, plan_id, rate_limit_per_minute, created_at from accounts order by created_at`;
    return rows.map(toAccount);
  }

  async count(): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`select count(*)::int as n from accounts`;
    return row?.n ?? 0;
  }

  /** Returns the account for this email, creating it (on `plan`, or Free) if needed. */
  async ensure(email: string, plan?: PlanId): Promise<{ account: Account; created: boolean }> {
    const [inserted] = await this.sql<AccountRow[]>`
      insert into accounts (id, email, plan_id)
      values (${newId("acc")}, ${email}, ${plan ?? DEFAULT_PLAN})
      on conflict (lower(email)) do nothing
      returning id, email, plan_id, rate_limit_per_minute, created_at`;
    if (inserted) return { account: toAccount(inserted), created: true };
    const existing = await this.findByEmail(email);
    if (!existing) throw new Error(`account ${email} vanished while being created`);
    if (plan && existing.planId !== plan) {
      return { account: await this.setPlan(existing.id, plan), created: false };
    }
    return { account: existing, created: false };
  }

  /** Plan changes take effect at once (docs/plans.md): quota and rate limit are read live. */
  async setPlan(accountId: string, plan: PlanId): Promise<Account> {
    const [row] = await this.sql<AccountRow[]>`
      update accounts set plan_id = ${plan}, updated_at = now() where id = ${accountId}
      returning id, email, plan_id, rate_limit_per_minute, created_at`;
    if (!row) throw new Error(`no account ${accountId}`);
    return toAccount(row);
  }

  async setRateLimitOverride(accountId: string, perMinute: number | null): Promise<Account> {
    const [row] = await this.sql<AccountRow[]>`
      update accounts set rate_limit_per_minute = ${perMinute}, updated_at = now()
      where id = ${accountId}
      returning id, email, plan_id, rate_limit_per_minute, created_at`;
    if (!row) throw new Error(`no account ${accountId}`);
    return toAccount(row);
  }
}

/** Billing and sign-in state of an account, for the web interface. */
export interface AccountDetails extends Account {
  hasPassword: boolean;
  stripeCustomerId: string | null;
  subscriptionStatus: string | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
}

export class AccountAuthService {
  constructor(private readonly sql: Sql) {}

  /** Creates an account with a password; undefined when the email is taken. */
  async createWithPassword(email: string, passwordHash: string): Promise<Account | undefined> {
    const [row] = await this.sql<AccountRow[]>`
      insert into accounts (id, email, plan_id, password_hash, password_changed_at)
      values (${newId("acc")}, ${email}, ${DEFAULT_PLAN}, ${passwordHash}, now())
      on conflict (lower(email)) do nothing
      returning id, email, plan_id, rate_limit_per_minute, created_at`;
    return row ? toAccount(row) : undefined;
  }

  /** The stored hash for an email (null hash: the account has no password, e.g. made by the CLI). */
  async credentials(email: string): Promise<{ accountId: string; passwordHash: string | null } | undefined> {
    const [row] = await this.sql<{ id: string; password_hash: string | null }[]>`
      select id, password_hash from accounts where lower(email) = lower(${email})`;
    return row ? { accountId: row.id, passwordHash: row.password_hash } : undefined;
  }

  async passwordHash(accountId: string): Promise<string | null> {
    const [row] = await this.sql<
      { password_hash: string | null }[]
    >`select password_hash from accounts where id = ${accountId}`;
    return row?.password_hash ?? null;
  }

  async setPassword(accountId: string, passwordHash: string): Promise<void> {
    await this.sql`
      update accounts set password_hash = ${passwordHash}, password_changed_at = now(), updated_at = now()
      where id = ${accountId}`;
  }

  async details(accountId: string): Promise<AccountDetails | undefined> {
    const [row] = await this.sql<
      (AccountRow & {
        password_hash: string | null;
        stripe_customer_id: string | null;
        subscription_status: string | null;
        current_period_end: Date | null;
        cancel_at_period_end: boolean;
      })[]
    >`
      select id, email, plan_id, rate_limit_per_minute, created_at, password_hash, stripe_customer_id,
             subscription_status, current_period_end, cancel_at_period_end
      from accounts where id = ${accountId}`;
    if (!row) return undefined;
    return {
      ...toAccount(row),
      hasPassword: row.password_hash !== null,
      stripeCustomerId: row.stripe_customer_id,
      subscriptionStatus: row.subscription_status,
      currentPeriodEnd: row.current_period_end,
      cancelAtPeriodEnd: row.cancel_at_period_end,
    };
  }
}
