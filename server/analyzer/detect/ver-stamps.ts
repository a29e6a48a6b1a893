/**
 * A `?ver=` value several components share: their releases, or the site's stamp?
 *
 * WordPress prints each plugin's own version in `?ver=`, and small plugins often sit at the
 * same one (`1.0.0`, `1.0.1`, `2.1.0`): a shared value is a release of each **unless
 * something shows it is a stamp** — an optimisation plugin or a theme filter writing one
 * value on every file. The evidence that does (docs/detection.md, "A shared ?ver="):
 *
 *  - it is the active theme's version, and at least two plugins carry it too (a theme that
 *    rewrites every file's `ver=` with its own);
 *  - it is on the theme's `style.css` while the theme's header says another version;
 *  - it is on two or more of WordPress core's own files (`wp-includes/`, `wp-admin/`), whose
 *    `ver=` are core's version or their bundled libraries' own, each a different value;
 *  - it covers most of the page's components: at least 5 of them and more than three
 *    quarters of those the page loads with a `ver=`;
 *  - the readme.txt of two or more of the plugins sharing it states another version.
 *
 * A value that is not version-shaped (a hash, a timestamp) or is WordPress's version is
 * refused file by file (version-sanity.ts); a single plugin whose readme contradicts a
 * shared value loses that value alone (`readmeContradicts`).
 */
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { pageOf } from "../parse/page.ts";
import { pageResources } from "../parse/urls.ts";
import { probeKey } from "../probe-keys.ts";
import { isPlausibleComponentVersion } from "./evidence.ts";
import { looksLikeReadme, parsePluginReadme, parseThemeHeader } from "./readme.ts";
import { componentAssets, type SitePaths } from "./site-paths.ts";
import { themeSlugsFromPage } from "./theme.ts";
import { isBundledLibrary, versionKey } from "./version-sanity.ts";

/** Components that must share a value before "most of the page" can say it is a stamp. */
export const MOST_COMPONENTS_AT_LEAST = 5;
/** …and the share of the page's components with a `ver=` they must be more than. */
export const MOST_COMPONENTS_SHARE = 0.75;
/** Plugins carrying the theme's version before it reads as the theme's stamp. */
const THEME_VERSION_PLUGINS = 2;
/** Core files carrying one value before it reads as a stamp (core's own values differ file by file). */
const CORE_FILES = 2;
/** Readmes of plugins sharing a value that must contradict it before it is a stamp for all. */
const CONTRADICTING_READMES = 2;

export interface VerSpread {
  /** value → the plugin folders whose own files carry it. */
  plugins: Map<string, Set<string>>;
  /** value → how many components (plugins and themes) carry it. */
  components: Map<string, number>;
  /** Components the page loads with at least one usable `ver=`. */
  withVer: number;
}

/** The `ver=` values a component's own files carry (bundled libraries and non-versions aside). */
function ownValues(urls: readonly string[]): Set<string> {
  const values = new Set<string>();
  for (const raw of urls) {
    const url = new URL(raw);
    const value = url.searchParams.get("ver");
    if (value && isPlausibleComponentVersion(value) && !isBundledLibrary(url.pathname)) values.add(value);
  }
  return values;
}

export function verSpread(homepage: HttpArtifact, paths: SitePaths): VerSpread {
  const plugins = new Map<string, Set<string>>();
  const components = new Map<string, number>();
  let withVer = 0;
  const count = (slug: string, urls: readonly string[], plugin: boolean) => {
    const values = ownValues(urls);
    if (values.size > 0) withVer++;
    for (const value of values) {
      components.set(value, (components.get(value) ?? 0) + 1);
      if (plugin) plugins.set(value, (plugins.get(value) ?? new Set()).add(slug));
    }
  };
  for (const [slug, urls] of componentAssets(homepage, paths, ["plugins", "mu-plugins"])) count(slug, urls, true);
  for (const [slug, urls] of componentAssets(homepage, paths, ["themes"])) count(slug, urls, false);
  return { plugins, components, withVer };
}

