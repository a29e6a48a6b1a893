/**
 * All the finders over one site's artifacts: the observations they make, the context that
 * resolves them (resolve.ts), and the names query asked of the WordPress.org names index
 * before detection (directory.ts). docs/detection.md describes each class.
 */
import { type Artifacts, probeAnswers } from "../../artifacts.ts";
import { pageOf } from "../../parse/page.ts";
import { probeKey } from "../../probe-keys.ts";
import { isPlausibleComponentVersion } from "../evidence.ts";
import { parseThemeHeader } from "../readme.ts";
import { restNamespaces, restRootUrl } from "../rest.ts";
import { PLUGIN_SIGNATURES } from "../signatures.ts";
import { componentAssets, detectSitePaths, type SitePaths } from "../site-paths.ts";
import { themeSlugsFromPage } from "../theme.ts";
import { assetParamObservations } from "./asset-params.ts";
import { commentsBesideAssets } from "./beside.ts";
import { commentObservations, creditHeaderObservations, generatorObservations } from "./credits.ts";
import { Directory, MAX_QUERY_NAMES, MAX_QUERY_SLUGS, type NameQuery } from "./directory.ts";
import { dataAttributeObservations, hiddenInputObservations } from "./form-attributes.ts";
import { headerObservations } from "./headers.ts";
import { inlineScriptObservations } from "./inline-scripts.ts";
import { listedComponents } from "./listing.ts";
import { metaTagObservations } from "./meta-tags.ts";
import { identifierKey, normalizeName, SLUG_SHAPE } from "./name-keys.ts";
import { pluginNameIndex } from "./names.ts";
import type { Observation } from "./observation.ts";
import { type Found, type PageSlugSource, queryKeys, type ResolveContext, resolveAll } from "./resolve.ts";
import { namespaceRoots, restNamespaceObservations } from "./rest-namespaces.ts";
import { pageVocabulary } from "./vocabulary.ts";

/** Plugin folders the page loads files from: slug → URLs. */
export function pluginAssets(artifacts: Artifacts, paths: SitePaths): Map<string, string[]> {
  return componentAssets(artifacts.homepage, paths, ["plugins", "mu-plugins"]);
}

/** What every finder sees on the site. */
export function siteObservations(
  artifacts: Artifacts,
  fromPage: ReadonlyMap<string, readonly string[]>,
  coreVersion: string | null,
): Observation[] {
  const { homepage } = artifacts;
  const page = pageOf(homepage);
  // Redirects answer with the plugin that made them (X-Redirect-By: Yoast SEO).
  const redirects = probeAnswers(artifacts).filter((answer) => answer.status >= 300 && answer.status < 400);
  return [
    ...generatorObservations(page),
    ...commentObservations(page, commentsBesideAssets(homepage.body, homepage.url, fromPage)),
    ...creditHeaderObservations([homepage, ...redirects]),
    ...headerObservations(homepage),
    ...metaTagObservations(page),
    ...inlineScriptObservations(page),
    ...hiddenInputObservations(page),
    ...dataAttributeObservations(page),
    ...assetParamObservations(fromPage, coreVersion),
    ...restNamespaceObservations(
      restNamespaces(artifacts),
      artifacts.probes.rest_root && restRootUrl(artifacts.probes.rest_root.url),
    ),
  ];
}

/** The active theme and its parent, by identifier and by name: their own credits are not plugins. */
function activeThemes(artifacts: Artifacts, paths: SitePaths): { keys: Set<string>; names: Set<string> } {
  const keys = new Set<string>();
  const names = new Set<string>();
  for (const slug of themeSlugsFromPage(artifacts.homepage, paths).keys()) {
    keys.add(identifierKey(slug));
    const style = artifacts.probes[probeKey("theme_style", slug)];
    const header = style?.status === 200 ? parseThemeHeader(style.body) : null;
    if (header?.name) names.add(normalizeName(header.name));
    if (header?.template) keys.add(identifierKey(header.template));
  }
  return { keys, names };
}

export function resolveContext(
  artifacts: Artifacts,
  paths: SitePaths,
  fromPage: ReadonlyMap<string, readonly string[]>,
  coreVersion: string | null = null,
): ResolveContext {
  const pageSlugs = new Map<string, { slug: string; source: PageSlugSource }>();
  const show = (slug: string, source: PageSlugSource) => {
    if (!pageSlugs.has(slug.toLowerCase())) pageSlugs.set(slug.toLowerCase(), { slug, source });
  };
  for (const slug of fromPage.keys()) show(slug, "asset");
  const assetVersions = new Map<string, Set<string>>();
  for (const [slug, urls] of fromPage) {
    const values = urls.map((raw) => new URL(raw).searchParams.get("ver") ?? "").filter(isPlausibleComponentVersion);
    assetVersions.set(slug.toLowerCase(), new Set(values));
  }
  for (const slug of listedComponents(artifacts, "plugins")?.slugs ?? []) show(slug, "listing");
  for (const root of namespaceRoots(restNamespaces(artifacts)).keys()) show(root, "rest");
  const signatureKeys = new Map<string, string>();
  for (const [slug, signature] of Object.entries(PLUGIN_SIGNATURES)) {
    for (const identifier of [slug, ...(signature.identifiers ?? [])])
      signatureKeys.set(identifierKey(identifier), slug);
  }
  const themes = activeThemes(artifacts, paths);
  return {
    local: pluginNameIndex(artifacts),
    directory: new Directory(artifacts.directory),
    vocabulary: pageVocabulary(artifacts.homepage, paths),
    pageSlugs,
    assetVersions,
    signatureKeys,
    themeKeys: themes.keys,
    themeNames: themes.names,
    coreVersion,
  };
}

/** Plugins named by the finders: slug → signals (and why, for a slug no index vouches for). */
export function namedPlugins(
  artifacts: Artifacts,
  paths: SitePaths,
  fromPage: ReadonlyMap<string, readonly string[]>,
  coreVersion: string | null,
): Map<string, Found> {
  return resolveAll(
    siteObservations(artifacts, fromPage, coreVersion),
    resolveContext(artifacts, paths, fromPage, coreVersion),
  );
}

/**
 * What to ask the names index about this site: every name and slug-shaped identifier the
 * finders saw (an empty query when there are none): names-question.ts asks it.
 */
export function nameQuery(artifacts: Artifacts): NameQuery {
  const paths = detectSitePaths(artifacts);
  const assets = pluginAssets(artifacts, paths);
  const { names, slugs } = queryKeys(siteObservations(artifacts, assets, null));
  // The plugins whose files the page loads: their directory names tell whose name a .pot or a
  // package.json gives (finders/files.ts), and name them in the report.
  const all = [...[...assets.keys()].filter((slug) => SLUG_SHAPE.test(slug)), ...slugs];
  return { names: [...names].slice(0, MAX_QUERY_NAMES), slugs: [...new Set(all)].slice(0, MAX_QUERY_SLUGS) };
}
