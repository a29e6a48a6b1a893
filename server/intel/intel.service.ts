/**
 * The component intelligence a report is given: for the components it detected, their
 * advisories from every served source and their latest version (the newest any source
 * knows: an imported file, or WordPress.org), with the sources and their attribution.
 */
import type { IntelSource, UncheckedComponent, VulnerabilityData } from "../../shared/report.ts";
import type { Intel, IntelComponent, IntelVulnerability } from "../analyzer/intel/data.ts";
import { FILE_SOURCE_ID } from "../analyzer/intel/data.ts";
import type { IntelQuery } from "../analyzer/intel/query.ts";
import { compareVersions } from "../analyzer/intel/versions.ts";
import type { AdvisoryRow, ComponentType, IntelStore, LatestVersionRow, SourceRow } from "./intel.store.ts";
import { componentKey, type LatestVersions, queriedComponents } from "./latest-versions.ts";
import {
  WORDFENCE_SOURCE_ID,
  WORDFENCE_SOURCE_NAME,
  WPORG_SOURCE_ID,
  WPVULNERABILITY_ATTRIBUTION,
  WPVULNERABILITY_SOURCE_ID,
  WPVULNERABILITY_SOURCE_NAME,
} from "./source-ids.ts";
import { atSentenceStart, ORIGINAL_SOURCE_NAMES, type SourceNames } from "./source-names.ts";
import {
  type WpvulnerabilityLookups,
  type WpvulnerabilityResult,
  wpvulnerabilityComponents,
} from "./wpvulnerability-lookups.ts";

/** Sources listed first win when two report the same advisory: theirs is the entry shown. */
const SOURCE_ORDER = [WORDFENCE_SOURCE_ID, FILE_SOURCE_ID, WPVULNERABILITY_SOURCE_ID];
const rank = (source: string) => {
  const index = SOURCE_ORDER.indexOf(source);
  return index === -1 ? SOURCE_ORDER.length : index;
};

/** A reference URL as two sources may both write it: no query, fragment or trailing slash, lower case. */
function referenceKey(url: string): string {
  return url
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "")
    .toLowerCase();
}

/**
 * One component's advisories from every source, one entry per advisory: two entries are the
 * same advisory when they share a CVE, when one names the other's id, or when they link the
 * same advisory page. The entry of the first source in SOURCE_ORDER is kept and names them all
 * (`sources`), with the CVEs and references of both.
 */
export function mergeAdvisories(entries: readonly IntelVulnerability[]): IntelVulnerability[] {
  const ordered = [...entries].sort((a, b) => rank(a.source) - rank(b.source) || a.id.localeCompare(b.id));
  const merged: IntelVulnerability[] = [];
  const keysOf = (entry: IntelVulnerability) =>
    new Set([
      ...entry.cve.map((cve) => `cve:${cve}`),
      `id:${entry.id.toLowerCase()}`,
      ...(entry.aliases ?? []).map((alias) => `id:${alias.toLowerCase()}`),
      ...entry.references.map((url) => `ref:${referenceKey(url)}`),
    ]);
  const keys: Set<string>[] = [];
  for (const entry of ordered) {
    const own = keysOf(entry);
    const index = keys.findIndex((known) => [...own].some((key) => known.has(key)));
    if (index === -1) {
      merged.push({ ...entry, sources: [entry.source] });
      keys.push(own);
      continue;
    }
    const kept = merged[index] as IntelVulnerability;
    const sources = kept.sources ?? [kept.source];
    merged[index] = {
      ...kept,
      sources: sources.includes(entry.source) ? sources : [...sources, entry.source],
      cve: [...new Set([...kept.cve, ...entry.cve])],
      references: [...new Set([...kept.references, ...entry.references])].slice(0, 20),
      aliases: [...new Set([...(kept.aliases ?? []), entry.id, ...(entry.aliases ?? [])])],
    };
    for (const key of own) keys[index]?.add(key);
  }
  return merged;
}

