/**
 * The names index's tables (migration 0010): imports written as generations per type and
 * swapped in atomically, and the per-report lookup. One import of a type at a time, by a
 * lease on its source row (PGlite is a single session, where advisory locks exclude nobody).
 */
import {
  type DirectoryAnswer,
  type DirectoryHit,
  type DirectoryType,
  MAX_HITS_PER_NAME,
  MAX_QUERY_NAMES,
  MAX_QUERY_SLUGS,
  type NameQuery,
} from "../../analyzer/detect/finders/directory.ts";
import { nameKeysOf } from "../../analyzer/detect/finders/name-keys.ts";
import type { Sql } from "../../platform/db/database.ts";
import type { DirectoryEntry } from "./entries.ts";

export interface DirectorySourceRow {
  component_type: DirectoryType;
  generation: string | null;
  origin: string | null;
  record_count: number;
  fetched_at: Date | null;
  full_at: Date | null;
  updated_through: Date | null;
  checked_at: Date | null;
  last_error: string | null;
  etag: string | null;
  last_modified: string | null;
  importing: boolean;
}

export class DirectoryBusyError extends Error {
  override name = "DirectoryBusyError";
}

/** How long an import may go without renewing its lease before another may take over. */
export const DIRECTORY_LEASE_MS = 120_000;

export interface DirectoryCommit {
  origin: "wordpress.org" | "file";
  /** The generation is a complete listing (not the served one plus changes). */
  full: boolean;
  etag?: string | null;
  lastModified?: string | null;
}

/** An import under way: rows go into a new generation that nobody reads until commit(). */
export class DirectoryImport {
  private committed = false;
  private newest: Date | null = null;
  constructor(
    private readonly sql: Sql,
    readonly type: DirectoryType,
    readonly generation: string,
    readonly previous: string | null,
    private readonly leaseMs: number,
  ) {}

  /** Adds entries (a slug seen twice keeps its first entry: the directory lists the newest first). */
  async add(entries: readonly DirectoryEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const names = new Map<string, DirectoryEntry>();
    for (const entry of entries) if (!names.has(entry.slug)) names.set(entry.slug, entry);
    const nameRows = [...names.values()].map((entry) => {
      if (entry.updatedAt && (!this.newest || entry.updatedAt > this.newest)) this.newest = entry.updatedAt;
      return {
        component_type: this.type,
        generation: this.generation,
        slug: entry.slug,
        name: entry.name,
        installs: entry.installs,
        updated_at: entry.updatedAt,
      };
    });
    const keyRows = [...names.values()].flatMap((entry) =>
      nameKeysOf(entry.name).map(({ key, kind }) => ({
        component_type: this.type,
        generation: this.generation,
        key,
        slug: entry.slug,
        kind,
      })),
    );
    await this.sql`insert into directory_names ${this.sql(nameRows as never[])} on conflict do nothing`;
    if (keyRows.length > 0)
      await this.sql`insert into directory_name_keys ${this.sql(keyRows as never[])} on conflict do nothing`;
    await this.renew();
  }

  /** Copies the served generation's entries, except these slugs (an incremental refresh re-adds them). */
  async copyForward(except: readonly string[]): Promise<void> {
    if (this.previous === null) return;
    await this.sql`
      insert into directory_names (component_type, generation, slug, name, installs, updated_at)
      select component_type, ${this.generation}, slug, name, installs, updated_at from directory_names
      where component_type = ${this.type} and generation = ${this.previous} and slug <> all(${except as string[]}::text[])
      on conflict do nothing`;
    await this.sql`
      insert into directory_name_keys (component_type, generation, key, slug, kind)
      select component_type, ${this.generation}, key, slug, kind from directory_name_keys
      where component_type = ${this.type} and generation = ${this.previous} and slug <> all(${except as string[]}::text[])
      on conflict do nothing`;
    await this.renew();
  }

  /** Keeps the lease while the import runs; throws when another import took it over. */
  async renew(): Promise<void> {
    const rows = await this.sql`
      update directory_sources set import_lease_until = now() + ${`${this.leaseMs} milliseconds`}::interval
      where component_type = ${this.type} and importing_generation = ${this.generation}
      returning 1`;
    if (rows.length === 0)
      throw new DirectoryBusyError(`the ${this.type} names import lost its lease to another import`);
  }

