/**
 * The component intelligence a report is given: for the components it detected, their
 * advisories from every served source and their latest version (the newest any source
 * knows: an imported file, or WordPress.org), with the sources and their attribution.
 */
import type { IntelSource } from "../../shared/report.ts";
import type { Intel, IntelComponent, IntelVulnerability } from "../analyzer/intel/data.ts";
import { FILE_SOURCE_ID } from "../analyzer/intel/data.ts";
import type { IntelQuery } from "../analyzer/intel/query.ts";
import { compareVersions } from "../analyzer/intel/versions.ts";
import type { AdvisoryRow, ComponentType, IntelStore, LatestVersionRow, SourceRow } from "./intel.store.ts";
import { componentKey, type LatestVersions, queriedComponents } from "./latest-versions.ts";
import { WORDFENCE_SOURCE_ID, WORDFENCE_SOURCE_NAME, WPORG_SOURCE_ID, WPORG_SOURCE_NAME } from "./source-ids.ts";

/** Sources listed first win when two report the same CVE. */
const SOURCE_ORDER = [WORDFENCE_SOURCE_ID, FILE_SOURCE_ID];

function vulnerabilityOf(row: AdvisoryRow & { source: string }): IntelVulnerability {
  return {
    id: row.id,
    title: row.title,
    severity: row.severity,
    cvss: row.cvss_score === null ? null : Math.round(row.cvss_score * 10) / 10,
    cvss_rating: row.cvss_rating,
    cvss_vector: row.cvss_vector,
    cve: row.cve,
    affected: row.affected,
    patched: row.patched,
    references: row.refs,
    source: row.source,
  };
}

function sourceInfo(row: SourceRow): IntelSource {
  if (row.id === WORDFENCE_SOURCE_ID) {
    return {
      id: row.id,
      name: WORDFENCE_SOURCE_NAME,
      as_of: row.as_of ? new Date(row.as_of).toISOString() : null,
      attribution: row.attribution,
      url: "https://www.wordfence.com/threat-intel/vulnerabilities/",
    };
  }
  return {
    id: row.id,
    name: row.id === FILE_SOURCE_ID ? "Imported intel file" : row.id,
    as_of: row.as_of ? new Date(row.as_of).toISOString() : null,
    attribution: row.attribution,
    url: null,
  };
}

/** Components whose served advisories and file versions are kept in memory (core and popular plugins recur). */
const CACHE_LIMIT = 5_000;

interface Cached {
  advisories: (AdvisoryRow & { source: string })[];
  latest: (LatestVersionRow & { source: string })[];
}

export class IntelService {
  /**
   * Advisories and file versions by component, valid for one set of served generations:
   * an import changes the key, and the cache starts afresh. Core alone has hundreds of
   * advisories; reading and parsing them for every report cost ~10 ms (bench:intel).
   */
  private cache = new Map<string, Cached>();
  private cacheKey = "";

  constructor(
    readonly store: IntelStore,
    readonly latest: LatestVersions,
    private readonly budgetMs: number,
  ) {}

  /** Slugs with known vulnerabilities, worst first, for aggressive enumeration's plan; cached like lookups. */
  vulnerableSlugs = async (limit: number): Promise<{ plugins: string[]; themes: string[] }> => {
    const key = (await this.store.sources()).map((source) => `${source.id}:${source.generation}`).join(",");
    if (this.vulnerable?.key !== key || this.vulnerable.limit !== limit) {
      const [plugins, themes] = await Promise.all([
        this.store.vulnerableSlugs("plugin", limit),
        this.store.vulnerableSlugs("theme", limit),
      ]);
      this.vulnerable = { key, limit, slugs: { plugins, themes } };
    }
    return this.vulnerable.slugs;
  };
  private vulnerable: { key: string; limit: number; slugs: { plugins: string[]; themes: string[] } } | undefined;

