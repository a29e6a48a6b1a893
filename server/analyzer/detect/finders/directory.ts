/**
 * What the analysis asks the names index (the WordPress.org directory's plugin and theme
 * names, kept by the service: docs/intel.md, "The names index") and what it is told.
 *
 * The analysis thread has no database: it collects every name and slug-shaped identifier the
 * site shows (observations.ts) and asks the main thread about all of them at once (a
 * NameQuery: once the homepage is in, then only for what the probes added —
 * names-question.ts), and keeps the answers in `artifacts.directory`, so that detection stays
 * a pure function of the artifacts and a saved capture reproduces its report.
 */
import { type NameKeyKind, normalizeName, slugify } from "./name-keys.ts";

export type DirectoryType = "plugin" | "theme";

export interface NameQuery {
  /** Normalised name keys (name-keys.ts normalizeName), at most MAX_QUERY_NAMES. */
  names: string[];
  /** Slug candidates, at most MAX_QUERY_SLUGS. */
  slugs: string[];
}

/** One directory entry a name key belongs to. */
export interface DirectoryHit {
  type: DirectoryType;
  slug: string;
  /** The key is the entry's whole name, a short form of it, or its first words. */
  kind: NameKeyKind;
  /** Active installs as the directory reports them; null when unknown (an imported list). */
  installs: number | null;
}

export interface DirectorySlug {
  name: string;
  installs: number | null;
}

/** The answer, kept in artifacts.directory. */
export interface DirectoryAnswer {
  /** Whether an index was there to ask: false when none was imported, or there was nobody to ask. */
  available: boolean;
  /** name key → the entries it names (at most MAX_HITS_PER_NAME, most installed first). */
  names: Record<string, DirectoryHit[]>;
  /** "plugin:<slug>" / "theme:<slug>" → the entry, for the asked slugs the directory has. */
  slugs: Record<string, DirectorySlug>;
}

export type NameLookup = (query: NameQuery) => Promise<DirectoryAnswer>;

/** A hostile page can show thousands of names: one report asks about this many at most. */
export const MAX_QUERY_NAMES = 2_000;
export const MAX_QUERY_SLUGS = 1_000;
export const MAX_HITS_PER_NAME = 8;

export const EMPTY_DIRECTORY: DirectoryAnswer = Object.freeze({ available: false, names: {}, slugs: {} });

/** How much more installed the most popular of several same-named plugins must be to take the name. */
const DOMINANCE = 10;

/**
 * The most installed of several, when it is at least ten times any other and 1,000; or the
 * only one, when installs are unknown (an index imported from a list of names).
 */
function dominant(group: readonly DirectoryHit[]): string | null {
  if (group.length === 1 && group[0]?.installs === null) return group[0].slug;
  const [first, second] = [...group].sort((a, b) => (b.installs ?? 0) - (a.installs ?? 0));
  if (first?.installs && first.installs >= 1_000 && first.installs >= DOMINANCE * (second?.installs ?? 0)) {
    return first.slug;
  }
  return null;
}

function choose(group: readonly DirectoryHit[], name: string): string | null {
  if (group.length === 1) return group[0]?.slug ?? null;
  const literal = slugify(name);
  const exact = group.filter((hit) => hit.slug === literal);
  if (exact.length === 1) return exact[0]?.slug ?? null;
  return dominant(group);
}

/** Read access to one answer. */
export class Directory {
  constructor(private readonly answer: DirectoryAnswer = EMPTY_DIRECTORY) {}

  get available(): boolean {
    return this.answer.available;
  }

  /** The directory entry under this slug, if any. */
  slug(type: DirectoryType, slug: string): DirectorySlug | undefined {
    return Object.hasOwn(this.answer.slugs, `${type}:${slug}`) ? this.answer.slugs[`${type}:${slug}`] : undefined;
  }

  hits(key: string): DirectoryHit[] {
    return Object.hasOwn(this.answer.names, key) ? (this.answer.names[key] ?? []) : [];
  }

  /**
   * The one plugin a name stands for, with the kind of key that named it, or null when it
   * names none or several alike: whole names before short forms before prefixes; among
   * several, the one whose slug is the name slugified, or one at least ten times as
   * installed as every other (and at least 1,000). A prefix ("Redux" of "Redux Framework")
   * needs that margin even alone, and counts only with `prefixes` (a version follows it).
   */
  plugin(name: string, prefixes = false): { slug: string; kind: NameKeyKind } | null {
    const key = normalizeName(name);
    const plugins = this.hits(key).filter((hit) => hit.type === "plugin");
    for (const kind of ["full", "short", "prefix"] as const) {
      const group = plugins.filter((hit) => hit.kind === kind);
      if (group.length === 0) continue;
      if (kind === "prefix" && !prefixes) return null;
      const chosen = kind === "prefix" ? dominant(group) : choose(group, name);
      return chosen ? { slug: chosen, kind } : null;
    }
    return null;
  }

  /** Whether the name is a theme's in the directory (and no plugin's): such a credit is the theme's. */
  themeOnly(name: string): boolean {
    const hits = this.hits(normalizeName(name));
    return hits.length > 0 && hits.every((hit) => hit.type === "theme");
  }
}
