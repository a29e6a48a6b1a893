/**
 * The component intelligence tables (migration 0004): imports written as generations and
 * swapped in atomically, the per-report lookup, and WordPress.org's cached answers.
 *
 * One import of a source at a time is enforced by a lease on the source row rather than an
 * advisory lock: PGlite is a single session, where advisory locks exclude nobody.
 */
import type { LatestVersionReason, Severity } from "../../shared/report.ts";
import type { IntelVulnerability } from "../analyzer/intel/data.ts";
import type { IntelQuery } from "../analyzer/intel/query.ts";
import type { VersionRange } from "../analyzer/intel/versions.ts";
import type { Queryable, Sql } from "../platform/db/database.ts";
import { type AddedAdvisory, AdvisoriesAdded } from "./advisories-added.ts";

export type ComponentType = "wordpress" | "plugin" | "theme";

/** One advisory as it affects one component. */
export interface AdvisoryRow {
  component_type: ComponentType;
  slug: string;
  id: string;
  title: string;
  severity: Severity;
  cvss_score: number | null;
  cvss_rating: string | null;
  cvss_vector: string | null;
  cve: string[];
  affected: VersionRange[];
  patched: string[];
  refs: string[];
  published_at: Date | null;
  updated_at: Date | null;
}

export interface LatestVersionRow {
  component_type: ComponentType;
  slug: string;
  latest_version: string;
}

export interface SourceRow {
  id: string;
  generation: string | null;
  as_of: Date | null;
  fetched_at: Date | null;
  etag: string | null;
  last_modified: string | null;
  content_sha256: string | null;
  record_count: number;
  attribution: string | null;
  checked_at: Date | null;
  last_error: string | null;
  importing: boolean;
}

export interface WporgAnswer {
  component_type: ComponentType;
  slug: string;
  latest_version: string | null;
  reason: LatestVersionReason | null;
  fetched_at: Date;
  expires_at: Date;
}

/** A cached WPVulnerability answer (migration 0008): core by version, plugins and themes by slug. */
export interface WpvulnerabilityRow {
  component_type: ComponentType;
  /** The slug, or core's version. */
  slug: string;
  advisories: IntelVulnerability[];
  known: boolean;
  updated_at: Date | null;
  /** When the answer held here arrived; null: it never answered. */
  fetched_at: Date | null;
  checked_at: Date;
  last_error: string | null;
  expires_at: Date;
}

/** The components a WPVulnerability lookup asks about: core by its version. */
export interface WpvulnerabilityKeys {
  coreVersions: string[];
  plugins: string[];
  themes: string[];
}

/** What a finished import records about itself. */
export interface ImportSummary {
  as_of: Date | null;
  record_count: number;
  attribution: string | null;
  etag?: string | null;
  last_modified?: string | null;
  content_sha256?: string | null;
}

export class ImportBusyError extends Error {
  override name = "ImportBusyError";
}

/** How long an import may go without renewing its lease before another may take over. */
export const IMPORT_LEASE_MS = 120_000;

/** An import under way: rows go into a new generation that nobody reads until commit(). */
export class ImportSession {
  private committed = false;
  constructor(
    private readonly sql: Sql,
    readonly source: string,
    readonly generation: string,
    private readonly previous: string | null,
    private readonly leaseMs: number,
    private readonly added: AdvisoriesAdded,
  ) {}