export function vulnerabilityOf(
  row: Omit<AdvisoryRow, "published_at" | "updated_at"> & { source: string },
): IntelVulnerability {
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

function sourceInfo(row: SourceRow, names: SourceNames): IntelSource {
  if (row.id === WORDFENCE_SOURCE_ID) {
    return {
      id: row.id,
      name: names.wordfence.name,
      as_of: row.as_of ? new Date(row.as_of).toISOString() : null,
      attribution: row.attribution,
      url: names.wordfence.url,
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
    /** WPVulnerability's on-demand advisories; null: off. */
    readonly wpvulnerability: WpvulnerabilityLookups | null = null,
    /** How the report names each source: the originals, or the mirrors the service is configured with. */
    private readonly names: SourceNames = ORIGINAL_SOURCE_NAMES,
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
    const [sources, wporg, wpv] = await Promise.all([
      this.store.sources(),
      this.latest.forQuery(query, this.budgetMs),
      this.wpvulnerability?.forQuery(query, this.budgetMs) ?? Promise.resolve(new Map<string, WpvulnerabilityResult>()),
    ]);
    const served = sources.filter((source) => source.generation !== null);
    const found = await this.served(query, served);
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

    // Advisories: the feeds' and WPVulnerability's, one entry per advisory (mergeAdvisories).
    const byComponent = new Map<string, { type: ComponentType; slug: string; entries: IntelVulnerability[] }>();
    const add = (type: ComponentType, slug: string, advisories: readonly IntelVulnerability[]) => {
      const key = componentKey(type, slug);
      const held = byComponent.get(key) ?? { type, slug, entries: [] };
      held.entries.push(...advisories);
      byComponent.set(key, held);
    };
    for (const row of found.advisories) add(row.component_type, row.slug, [vulnerabilityOf(row)]);
    let wpvUsed = false;
    let wpvOldest: Date | null = null;
    for (const [type, key] of wpvulnerabilityComponents(query)) {
      const result = wpv.get(componentKey(type, key));
      if (result?.status !== "answered") continue;
      wpvUsed = true;
      if (!wpvOldest || result.fetched_at < wpvOldest) wpvOldest = result.fetched_at;
      add(type, type === "wordpress" ? "wordpress" : key, result.advisories);
    }
    for (const { type, slug, entries } of byComponent.values()) {
      entry(type, slug).vulnerabilities.push(...mergeAdvisories(entries));
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

    const reportSources = served.map((row) => sourceInfo(row, this.names));
    if (wpvUsed) {
      reportSources.push({
        id: WPVULNERABILITY_SOURCE_ID,
        name: this.names.wpvulnerability.name,
        as_of: wpvOldest ? (wpvOldest as Date).toISOString() : null,
        attribution: WPVULNERABILITY_ATTRIBUTION,
        url: this.names.wpvulnerability.url,
      });
    }
    if (wporgUsed) {
      reportSources.push({
        id: WPORG_SOURCE_ID,
        name: this.names.wporg.name,
        as_of: wporgOldest ? (wporgOldest as Date).toISOString() : null,
        attribution: null,
        url: this.names.wporg.url,
      });
    }
    const byType = (type: ComponentType) =>
      new Map(
        [...components]
          .filter(([key]) => key.startsWith(`${type}:`))
          .map(([key, value]) => [key.slice(type.length + 1), value] as const),
      );
    const file = served.find((source) => source.id === FILE_SOURCE_ID);
    const wordfence = sources.find((source) => source.id === WORDFENCE_SOURCE_ID);
    const feedState =
      wordfence && wordfence.generation === null
        ? `${this.names.wordfence.name} has no data yet${wordfence.last_error ? ` (${wordfence.last_error.replace(/\.+$/, "")})` : ""}`
        : undefined;
    const coverage = vulnerabilityCoverage(
      query,
      served.length > 0,
      this.wpvulnerability?.enabled ?? false,
      wpv,
      feedState,
      this.names.wpvulnerability.name,
    );
    return {
      updated: file?.as_of ? new Date(file.as_of).toISOString().slice(0, 10) : null,
      wordpress: components.get(componentKey("wordpress", "wordpress")) ?? null,
      plugins: byType("plugin"),
      themes: byType("theme"),
      vulnerabilityData: coverage.status !== "none",
      coverage,
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

const NOT_CONCLUSIVE = "and an empty list does not mean there are none";

/** How a component is named in the report's statement: "WordPress 6.1.9", "plugin akismet". */
function componentName(type: ComponentType, key: string): string {
  return type === "wordpress" ? `WordPress ${key}` : `${type} ${key}`;
}

/**
 * Which components no vulnerability source checked, and the report's statement about it.
 * A served feed (Wordfence, an intel file) covers every component; otherwise each one WPVulnerability
 * can be asked about (core needs a version) is checked only when it answered.
 */
export function vulnerabilityCoverage(
  query: IntelQuery,
  feedServed: boolean,
  wpvulnerabilityOn: boolean,
  results: ReadonlyMap<string, WpvulnerabilityResult>,
  /** Why no feed is served when one is configured ("Wordfence Intelligence has no data yet (…)"). */
  feedState = `${WORDFENCE_SOURCE_NAME} is not configured (WORDFENCE_API_KEY)`,
  /** How the report names WPVulnerability: itself, or the configured mirror (source-names.ts). */
  wpvName = WPVULNERABILITY_SOURCE_NAME,
): VulnerabilityData {
  if (feedServed) return { status: "complete", message: null, unchecked: [] };
  const asked = wpvulnerabilityComponents(query);
  const unchecked: (UncheckedComponent & { name: string })[] = [];
  for (const [type, key] of asked) {
    const result = results.get(componentKey(type, key));
    if (result?.status === "answered") continue;
    const reason = !wpvulnerabilityOn
      ? `No vulnerability source is available: ${feedState} and WPVulnerability lookups are off.`
      : `${(result?.reason ?? `${atSentenceStart(wpvName)} did not answer`).replace(/\.+$/, "")}.`;
    unchecked.push({
      type: type === "wordpress" ? "core" : type,
      slug: type === "wordpress" ? "wordpress" : key,
      reason,
      name: componentName(type, key),
    });
  }
  const gaps = unchecked.map(({ name: _name, ...gap }) => gap);
  if (!wpvulnerabilityOn) {
    return {
      status: "none",
      message: `No vulnerability data source is available on this service: ${feedState} and WPVulnerability lookups are off (WPVULNERABILITY_API_URL=off). The known vulnerabilities of the components are unknown, ${NOT_CONCLUSIVE}.`,
      unchecked: gaps,
    };
  }
  if (unchecked.length === 0) return { status: "complete", message: null, unchecked: [] };
  const first = unchecked[0] as UncheckedComponent;
  if (unchecked.length === asked.length) {
    return {
      status: "none",
      message: `No vulnerability data source answered for this report: ${feedState.replace(/ \(WORDFENCE_API_KEY\)$/, "")} and ${wpvName} did not answer (${first.reason.replace(/\.$/, "")}). The known vulnerabilities of the components are unknown, ${NOT_CONCLUSIVE}.`,
      unchecked: gaps,
    };
  }
  const named = unchecked.slice(0, 5).map((gap) => gap.name);
  return {
    status: "partial",
    message: `${atSentenceStart(wpvName)} did not answer for ${unchecked.length} of ${asked.length} components (${named.join(", ")}${unchecked.length > 5 ? ", …" : ""}: ${first.reason.replace(/\.$/, "")}). Their known vulnerabilities are not checked in this report, ${NOT_CONCLUSIVE}.`,
    unchecked: gaps,
  };
}