  /**
   * commit(), unless the new generation holds fewer than half the entries served now: more
   * likely a broken listing than a true change (a file import with the CLI can force it).
   */
  async commitChecked(servedCount: number, options: DirectoryCommit): Promise<number> {
    const [row] = await this.sql<{ count: number }[]>`
      select count(*)::int as count from directory_names
      where component_type = ${this.type} and generation = ${this.generation}`;
    const count = row?.count ?? 0;
    if (count === 0 || count < servedCount / 2) {
      throw new Error(
        `the listing holds ${count} entries, fewer than half of the ${servedCount} served now; kept the served index`,
      );
    }
    return this.commit(options);
  }

  /** Serves the new generation (one statement), then drops the old one. Returns its entry count. */
  async commit(options: DirectoryCommit): Promise<number> {
    const [counted] = await this.sql<{ count: number; newest: Date | null }[]>`
      select count(*)::int as count, max(updated_at) as newest from directory_names
      where component_type = ${this.type} and generation = ${this.generation}`;
    const count = counted?.count ?? 0;
    const newest = counted?.newest ?? this.newest;
    const rows = await this.sql`
      update directory_sources set
        generation = ${this.generation}, origin = ${options.origin}, record_count = ${count},
        fetched_at = now(), checked_at = now(), last_error = null,
        full_at = case when ${options.full} then now() else full_at end,
        updated_through = ${newest},
        etag = ${options.etag ?? null}, last_modified = ${options.lastModified ?? null},
        importing_generation = null, import_lease_until = null
      where component_type = ${this.type} and importing_generation = ${this.generation}
      returning 1`;
    if (rows.length === 0)
      throw new DirectoryBusyError(`the ${this.type} names import lost its lease to another import`);
    this.committed = true;
    if (this.previous !== null) await dropGeneration(this.sql, this.type, this.previous);
    // PGlite never autovacuums, and the lookup's plan wants fresh statistics. Best effort.
    await this.sql`vacuum analyze directory_names, directory_name_keys`.simple().catch(() => {});
    return count;
  }

  /** Gives the import up: its rows go, the served index stays; a reason is recorded when given. */
  async abort(reason: string | null): Promise<void> {
    if (this.committed) return;
    await dropGeneration(this.sql, this.type, this.generation);
    await this.sql`
      update directory_sources set importing_generation = null, import_lease_until = null,
        checked_at = now(), last_error = ${reason?.slice(0, 1000) ?? null}
      where component_type = ${this.type} and importing_generation = ${this.generation}`;
  }
}

async function dropGeneration(sql: Sql, type: DirectoryType, generation: string): Promise<void> {
  await sql`delete from directory_name_keys where component_type = ${type} and generation = ${generation}`;
  await sql`delete from directory_names where component_type = ${type} and generation = ${generation}`;
}

export class DirectoryStore {
  constructor(
    private readonly sql: Sql,
    private readonly leaseMs = DIRECTORY_LEASE_MS,
  ) {}

  /** Starts an import of a type's names; DirectoryBusyError when another holds the lease. */
  async beginImport(type: DirectoryType): Promise<DirectoryImport> {
    const { sql } = this;
    await sql`insert into directory_sources (component_type) values (${type}) on conflict do nothing`;
    const [row] = await sql<{ generation: string; previous: string | null }[]>`
      update directory_sources set
        importing_generation = nextval('directory_generation_seq'),
        import_lease_until = now() + ${`${this.leaseMs} milliseconds`}::interval
      where component_type = ${type} and (import_lease_until is null or import_lease_until < now())
      returning importing_generation::text as generation, generation::text as previous`;
    if (!row)
      throw new DirectoryBusyError(`another import of the ${type} names is running; try again when it has finished`);
    // Rows of an import that was killed before it could clean up: nobody reads them.
    await sql`
      delete from directory_name_keys where component_type = ${type}
        and generation <> ${row.generation} and generation is distinct from ${row.previous}::bigint`;
    await sql`
      delete from directory_names where component_type = ${type}
        and generation <> ${row.generation} and generation is distinct from ${row.previous}::bigint`;
    return new DirectoryImport(sql, type, row.generation, row.previous, this.leaseMs);
  }