  async addAdvisories(rows: readonly AdvisoryRow[]): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map((row) => ({
      ...row,
      source: this.source,
      generation: this.generation,
      affected: this.sql.json(row.affected as never),
    }));
    // A record may list one component twice (two software entries): the first one wins.
    await this.sql`insert into intel_advisories ${this.sql(values as never[])} on conflict do nothing`;
    await this.renew();
  }

  async addLatestVersions(rows: readonly LatestVersionRow[]): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map((row) => ({ ...row, source: this.source, generation: this.generation }));
    await this.sql`insert into intel_latest_versions ${this.sql(values as never[])} on conflict do nothing`;
    await this.renew();
  }

  /** Keeps the lease while the import runs; throws when another import took it over. */
  async renew(): Promise<void> {
    const rows = await this.sql`
      update intel_sources set import_lease_until = now() + ${`${this.leaseMs} milliseconds`}::interval
      where id = ${this.source} and importing_generation = ${this.generation}
      returning 1`;
    if (rows.length === 0) throw new ImportBusyError(`the ${this.source} import lost its lease to another import`);
  }

  /** Serves the new generation (one statement), then drops the old one. */
  async commit(summary: ImportSummary): Promise<void> {
    // The swap and what the listeners write on learning of the added advisories (advisories-added.ts) commit together.
    const rows = await this.sql.begin(async (tx) => {
      const swapped = await tx`
      update intel_sources set
        generation = ${this.generation}, as_of = ${summary.as_of}, fetched_at = now(), checked_at = now(),
        etag = ${summary.etag ?? null}, last_modified = ${summary.last_modified ?? null},
        content_sha256 = ${summary.content_sha256 ?? null}, record_count = ${summary.record_count},
        attribution = ${summary.attribution}, last_error = null,
        importing_generation = null, import_lease_until = null
      where id = ${this.source} and importing_generation = ${this.generation}
      returning 1`;
      if (swapped.length > 0 && this.previous !== null && this.added.wanted) {
        const advisories = await addedAdvisories(tx, this.source, this.generation, this.previous);
        await this.added.added(tx, { source: this.source, generation: this.generation, advisories });
      }
      return swapped;
    });
    if (rows.length === 0) throw new ImportBusyError(`the ${this.source} import lost its lease to another import`);
    this.committed = true;
    if (this.previous !== null) await dropGeneration(this.sql, this.source, this.previous);
    // The swap leaves a generation's worth of dead rows, and fresh statistics matter to the
    // lookup's plan (PGlite never autovacuums). Best effort: the new data is served already.
    await this.sql`vacuum analyze intel_advisories, intel_latest_versions`.simple().catch(() => {});
  }

  /** Gives the import up: its rows go, the served data stays, the reason is recorded. */
  async abort(reason: string): Promise<void> {
    if (this.committed) return;
    await dropGeneration(this.sql, this.source, this.generation);
    await this.sql`
      update intel_sources set importing_generation = null, import_lease_until = null,
        checked_at = now(), last_error = ${reason.slice(0, 1000)}
      where id = ${this.source} and importing_generation = ${this.generation}`;
  }
}

/** The rows of `generation` whose (component, advisory id) the previous generation did not have. */
async function addedAdvisories(
  tx: Queryable,
  source: string,
  generation: string,
  previous: string,
): Promise<AddedAdvisory[]> {
  return tx<AddedAdvisory[]>`
    select a.source, a.component_type, a.slug, a.id, a.title, a.severity, a.cvss_score, a.cvss_rating,
           a.cvss_vector, a.cve, a.affected, a.patched, a.refs
    from intel_advisories a
    where a.source = ${source} and a.generation = ${generation}
      and not exists (
        select 1 from intel_advisories p
        where p.component_type = a.component_type and p.slug = a.slug and p.source = a.source
          and p.generation = ${previous} and p.id = a.id)
    order by a.component_type, a.slug, a.id`;
}

async function dropGeneration(sql: Sql, source: string, generation: string): Promise<void> {
  await sql`delete from intel_advisories where source = ${source} and generation = ${generation}`;
  await sql`delete from intel_latest_versions where source = ${source} and generation = ${generation}`;
}

export class IntelStore {
  /** Listeners told, in the transaction that serves an import, which advisories it added. */
  readonly added = new AdvisoriesAdded();

  constructor(
    private readonly sql: Sql,
    private readonly leaseMs = IMPORT_LEASE_MS,
    /** Collect garbage after each imported batch (the embedded PGlite; see importer.ts). */
    readonly collectAfterBatch = false,
  ) {}

