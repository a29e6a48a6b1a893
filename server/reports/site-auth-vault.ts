/**
 * Site credentials on their way to the worker, which may be another process: sealed with
 * AES-256-GCM (the report id as additional data, so a sealed value cannot be moved to another
 * report) into `site_auth_secrets`, in the transaction that queues the report; opened by the
 * worker when the analysis starts; deleted in the transaction that stores the report's outcome.
 * The database never holds them readable, and holds even the ciphertext only while the report
 * is unfinished (the sweeper removes what a crash left behind).
 *
 * Keys: SITE_AUTH_KEY (32 bytes; a list for rotation — the first seals, all open), the same on
 * every process. On the embedded database, without it, a key is made at start-up and kept in
 * memory only: the one process that owns the database queues and analyses, and a report queued
 * before a restart fails cleanly (uncharged) instead of being analyzed without its credentials.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { SiteAuth } from "../../shared/site-auth.ts";
import type { Queryable, Sql } from "../platform/db/database.ts";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A short public name of a key: which one sealed a row, without saying anything of the key. */
function keyId(key: Uint8Array): string {
  return createHash("sha256").update("wpreport site-auth key id").update(key).digest("hex").slice(0, 16);
}

export type OpenedSiteAuth = { kind: "none" } | { kind: "open"; auth: SiteAuth } | { kind: "unreadable"; why: string };

export class SiteAuthVault {
  private readonly keys: { id: string; key: Uint8Array }[];

  /** `keys[0]` seals; every key opens. Each is 32 bytes. */
  constructor(
    private readonly sql: Sql,
    keys: readonly Uint8Array[],
    /** True when the key was made at start-up (not configured): it dies with the process. */
    readonly ephemeral = false,
  ) {
    if (keys.length === 0 || keys.some((key) => key.byteLength !== 32)) throw new Error("site-auth keys are 32 bytes");
    this.keys = keys.map((key) => ({ id: keyId(key), key }));
  }

  /** A vault whose key lives in this process's memory only (the embedded database's single process). */
  static ephemeral(sql: Sql): SiteAuthVault {
    return new SiteAuthVault(sql, [randomBytes(32)], true);
  }

  /** Seals the credentials of a report, inside the transaction that queues it. */
  async seal(tx: Queryable, reportId: string, auth: SiteAuth, expiresAt: Date): Promise<void> {
    const [current] = this.keys;
    if (!current) throw new Error("no site-auth key");
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", current.key, iv);
    cipher.setAAD(Buffer.from(reportId, "utf8"));
    const body = Buffer.concat([cipher.update(JSON.stringify(auth), "utf8"), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]);
    await tx`
      insert into site_auth_secrets (report_id, key_id, sealed, expires_at)
      values (${reportId}, ${current.id}, ${sealed}, ${expiresAt})`;
  }

  /** The credentials of a report, for its analysis; `unreadable` when no key of this process opens them. */
  async open(reportId: string): Promise<OpenedSiteAuth> {
    const [row] = await this.sql<{ key_id: string; sealed: Uint8Array }[]>`
      select key_id, sealed from site_auth_secrets where report_id = ${reportId}`;
    if (!row) return { kind: "none" };
    const key = this.keys.find((candidate) => candidate.id === row.key_id);
    if (!key) {
      return {
        kind: "unreadable",
        why: this.ephemeral
          ? "they were sealed by an earlier run of the service (the embedded database's key lives in memory only)"
          : "they were sealed with a key this process does not have (SITE_AUTH_KEY differs between processes, or was rotated without keeping the old key)",
      };
    }
    try {
      const sealed = Buffer.from(row.sealed);
      const decipher = createDecipheriv("aes-256-gcm", key.key, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(reportId, "utf8"));
      decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      return { kind: "open", auth: JSON.parse(text.toString("utf8")) as SiteAuth };
    } catch {
      return { kind: "unreadable", why: "they did not decrypt (the stored value was altered)" };
    }
  }

  /** Deletes a report's credentials (with its outcome, in the same transaction). */
  async discard(tx: Queryable, reportId: string): Promise<void> {
    await tx`delete from site_auth_secrets where report_id = ${reportId}`;
  }

  /** Deletes credentials past their expiry or of finished reports (left by a crash). */
  async sweep(): Promise<number> {
    const rows = await this.sql`
      delete from site_auth_secrets s
      where s.expires_at < now()
         or exists (select 1 from reports r where r.id = s.report_id and r.status in ('completed', 'failed'))
      returning s.report_id`;
    return rows.length;
  }
}

/**
 * SITE_AUTH_KEY's keys: comma-separated, each 32 bytes as 64 hex digits or base64 (standard or
 * URL-safe). Undefined when unset; a list of problems (for the configuration's report) when bad.
 */
export function parseSiteAuthKeys(raw: string | undefined): { keys?: Uint8Array[]; problems: string[] } {
  if (raw === undefined || raw.trim() === "") return { problems: [] };
  const keys: Uint8Array[] = [];
  const problems: string[] = [];
  for (const [index, entry] of raw
    .split(",")
    .map((part) => part.trim())
    .entries()) {
    const bytes = /^[0-9a-fA-F]{64}$/.test(entry)
      ? Buffer.from(entry, "hex")
      : /^[A-Za-z0-9+/_-]{43}=?$/.test(entry)
        ? Buffer.from(entry.replaceAll("-", "+").replaceAll("_", "/"), "base64")
        : undefined;
    if (bytes?.byteLength !== 32) {
      // Never echo the value: it is a secret.
      problems.push(
        `SITE_AUTH_KEY entry ${index + 1} must be 32 random bytes as 64 hex digits or base64 (e.g. the output of: openssl rand -base64 32)`,
      );
      continue;
    }
    keys.push(bytes);
  }
  return problems.length > 0 ? { problems } : { keys, problems };
}
