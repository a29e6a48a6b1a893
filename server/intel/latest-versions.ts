/**
 * Latest versions from WordPress.org, on demand for the components a report detects, cached
 * in the database with a TTL. A report waits for missing answers at most its budget; an
 * answer that comes later is still cached for the next report. A stale answer is served as
 * it is while a fresh one is fetched in the background.
 */

import type { LatestVersionReason } from "../../shared/report.ts";
import type { IntelQuery } from "../analyzer/intel/query.ts";
import type { Logger } from "../platform/logger.ts";
import type { ComponentType, IntelStore, WporgAnswer } from "./intel.store.ts";
import { answersWithin, LookupPool } from "./lookup-pool.ts";
import type { LatestAnswer, WporgClient } from "./wporg.ts";

/** How long an answer is kept: a release changes often, a directory listing rarely, a failure is retried soon. */
export const TTL_MS = {
  found: 12 * 3600_000,
  absent: 24 * 3600_000,
  failed: 10 * 60_000,
} as const;

/** Requests to WordPress.org at once, across every report of this process. */
const CONCURRENCY = 4;

export interface LatestVersion {
  latest_version: string | null;
  reason: LatestVersionReason | null;
  /** When WordPress.org said so; null when it did not (in time). */
  fetched_at: Date | null;
}

export const componentKey = (type: ComponentType, slug: string) => `${type}:${slug}`;

export function queriedComponents(query: IntelQuery): [ComponentType, string][] {
  return [
    ...(query.wordpress ? [["wordpress", "wordpress"] as [ComponentType, string]] : []),
    ...query.plugins.map((slug) => ["plugin", slug] as [ComponentType, string]),
    ...query.themes.map((slug) => ["theme", slug] as [ComponentType, string]),
  ];
}

export class LatestVersions {
  private readonly lookups = new LookupPool<LatestVersion>(CONCURRENCY);

  constructor(
    private readonly store: IntelStore,
    /** null: WordPress.org lookups are off (WPORG_API_URL=off, air-gapped). */
    private readonly client: WporgClient | null,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.client !== null;
  }

  /** Answers for every queried component, waiting at most `budgetMs` for missing ones. */
  async forQuery(query: IntelQuery, budgetMs: number): Promise<Map<string, LatestVersion>> {
    const answers = new Map<string, LatestVersion>();
    if (!this.client) return answers;
    const cached = new Map<string, WporgAnswer>(
      (await this.store.wporgAnswers(query)).map((row) => [componentKey(row.component_type, row.slug), row]),
    );
    const now = Date.now();
    const pending: [string, Promise<LatestVersion>][] = [];
    for (const [type, slug] of queriedComponents(query)) {
      const key = componentKey(type, slug);
      const row = cached.get(key);
      if (row) {
        answers.set(key, { latest_version: row.latest_version, reason: row.reason, fetched_at: row.fetched_at });
        if (new Date(row.expires_at).getTime() <= now) void this.fetch(type, slug).catch(() => {});
        continue;
      }
      pending.push([key, this.fetch(type, slug)]);
    }
    if (pending.length === 0) return answers;
    const late = await answersWithin(pending, budgetMs, () => ({
      latest_version: null,
      reason: "lookup_failed" as const,
      fetched_at: null,
    }));
    for (const [key, answer] of late) answers.set(key, answer);
    return answers;
  }

  /** One lookup per component at a time, however many reports ask; the answer is cached. */
  fetch(type: ComponentType, slug: string): Promise<LatestVersion> {
    const key = componentKey(type, slug);
    return this.lookups.run(key, async () => {
      const client = this.client as WporgClient;
      let answer: LatestAnswer;
      let ttl: number;
      try {
        answer = await client.latest(type, slug);
        ttl = answer.latest_version ? TTL_MS.found : TTL_MS.absent;
      } catch (error) {
        this.logger.warn("WordPress.org lookup failed", { component: key, error: (error as Error).message });
        answer = { latest_version: null, reason: "lookup_failed" };
        ttl = TTL_MS.failed;
      }
      await this.store.saveWporgAnswer({ component_type: type, slug, ...answer }, ttl);
      return { ...answer, fetched_at: answer.reason === "lookup_failed" ? null : new Date() };
    });
  }
}