  /** Starts an import of `source`; ImportBusyError when another one holds the lease. */
  async beginImport(source: string): Promise<ImportSession> {
    const { sql } = this;
    await sql`insert into intel_sources (id) values (${source}) on conflict do nothing`;
    const [row] = await sql<{ generation: string; previous: string | null }[]>`
      update intel_sources set
        importing_generation = nextval('intel_generation_seq'),
        import_lease_until = now() + ${`${this.leaseMs} milliseconds`}::interval
      where id = ${source} and (import_lease_until is null or import_lease_until < now())
      returning importing_generation::text as generation, generation::text as previous`;
    if (!row) throw new ImportBusyError(`another import of ${source} is running; try again when it has finished`);
    // Rows of an import that was killed before it could clean up: nobody reads them.
    await sql`
      delete from intel_advisories where source = ${source}
        and generation <> ${row.generation} and generation is distinct from ${row.previous}::bigint`;
    await sql`
      delete from intel_latest_versions where source = ${source}
        and generation <> ${row.generation} and generation is distinct from ${row.previous}::bigint`;
    return new ImportSession(sql, source, row.generation, row.previous, this.leaseMs, this.added);
  }

  /** A refresh that did not import (304, or an error before any row): when, and why it failed. */
  async recordCheck(source: string, error: string | null): Promise<void> {
    await this.sql`insert into intel_sources (id) values (${source}) on conflict do nothing`;
    await this
      .sql`update intel_sources set checked_at = now(), last_error = ${error?.slice(0, 1000) ?? null} where id = ${source}`;
  }

  async sources(): Promise<SourceRow[]> {
    return this.sql<SourceRow[]>`
      select id, generation::text as generation, as_of, fetched_at, etag, last_modified, content_sha256,
             record_count, attribution, checked_at, last_error,
             (import_lease_until is not null and import_lease_until > now()) as importing
      from intel_sources order by id`;
  }

  async source(id: string): Promise<SourceRow | undefined> {
    return (await this.sources()).find((row) => row.id === id);
  }

  /** The served advisories of the queried components, from every source. */
  async advisories(query: IntelQuery): Promise<(AdvisoryRow & { source: string })[]> {
    return this.sql<(AdvisoryRow & { source: string })[]>`
      select a.source, a.component_type, a.slug, a.id, a.title, a.severity, a.cvss_score, a.cvss_rating,
             a.cvss_vector, a.cve, a.affected, a.patched, a.refs, a.published_at, a.updated_at
      from intel_advisories a
      join intel_sources s on s.id = a.source and s.generation = a.generation
      where (a.component_type = 'wordpress' and a.slug = 'wordpress' and ${query.wordpress})
         or (a.component_type = 'plugin' and a.slug = any(${query.plugins}::text[]))
         or (a.component_type = 'theme' and a.slug = any(${query.themes}::text[]))`;
  }

  /**
   * Slugs of plugins or themes with served advisories, worst first (highest CVSS, then most
   * advisories): aggressive enumeration asks about these before the popular ones.
   */
  async vulnerableSlugs(type: "plugin" | "theme", limit: number): Promise<string[]> {
    const rows = await this.sql<{ slug: string }[]>`
      select a.slug
      from intel_advisories a
      join intel_sources s on s.id = a.source and s.generation = a.generation
      where a.component_type = ${type}
      group by a.slug
      order by max(coalesce(a.cvss_score, 0)) desc, count(*) desc, a.slug
      limit ${limit}`;
    return rows.map((row) => row.slug);
  }

  /** Latest versions from imported files, for the queried components. */
  async latestVersions(query: IntelQuery): Promise<(LatestVersionRow & { source: string })[]> {
    return this.sql<(LatestVersionRow & { source: string })[]>`
      select l.source, l.component_type, l.slug, l.latest_version
      from intel_latest_versions l
      join intel_sources s on s.id = l.source and s.generation = l.generation
      where (l.component_type = 'wordpress' and l.slug = 'wordpress' and ${query.wordpress})
         or (l.component_type = 'plugin' and l.slug = any(${query.plugins}::text[]))
         or (l.component_type = 'theme' and l.slug = any(${query.themes}::text[]))`;
  }

