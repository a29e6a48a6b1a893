/**
 * What an analysis asks the component intelligence: the components it detected. The answer
 * is an Intel holding only those components, so a lookup costs a few indexed reads however
 * big the feeds are (server/intel answers it from the database; tests pass a fixed Intel).
 */
import type { Detected } from "../facts.ts";
import type { Intel } from "./data.ts";

export interface IntelQuery {
  /** Whether to look WordPress core up (it was detected). */
  wordpress: boolean;
  /**
   * Core's detected version when it is a plain release number ("6.1.9"): WPVulnerability is
   * asked per core version. Absent or null: unknown, or not a version to put in a URL.
   */
  wordpressVersion?: string | null;
  /** Lower-case slugs, valid, without duplicates, at most MAX_QUERY_SLUGS. */
  plugins: string[];
  themes: string[];
}

export type IntelLookup = (query: IntelQuery) => Promise<Intel>;

/** A hostile page can name thousands of "plugins"; a lookup asks about this many at most. */
export const MAX_QUERY_SLUGS = 100;

/** A WordPress.org-style slug: what a directory name must look like to be looked up. */
export const SLUG = /^[a-z0-9][a-z0-9._-]{0,99}$/;

function slugs(names: readonly string[]): string[] {
  const unique = new Set(names.map((name) => name.toLowerCase()).filter((name) => SLUG.test(name)));
  return [...unique].slice(0, MAX_QUERY_SLUGS);
}

/** A core version as WPVulnerability is asked about it: digits and dots only ("6.1.9", "6.2"), else null. */
export function coreVersionForLookup(version: string | null | undefined): string | null {
  return typeof version === "string" && /^\d{1,3}(?:\.\d{1,3}){1,3}$/.test(version) ? version : null;
}

export function intelQuery(detected: Detected): IntelQuery {
  const theme = detected.theme;
  return {
    wordpress: detected.wordpress.detected,
    wordpressVersion: detected.wordpress.detected ? coreVersionForLookup(detected.wordpress.version) : null,
    plugins: slugs(detected.plugins.map((plugin) => plugin.slug)),
    themes: slugs([
      ...(theme ? [theme.slug, ...(theme.parent ? [theme.parent.slug] : [])] : []),
      ...detected.installedThemes.map((installed) => installed.slug),
    ]),
  };
}
