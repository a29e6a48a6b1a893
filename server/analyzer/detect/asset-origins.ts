/**
 * Asset origins: content directories on other origins — a CDN, a static host, a pull zone —
 * whose plugins/ and themes/ files belong to the site (detect/site-paths.ts).
 */
import type { PageResource } from "../parse/urls.ts";

/** `<prefix>/(themes|plugins|mu-plugins)/<slug>/<file>`, at the first such folder of the path. */
export const COMPONENT_FILE = /^(.*?\/)(themes|plugins|mu-plugins)\/([^/]+)\/./;
/** A path under core's own folders. */
export const CORE_FILE = /\/wp-(?:includes|admin)\//;

/**
 * Content directories on other origins. A cross-origin `<prefix>(plugins|themes)/<slug>/…`
 * belongs to this site only when something ties it to WordPress and to this site: the
 * prefix is WordPress's default `…/wp-content/`, or the site's own content path; or that
 * origin serves both plugins/ and themes/ under it (a content directory, not a library's
 * `themes/` folder such as jQuery UI's on its CDN); or one of its themes is the one the
 * page's <body> names; or the same origin serves this site's core files (wp-includes/ under
 * the core path found on the site itself).
 */
export function assetBasesOf(
  resources: readonly PageResource[],
  origin: string,
  contentPath: string | null,
  corePath: string | null,
  bodyClass: string,
): string[] {
  const candidates = new Map<string, { folders: Set<string>; themes: Set<string> }>();
  const coreOrigins = new Set<string>();
  for (const { url, from } of resources) {
    // A link to another site's file is not a file this page loads.
    if (url.origin === origin || from === "link") continue;
    if (corePath && url.pathname.startsWith(`${corePath}wp-includes/`)) coreOrigins.add(url.origin);
    const match = COMPONENT_FILE.exec(url.pathname);
    if (!match?.[1] || CORE_FILE.test(match[1])) continue;
    const base = `${url.origin}${match[1]}`;
    const entry = candidates.get(base) ?? { folders: new Set(), themes: new Set() };
    entry.folders.add(match[2] === "themes" ? "themes" : "plugins");
    if (match[2] === "themes" && match[3]) entry.themes.add(match[3]);
    candidates.set(base, entry);
  }
  const bodyThemes = new Set(
    [...bodyClass.matchAll(/\bwp-(?:child-)?theme-([a-z0-9._-]+)/gi)].map((match) => match[1] ?? ""),
  );
  const accepted: string[] = [];
  for (const [base, { folders, themes }] of candidates) {
    const url = new URL(base);
    if (
      url.pathname.endsWith("/wp-content/") ||
      url.pathname === contentPath ||
      folders.size === 2 ||
      [...themes].some((slug) => bodyThemes.has(slug)) ||
      coreOrigins.has(url.origin)
    )
      accepted.push(base);
  }
  return accepted.slice(0, 10);
}