  async wporgAnswers(query: IntelQuery): Promise<WporgAnswer[]> {
    return this.sql<WporgAnswer[]>`
      select component_type, slug, latest_version, reason, fetched_at, expires_at
      from intel_wporg_versions
      where (component_type = 'wordpress' and slug = 'wordpress' and ${query.wordpress})
         or (component_type = 'plugin' and slug = any(${query.plugins}::text[]))
         or (component_type = 'theme' and slug = any(${query.themes}::text[]))`;
  }

  async wpvulnerabilityAnswers(keys: WpvulnerabilityKeys): Promise<WpvulnerabilityRow[]> {
    return this.sql<WpvulnerabilityRow[]>`
      select component_type, slug, advisories, known, updated_at, fetched_at, checked_at, last_error, expires_at
      from intel_wpvulnerability
      where (component_type = 'wordpress' and slug = any(${keys.coreVersions}::text[]))
         or (component_type = 'plugin' and slug = any(${keys.plugins}::text[]))
         or (component_type = 'theme' and slug = any(${keys.themes}::text[]))`;
  }

  /** How WPVulnerability's cache stands, for `intel status`. */
  async wpvulnerabilitySummary(): Promise<{
    answered: number;
    failing: number;
    last_answer: Date | null;
    last_error: string | null;
  }> {
    const [row] = await this.sql<
      { answered: number; failing: number; last_answer: Date | null; last_error: string | null }[]
    >`
      select count(*) filter (where fetched_at is not null)::int as answered,
             count(*) filter (where last_error is not null)::int as failing,
             max(fetched_at) as last_answer,
             (select last_error from intel_wpvulnerability where last_error is not null
              order by checked_at desc limit 1) as last_error
      from intel_wpvulnerability`;
    return row ?? { answered: 0, failing: 0, last_answer: null, last_error: null };
  }

  /** A WPVulnerability answer: replaces what was cached, valid for `ttlMs`. */
  async saveWpvulnerabilityAnswer(
    answer: Pick<WpvulnerabilityRow, "component_type" | "slug" | "advisories" | "known" | "updated_at">,
    ttlMs: number,
  ): Promise<void> {
    await this.sql`
      insert into intel_wpvulnerability
        (component_type, slug, advisories, known, updated_at, fetched_at, checked_at, last_error, expires_at)
      values (${answer.component_type}, ${answer.slug}, ${this.sql.json(answer.advisories as never)}, ${answer.known},
              ${answer.updated_at}, now(), now(), null, now() + ${`${ttlMs} milliseconds`}::interval)
      on conflict (component_type, slug) do update set
        advisories = excluded.advisories, known = excluded.known, updated_at = excluded.updated_at,
        fetched_at = excluded.fetched_at, checked_at = excluded.checked_at, last_error = null,
        expires_at = excluded.expires_at`;
  }

  /**
   * A failed WPVulnerability attempt: why, and when to try again. The last good answer, if
   * any, stays (it is served while it is not too old).
   */
  async recordWpvulnerabilityFailure(type: ComponentType, slug: string, error: string, retryMs: number): Promise<void> {
    await this.sql`
      insert into intel_wpvulnerability (component_type, slug, checked_at, last_error, expires_at)
      values (${type}, ${slug}, now(), ${error.slice(0, 1000)}, now() + ${`${retryMs} milliseconds`}::interval)
      on conflict (component_type, slug) do update set
        checked_at = excluded.checked_at, last_error = excluded.last_error, expires_at = excluded.expires_at`;
  }

  async saveWporgAnswer(answer: Omit<WporgAnswer, "fetched_at" | "expires_at">, ttlMs: number): Promise<void> {
    await this.sql`
      insert into intel_wporg_versions (component_type, slug, latest_version, reason, fetched_at, expires_at)
      values (${answer.component_type}, ${answer.slug}, ${answer.latest_version}, ${answer.reason}, now(),
              now() + ${`${ttlMs} milliseconds`}::interval)
      on conflict (component_type, slug) do update set
        latest_version = excluded.latest_version, reason = excluded.reason,
        fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`;
  }
}