  /** A refresh that changed nothing (or failed before writing): when, and why it failed. */
  async recordCheck(type: DirectoryType, error: string | null): Promise<void> {
    await this.sql`insert into directory_sources (component_type) values (${type}) on conflict do nothing`;
    await this.sql`
      update directory_sources set checked_at = now(), last_error = ${error?.slice(0, 1000) ?? null}
      where component_type = ${type}`;
  }

  async sources(): Promise<DirectorySourceRow[]> {
    return this.sql<DirectorySourceRow[]>`
      select component_type, generation::text as generation, origin, record_count, fetched_at, full_at,
             updated_through, checked_at, last_error, etag, last_modified,
             (import_lease_until is not null and import_lease_until > now()) as importing
      from directory_sources order by component_type`;
  }

  async source(type: DirectoryType): Promise<DirectorySourceRow | undefined> {
    return (await this.sources()).find((row) => row.component_type === type);
  }

  /** The served entries of these slugs: name and last update (an incremental refresh writes only what changed). */
  async served(
    type: DirectoryType,
    slugs: readonly string[],
  ): Promise<Map<string, { name: string; updated_at: Date | null }>> {
    const rows = await this.sql<{ slug: string; name: string; updated_at: Date | null }[]>`
      select n.slug, n.name, n.updated_at from directory_names n
      join directory_sources s on s.component_type = n.component_type and s.generation = n.generation
      where n.component_type = ${type} and n.slug = any(${slugs as string[]}::text[])`;
    return new Map(rows.map((row) => [row.slug, { name: row.name, updated_at: row.updated_at }]));
  }

  /** What the served index says about one report's names and slugs (two indexed queries). */
  async lookup(query: NameQuery): Promise<DirectoryAnswer> {
    const names = query.names.slice(0, MAX_QUERY_NAMES);
    const slugs = query.slugs.slice(0, MAX_QUERY_SLUGS);
    const served = (await this.sources()).filter((row) => row.generation !== null);
    const answer: DirectoryAnswer = { available: served.length > 0, names: {}, slugs: {} };
    if (served.length === 0 || (names.length === 0 && slugs.length === 0)) return answer;
    const [hits, entries] = await Promise.all([
      this.sql<(DirectoryHit & { key: string; name: string; component_type: DirectoryType })[]>`
        select k.key, k.component_type, k.slug, k.kind, n.installs, n.name
        from directory_name_keys k
        join directory_sources s on s.component_type = k.component_type and s.generation = k.generation
        join directory_names n on n.component_type = k.component_type and n.generation = k.generation and n.slug = k.slug
        where k.key = any(${names}::text[])`,
      this.sql<{ component_type: DirectoryType; slug: string; name: string; installs: number | null }[]>`
        select n.component_type, n.slug, n.name, n.installs
        from directory_names n
        join directory_sources s on s.component_type = n.component_type and s.generation = n.generation
        where n.slug = any(${slugs}::text[])`,
    ]);
    const byKey = new Map<string, (DirectoryHit & { name: string })[]>();
    for (const hit of hits) {
      const list = byKey.get(hit.key) ?? [];
      list.push({ type: hit.component_type, slug: hit.slug, kind: hit.kind, installs: hit.installs, name: hit.name });
      byKey.set(hit.key, list);
    }
    for (const [key, list] of byKey) {
      list.sort((a, b) => (b.installs ?? 0) - (a.installs ?? 0) || a.slug.localeCompare(b.slug));
      const kept = list.slice(0, MAX_HITS_PER_NAME);
      answer.names[key] = kept.map(({ name: _name, ...hit }) => hit);
      // The entries a name names are answered too: their display names go into reports.
      for (const hit of kept) answer.slugs[`${hit.type}:${hit.slug}`] = { name: hit.name, installs: hit.installs };
    }
    for (const entry of entries) {
      answer.slugs[`${entry.component_type}:${entry.slug}`] = { name: entry.name, installs: entry.installs };
    }
    return answer;
  }
}
