/**
 * Plugins: which are active (or at least installed), under which slug, at which version —
 * each fact with where it was seen. Signals: the plugin's own asset URLs (any plugin), the
 * signature table (signatures.ts) for comments, generator tags, headers, REST namespaces,
 * body classes and cookies; the general finders (finders/observations.ts): credits by
 * display name in generator tags, comments and headers, custom meta tags, inline script
 * and JSON versions, hidden inputs and data attributes, version and cache headers, version
 * parameters and REST namespaces, resolved through the signature names, this site's
 * readmes and the WordPress.org names index (finders/resolve.ts); an open listing of the
 * plugins folder (finders/listing.ts). Versions from all of these, from `ver=` on the
 * plugin's own files (discounted when it merely repeats the WordPress version) and from its
 * readme.txt, weighed together by pickVersion. docs/detection.md lists every class with its weight.
 */
import type { PluginInfo } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { probeKey } from "../gather/probes.ts";
import { metaContents, pageOf } from "../parse/page.ts";
import { siteText } from "../untrusted-text.ts";
import {
  confidenceOf,
  isPlausibleComponentVersion,
  pickVersion,
  toEvidence,
  type WeightedEvidence,
} from "./evidence.ts";
import { Directory } from "./finders/directory.ts";
import { listedComponents, listingSignal } from "./finders/listing.ts";
import { namedPlugins } from "./finders/observations.ts";
import { looksLikeReadme, parsePluginReadme } from "./readme.ts";
import { restNamespaces } from "./rest.ts";
import { PLUGIN_SIGNATURES, type PluginSignature } from "./signatures.ts";
import { componentAssets, type SitePaths } from "./site-paths.ts";

const DETECTED_AT = 50;

const compiled = new Map<string, RegExp>();
function pattern(source: string): RegExp {
  let regex = compiled.get(source);
  if (!regex) {
    regex = new RegExp(source, "i");
    compiled.set(source, regex);
  }
  return regex;
}

/** Slugs of plugins whose files the page loads (`<content>/plugins/<slug>/…`). */
export function pluginSlugsFromPage(homepage: HttpArtifact, paths: SitePaths): Map<string, string[]> {
  return componentAssets(homepage, paths, ["plugins", "mu-plugins"]);
}

/** Plugins known by the REST namespaces they register. */
export function pluginSlugsFromNamespaces(namespaces: readonly string[]): string[] {
  const slugs: string[] = [];
  for (const [slug, signature] of Object.entries(PLUGIN_SIGNATURES)) {
    if (signature.restNamespaces?.some((namespace) => namespaces.includes(namespace))) slugs.push(slug);
  }
  return slugs;
}

/**
 * `seen` collects the observations a signature matched (`comment:<n>`, `generator:<content>`,
 * `header:<name>`, `rest:<namespace>`), so that a finder reading the same text does not count it twice.
 */
function signatureSignals(
  signature: PluginSignature,
  artifacts: Artifacts,
  namespaces: readonly string[],
  seen: Set<string>,
) {
  const { homepage } = artifacts;
  const page = pageOf(homepage);
  const signals: WeightedEvidence[] = [];
  const versionOf = (match: RegExpExecArray) => {
    const version = match.groups?.version;
    return version && isPlausibleComponentVersion(version) ? version : undefined;
  };
  for (const source of signature.comments ?? []) {
    for (const [n, comment] of page.comments.entries()) {
      const match = pattern(source).exec(comment);
      if (match) {
        seen.add(`comment:${n}`);
        signals.push({
          source: "html_comment",
          value: siteText(match[0], 200),
          weight: 0.85,
          version: versionOf(match),
        });
        break;
      }
    }
  }
  for (const source of signature.generator ?? []) {
    for (const content of metaContents(page, "generator")) {
      const match = pattern(source).exec(content);
      if (match) seen.add(`generator:${content}`);
      if (match)
        signals.push({
          source: "meta_generator",
          value: siteText(content, 200),
          weight: 0.9,
          version: versionOf(match),
        });
    }
  }
  for (const [header, source] of Object.entries(signature.headers ?? {})) {
    const value = homepage.headers[header];
    if (value === undefined) continue;
    const match = source ? pattern(source).exec(value) : ([value] as unknown as RegExpExecArray);
    if (match) seen.add(`header:${header}`);
    if (match)
      signals.push({
        source: "header",
        value: siteText(`${header}: ${value}`, 200),
        weight: 0.8,
        version: source ? versionOf(match) : undefined,
      });
  }
  for (const namespace of signature.restNamespaces ?? []) {
    if (!namespaces.includes(namespace)) continue;
    seen.add(`rest:${namespace}`);
    signals.push({ source: "rest_namespace", value: namespace, weight: 0.9 });
  }
  for (const source of signature.bodyClass ?? []) {
    const match = pattern(source).exec(page.bodyClass);
    if (match) signals.push({ source: "body_class", value: siteText(match[0], 100), weight: 0.6 });
  }
  for (const source of signature.html ?? []) {
    const match = pattern(source).exec(homepage.body);
    if (match) signals.push({ source: "html", value: siteText(match[0], 100), weight: 0.5 });
  }
  for (const source of signature.cookies ?? []) {
    const cookie = homepage.set_cookies
      .map((line) => line.split("=")[0]?.trim() ?? "")
      .find((name) => pattern(source).test(name));
    if (cookie) signals.push({ source: "cookie", value: siteText(cookie, 100), weight: 0.7 });
  }
  return signals;
}

