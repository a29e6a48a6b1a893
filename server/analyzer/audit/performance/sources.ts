/**
 * Where a resource comes from, in WordPress terms: which plugin, which theme, core, or
 * another host. Turns "41 scripts" into "plugin woocommerce: 9", which says what to fix.
 */
import type { SitePaths } from "../../detect/site-paths.ts";
import { decodedSegment } from "../../parse/urls.ts";
import { siteText } from "../../untrusted-text.ts";

export function sourceOf(url: URL, paths: SitePaths): string {
  const href = url.toString();
  // The site's content directory, or an asset origin's (a CDN serving its plugins and themes).
  const contentBase = [paths.contentBase, ...paths.assetBases].find((base) => href.startsWith(base));
  if (contentBase) {
    const [kind, slug] = href.slice(contentBase.length).split("/");
    if ((kind === "plugins" || kind === "themes") && slug) {
      return `${kind === "plugins" ? "plugin" : "theme"} ${siteText(decodedSegment(slug), 80)}`;
    }
    return "wp-content (other)";
  }
  const coreFiles = `${new URL(paths.coreBase).pathname}wp-includes/`;
  if (href.startsWith(`${paths.coreBase}wp-includes/`)) return "WordPress core";
  // Core files on the pull zone that serves the site's content (same paths).
  if (paths.assetBases.some((base) => new URL(base).origin === url.origin) && url.pathname.startsWith(coreFiles))
    return "WordPress core";
  if (url.origin === paths.origin) return "this site (other)";
  return siteText(url.hostname, 120);
}

/** "source: n" lines, most resources first (ties by name, so the order is stable). */
export function countBySource(urls: readonly URL[], paths: SitePaths): string[] {
  const counts = new Map<string, number>();
  for (const url of urls) {
    const source = sourceOf(url, paths);
    counts.set(source, (counts.get(source) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([source, n]) => `${source}: ${n}`);
}
