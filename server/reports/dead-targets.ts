/**
 * Dead targets fail fast (docs/target-policy.md, "Dead targets fail fast"). A site that
 * accepts connections and never answers holds its target's slots for the whole connect or
 * first-byte deadline on every analysis; a flood of such reports would keep every slot of the
 * target (its host, and the address it shares with other customers' sites) busy.
 *
 * So a target key (`host:…`, `addr:…`) whose last analysis got no answer in time is remembered
 * for DEAD_TARGET_WINDOW_MS. Meanwhile a new analysis of any of its keys first makes one quick
 * reachability check — a connect and the first byte of the homepage within
 * DEAD_TARGET_CHECK_MS — and ends `site_unreachable` at once when it still does not answer. A
 * live site on a remembered address passes the check and runs as usual; any analysis that gets
 * an answer forgets its keys, so one live site clears its shared address.
 */
import type { Sql } from "../platform/db/database.ts";

/** Why a site_unreachable means "gave no answer in time" (a refused connection is fast already). */
const NO_ANSWER = new Set(["timeout", "aborted"]);

export interface DeadTargetSettings {
  /** DEAD_TARGET_WINDOW_MS: how long a target that gave no answer is checked first. 0: never. */
  windowMs: number;
  /** DEAD_TARGET_CHECK_MS: the quick check's deadline for a connect and the first byte. */
  checkMs: number;
}

export class DeadTargets {
  constructor(
    private readonly sql: Sql,
    readonly settings: DeadTargetSettings,
  ) {}

  /**
   * The key of one site's origin (scheme, host and port): a dead port of a live host (another
   * site on it answers) is still checked quickly, though the host's key is cleared.
   */
  static originKey(target: string): string {
    return `origin:${new URL(target).origin}`;
  }

  /** True when a failure's reason means the target gave no answer within its deadline. */
  static isNoAnswer(reason: unknown): boolean {
    return typeof reason === "string" && NO_ANSWER.has(reason);
  }

  /** The quick check's deadline when any of the keys gave no answer lately; undefined otherwise. */
  async checkFor(keys: readonly string[]): Promise<number | undefined> {
    if (this.settings.windowMs <= 0 || keys.length === 0) return undefined;
    const rows = await this.sql`
      select 1 from dead_targets where target in ${this.sql(keys as string[])} and until > now() limit 1`;
    return rows.length > 0 ? this.settings.checkMs : undefined;
  }

  /** The keys' analysis got no answer: check them first for the next window. */
  async noAnswer(keys: readonly string[], reason: string): Promise<void> {
    if (this.settings.windowMs <= 0) return;
    await this.sql`delete from dead_targets where until < now()`;
    for (const key of keys) {
      await this.sql`
        insert into dead_targets (target, until, reason)
        values (${key}, now() + ${this.settings.windowMs} * interval '1 millisecond', ${reason})
        on conflict (target) do update set until = excluded.until, reason = excluded.reason`;
    }
  }

  /** The keys' analysis got an answer: they are alive. */
  async answered(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.sql`delete from dead_targets where target in ${this.sql(keys as string[])}`;
  }
}