/** `ver=` values on the plugin's own files. A value equal to the WordPress version is usually WordPress's default, not the plugin's. */
function assetVersionSignals(urls: readonly string[], coreVersion: string | null): WeightedEvidence[] {
  const signals: WeightedEvidence[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of urls.entries()) {
    const url = new URL(raw);
    // One asset URL is already strong evidence; more of them add little.
    signals.push({
      source: "asset_url",
      value: siteText(url.pathname, 200),
      url: siteText(raw, 500),
      weight: index === 0 ? 0.9 : 0.3,
    });
    const version = url.searchParams.get("ver");
    if (!version || !isPlausibleComponentVersion(version) || seen.has(url.pathname)) continue;
    seen.add(url.pathname);
    signals.push({
      source: "asset_ver",
      value: siteText(`${url.pathname}?ver=${version}`, 200),
      weight: version === coreVersion ? 0.15 : 0.5,
      version,
    });
  }
  return signals;
}

/** A plugin's readme.txt: that it exists, its `=== Name ===`, Stable tag and newest changelog entry. */
export function readmeSignals(artifact: HttpArtifact | undefined): {
  signals: WeightedEvidence[];
  name: string | null;
} {
  if (artifact?.status !== 200 || !looksLikeReadme(artifact.body)) return { signals: [], name: null };
  const readme = parsePluginReadme(artifact.body);
  const signals: WeightedEvidence[] = [
    { source: "readme", value: siteText(readme.name ?? "readme.txt", 200), url: artifact.url, weight: 0.6 },
  ];
  if (readme.stableTag && isPlausibleComponentVersion(readme.stableTag)) {
    signals.push({
      source: "readme_stable_tag",
      value: `Stable tag: ${readme.stableTag}`,
      url: artifact.url,
      weight: 0.6,
      version: readme.stableTag,
    });
  }
  const newest = readme.changelog[0];
  if (newest && isPlausibleComponentVersion(newest)) {
    signals.push({
      source: "readme_changelog",
      value: `Changelog: ${newest}`,
      url: artifact.url,
      weight: 0.5,
      version: newest,
    });
  }
  return { signals, name: readme.name ? siteText(readme.name, 100) : null };
}

/** The plugin's name as the WordPress.org directory gives it, when the names index was asked about it. */
function directoryName(directory: Directory, slug: string): string | null {
  const name = directory.slug("plugin", slug)?.name;
  return name ? siteText(name, 100) : null;
}

export function detectPlugins(artifacts: Artifacts, paths: SitePaths, coreVersion: string | null): PluginInfo[] {
  const namespaces = restNamespaces(artifacts);
  const fromPage = pluginSlugsFromPage(artifacts.homepage, paths);
  const listed = listedComponents(artifacts, "plugins");
  const listedSlugs = new Set(listed?.slugs);
  const named = namedPlugins(artifacts, paths, fromPage, coreVersion);
  const directory = new Directory(artifacts.directory);
  const slugs = new Set<string>([
    ...fromPage.keys(),
    ...Object.keys(PLUGIN_SIGNATURES),
    ...named.keys(),
    ...listedSlugs,
  ]);
  const plugins: PluginInfo[] = [];
  for (const slug of slugs) {
    const signature = PLUGIN_SIGNATURES[slug];
    const seen = new Set<string>();
    const presence: WeightedEvidence[] = [
      ...assetVersionSignals(fromPage.get(slug) ?? [], coreVersion),
      ...(signature ? signatureSignals(signature, artifacts, namespaces, seen) : []),
    ];
    // One signal per class (finders/resolve.ts); none for text a signature pattern read already.
    const found = named.get(slug);
    for (const credit of found?.signals ?? []) {
      if (!seen.has(credit.seen)) presence.push(credit.signal);
    }
    if (listed && listedSlugs.has(slug)) presence.push(listingSignal(listed, slug));
    if (presence.length === 0) continue;
    // The readme proves the plugin is installed, not that it is active: it only corroborates.
    const readme = readmeSignals(artifacts.probes[probeKey("plugin_readme", slug)]);
    // Why a slug no index vouches for stands: shown, weighing nothing.
    const signals = [...presence, ...readme.signals, ...(found?.note && presence.length > 0 ? [found.note] : [])];
    const confidence = confidenceOf(signals);
    if (confidence < DETECTED_AT) continue;
    const { version, confidence: versionConfidence } = pickVersion(signals);
    plugins.push({
      slug,
      name: signature?.name ?? readme.name ?? directoryName(directory, slug),
      version,
      version_confidence: versionConfidence,
      confidence,
      evidence: toEvidence(signals),
      latest_version: null,
      outdated: null,
      vulnerabilities: [],
      category: signature?.category ?? null,
    });
  }
  plugins.sort((a, b) => b.confidence - a.confidence || a.slug.localeCompare(b.slug));
  // A hostile listing can name 500 folders: beyond MAX_LISTED_ONLY, plugins known only from
  // the listing are left to the directory-listing check, which names the folder's entries.
  let listedOnly = 0;
  return plugins.filter(
    (plugin) =>
      !plugin.evidence.every((item) => item.source === "directory_listing" || item.source.startsWith("readme")) ||
      ++listedOnly <= MAX_LISTED_ONLY,
  );
}

/** Plugins reported on the strength of an open listing alone (the intel asks about 100 slugs at most). */
export const MAX_LISTED_ONLY = 100;