  /** The Intel for one report's components (an IntelLookup). Never slower than the budget plus a few queries. */
  lookup = async (query: IntelQuery): Promise<Intel> => {
    const [sources, wporg] = await Promise.all([this.store.sources(), this.latest.forQuery(query, this.budgetMs)]);
    const served = sources.filter((source) => source.generation !== null);
    const found = await this.served(query, served);
    let advisories = found.advisories;
    const fileVersions = found.fileVersions;
    const components = new Map<string, IntelComponent>();
    const entry = (type: ComponentType, slug: string): IntelComponent => {
      const key = componentKey(type, slug);
      let found = components.get(key);
      if (!found) {
        found = { latest_version: null, latest_version_reason: null, vulnerabilities: [] };
        components.set(key, found);
      }
      return found;
    };

    // Advisories, one per CVE across sources (the first source in SOURCE_ORDER wins).
    advisories = [...advisories];
    const rank = (source: string) => {
      const index = SOURCE_ORDER.indexOf(source);
      return index === -1 ? SOURCE_ORDER.length : index;
    };
    advisories.sort((a, b) => rank(a.source) - rank(b.source) || a.id.localeCompare(b.id));
    const seen = new Set<string>();
    for (const row of advisories) {
      const key = componentKey(row.component_type, row.slug);
      const identity = row.cve.length > 0 ? `${key}|${row.cve[0]}` : `${key}|${row.source}|${row.id}`;
      if (seen.has(identity)) continue;
      seen.add(identity);
      entry(row.component_type, row.slug).vulnerabilities.push(vulnerabilityOf(row));
    }

    // Latest version: the newest any source knows.
    const newer = (current: string | null, candidate: string) =>
      current === null || (compareVersions(candidate, current) ?? 0) > 0 ? candidate : current;
    for (const row of fileVersions) {
      const component = entry(row.component_type, row.slug);
      component.latest_version = newer(component.latest_version, row.latest_version);
    }
    let wporgUsed = false;
    let wporgOldest: Date | null = null;
    for (const [type, slug] of queriedComponents(query)) {
      const component = entry(type, slug);
      const answer = wporg.get(componentKey(type, slug));
      if (answer?.latest_version) {
        component.latest_version = newer(component.latest_version, answer.latest_version);
        wporgUsed = true;
        // The report's as-of for WordPress.org: its oldest answer used.
        const at = answer.fetched_at ? new Date(answer.fetched_at) : null;
        if (at && (!wporgOldest || at < wporgOldest)) wporgOldest = at;
      }
      if (component.latest_version === null) {
        component.latest_version_reason = answer?.reason ?? (this.latest.enabled ? "lookup_failed" : "no_data");
      }
    }

    const reportSources = served.map(sourceInfo);
    if (wporgUsed) {
      reportSources.push({
        id: WPORG_SOURCE_ID,
        name: WPORG_SOURCE_NAME,
        as_of: wporgOldest ? (wporgOldest as Date).toISOString() : null,
        attribution: null,
        url: "https://wordpress.org/plugins/",
      });
    }
    const byType = (type: ComponentType) =>
      new Map(
        [...components]
          .filter(([key]) => key.startsWith(`${type}:`))
          .map(([key, value]) => [key.slice(type.length + 1), value] as const),
      );
    const file = served.find((source) => source.id === FILE_SOURCE_ID);
    return {
      updated: file?.as_of ? new Date(file.as_of).toISOString().slice(0, 10) : null,
      wordpress: components.get(componentKey("wordpress", "wordpress")) ?? null,
      plugins: byType("plugin"),
      themes: byType("theme"),
      vulnerabilityData: served.length > 0,
      sources: reportSources,
    };
  };

  /** The served advisories and file versions of the queried components, from memory when it can. */
  private async served(
    query: IntelQuery,
    served: SourceRow[],
  ): Promise<{
    advisories: (AdvisoryRow & { source: string })[];
    fileVersions: (LatestVersionRow & { source: string })[];
  }> {
    const key = served.map((source) => `${source.id}@${source.generation}`).join(",");
    if (key !== this.cacheKey || this.cache.size > CACHE_LIMIT) {
      this.cache = new Map();
      this.cacheKey = key;
    }
    const components = queriedComponents(query);
    const missing = components.filter(([type, slug]) => !this.cache.has(componentKey(type, slug)));
    if (missing.length > 0) {
      const ask: IntelQuery = {
        wordpress: missing.some(([type]) => type === "wordpress"),
        plugins: missing.filter(([type]) => type === "plugin").map(([, slug]) => slug),
        themes: missing.filter(([type]) => type === "theme").map(([, slug]) => slug),
      };
      const [rows, versions] = await Promise.all([this.store.advisories(ask), this.store.latestVersions(ask)]);
      const cache = this.cacheKey === key ? this.cache : new Map<string, Cached>();
      for (const [type, slug] of missing) cache.set(componentKey(type, slug), { advisories: [], latest: [] });
      for (const row of rows) cache.get(componentKey(row.component_type, row.slug))?.advisories.push(row);
      for (const row of versions) cache.get(componentKey(row.component_type, row.slug))?.latest.push(row);
      if (cache !== this.cache) return collect(cache, components);
    }
    return collect(this.cache, components);
  }
}

function collect(
  cache: Map<string, Cached>,
  components: [ComponentType, string][],
): { advisories: (AdvisoryRow & { source: string })[]; fileVersions: (LatestVersionRow & { source: string })[] } {
  const entries = components.map(([type, slug]) => cache.get(componentKey(type, slug)));
  return {
    advisories: entries.flatMap((entry) => entry?.advisories ?? []),
    fileVersions: entries.flatMap((entry) => entry?.latest ?? []),
  };
}