/** The version a plugin's readme.txt states (Stable tag, else its Version field), when this site's readme was read. */
export function readmeVersion(artifacts: Artifacts, slug: string): string | null {
  const readme = artifacts.probes[probeKey("plugin_readme", slug)];
  if (readme?.status !== 200 || !looksLikeReadme(readme.body)) return null;
  const parsed = parsePluginReadme(readme.body);
  const stated = parsed.stableTag ?? parsed.version;
  return stated && isPlausibleComponentVersion(stated) ? stated : null;
}

/** Whether this plugin's readme states another version than `value`. */
export function readmeContradicts(artifacts: Artifacts, slug: string, value: string): boolean {
  const stated = readmeVersion(artifacts, slug);
  return stated !== null && versionKey(stated) !== versionKey(value);
}

/** The active theme (and parent): the versions their style.css headers state, and the `ver=` on their style.css. */
function themeVersions(artifacts: Artifacts, paths: SitePaths): { header: Set<string>; styleVer: Set<string> } {
  const header = new Set<string>();
  const styleVer = new Set<string>();
  for (const [slug, urls] of themeSlugsFromPage(artifacts.homepage, paths)) {
    const style = artifacts.probes[probeKey("theme_style", slug)];
    const version = style?.status === 200 ? parseThemeHeader(style.body)?.version : null;
    if (version && isPlausibleComponentVersion(version)) header.add(version);
    for (const raw of urls) {
      const url = new URL(raw);
      const value = url.searchParams.get("ver");
      if (value && /\/style\.css$/.test(url.pathname)) styleVer.add(value);
    }
  }
  return { header, styleVer };
}

/** `ver=` value → how many distinct core files (`wp-includes/`, `wp-admin/`) the page loads with it. */
function coreFileValues(homepage: HttpArtifact): Map<string, number> {
  const byValue = new Map<string, Set<string>>();
  for (const resource of pageResources(pageOf(homepage), homepage.body, homepage.url)) {
    const { pathname } = resource.url;
    if (!/\/wp-(?:includes|admin)\//.test(pathname) || /\/(?:plugins|themes)\//.test(pathname)) continue;
    const value = resource.url.searchParams.get("ver");
    if (!value) continue;
    byValue.set(value, (byValue.get(value) ?? new Set()).add(pathname));
  }
  return new Map([...byValue].map(([value, files]) => [value, files.size]));
}

/**
 * The shared `ver=` values that are the site's stamp, each with the evidence that says so
 * (shown in the evidence of every plugin that carries it). A value not listed here is each
 * plugin's own release.
 */
export function siteVerStamps(artifacts: Artifacts, paths: SitePaths, spread: VerSpread): Map<string, string> {
  const stamps = new Map<string, string>();
  const shared = [...spread.components].filter(([, count]) => count >= 2);
  if (shared.length === 0) return stamps;
  const theme = themeVersions(artifacts, paths);
  const core = coreFileValues(artifacts.homepage);
  for (const [value, count] of shared) {
    const plugins = [...(spread.plugins.get(value) ?? [])];
    const key = versionKey(value);
    const headerSays = [...theme.header].some((version) => versionKey(version) === key);
    if (theme.styleVer.has(value) && theme.header.size > 0 && !headerSays) {
      stamps.set(value, "also on the theme's style.css, whose header states another version");
    } else if (
      (headerSays || (theme.header.size === 0 && theme.styleVer.has(value))) &&
      plugins.length >= THEME_VERSION_PLUGINS
    ) {
      // The theme's version: its header's, or (style.css not read) its style.css's ver=.
      stamps.set(value, "the active theme's version, on the files of several plugins too");
    } else if ((core.get(value) ?? 0) >= CORE_FILES) {
      stamps.set(value, "also on WordPress core's own files");
    } else if (count >= MOST_COMPONENTS_AT_LEAST && count > MOST_COMPONENTS_SHARE * spread.withVer) {
      stamps.set(value, `on the files of ${count} of the page's ${spread.withVer} components`);
    } else if (plugins.filter((slug) => readmeContradicts(artifacts, slug, value)).length >= CONTRADICTING_READMES) {
      stamps.set(value, "the readme.txt of several plugins that carry it states another version");
    }
  }
  return stamps;
}
