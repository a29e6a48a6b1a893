/**
 * Browser sessions: a random 256-bit id in an HttpOnly cookie, stored only as its SHA-256.
 * A new id is issued at every login (no session fixation) and the old one is deleted.
 * Sessions last 30 days, sliding: each use moves the expiry forward (at most once a minute).
 * Part of the web shell (web.plugin.ts resolves every page's session); accounts' log-in
 * pages start and end them through context.ts (startSession, endSession).
 */
import { createHash, randomBytes } from "node:crypto";
import type { Sql } from "../platform/db/database.ts";

export const SESSION_COOKIE = "wpr_session";
export const SESSION_DAYS = 30;
const SLIDE_RESOLUTION_MS = 60_000;

const hash = (id: string) => createHash("sha256").update(id).digest();

export interface WebSession {
  accountId: string;
  email: string;
}

export class SessionService {
  constructor(private readonly sql: Sql) {}

  /** Starts a session for the account; returns the cookie value (shown to nobody else). */
  async create(accountId: string): Promise<string> {
    const id = randomBytes(32).toString("base64url");
    await this.sql`
      insert into sessions (id_hash, account_id, expires_at)
      values (${hash(id)}, ${accountId}, now() + ${SESSION_DAYS} * interval '1 day')`;
    return id;
  }

  async lookup(id: string | undefined): Promise<WebSession | undefined> {
    if (!id || id.length > 100) return undefined;
    const [row] = await this.sql<{ account_id: string; email: string; last_seen_at: Date }[]>`
      select s.account_id, a.email, s.last_seen_at from sessions s join accounts a on a.id = s.account_id
      where s.id_hash = ${hash(id)} and s.expires_at > now()`;
    if (!row) return undefined;
    if (Date.now() - row.last_seen_at.getTime() > SLIDE_RESOLUTION_MS) {
      await this.sql`
        update sessions set last_seen_at = now(), expires_at = now() + ${SESSION_DAYS} * interval '1 day'
        where id_hash = ${hash(id)}`;
    }
    return { accountId: row.account_id, email: row.email };
  }

  async destroy(id: string | undefined): Promise<void> {
    if (id) await this.sql`delete from sessions where id_hash = ${hash(id)}`;
  }

  /** Ends every session of an account except `keep` (after a password change). */
  async destroyOthers(accountId: string, keep: string | undefined): Promise<void> {
    await this.sql`
      delete from sessions where account_id = ${accountId}
      ${keep ? this.sql`and id_hash <> ${hash(keep)}` : this.sql``}`;
  }

  async sweepExpired(): Promise<number> {
    return (await this.sql`delete from sessions where expires_at < now() returning 1`).length;
  }
}
