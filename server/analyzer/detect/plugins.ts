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
 * plugin's own files (never when it
 * is WordPress's version or a cache buster: version-sanity.ts; a value several plugins share
 * stands unless something shows it is the site's stamp: ver-stamps.ts) and from its public files —
 * readme.txt, changelogs, translation template, manifests, banners (finders/files.ts) —
 * weighed together by pickVersion. docs/detection.md lists every class with its weight.
 */
import type { PluginInfo } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
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
import { FILE_WEIGHTS, pluginFileVersions } from "./finders/files.ts";
import { listedComponents, listingSignal } from "./finders/listing.ts";
import { namedPlugins } from "./finders/observations.ts";
import { restNamespaces } from "./rest.ts";
import { PLUGIN_SIGNATURES, type PluginSignature } from "./signatures.ts";
import { componentAssets, type SitePaths } from "./site-paths.ts";
import { readmeContradicts, siteVerStamps, type VerSpread, verSpread } from "./ver-stamps.ts";
import { versionParameterProblem } from "./version-sanity.ts";

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

/**
 * `ver=` values on the plugin's own files, when they can be its version: not WordPress's
 * (what WordPress appends when a plugin enqueues a file without one), not a cache buster
 * (a timestamp, a date, a hash, a bare number, or one value stamped on the files of several
 * components). A value that is not a version stays as evidence, without a vote, saying why.
 */
function assetVersionSignals(
  urls: readonly string[],
  coreVersion: string | null,
  shared: {
    spread: VerSpread;
    stamps: ReadonlyMap<string, string>;
    /** Whether this plugin's readme states another version than a value. */
    contradicts: (value: string) => boolean;
  },
): WeightedEvidence[] {
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
    if (!version || seen.has(url.pathname)) continue;
    seen.add(url.pathname);
    const isShared = (shared.spread.components.get(version) ?? 0) >= 2;
    const problem = versionParameterProblem(version, {
      coreVersion,
      siteStamp: shared.stamps.get(version) ?? null,
      readmeContradicts: isShared && shared.contradicts(version),
      pathname: url.pathname,
    });
    // An implausible value (a hash, a timestamp) was never evidence; the others say why they do not count.
    if (problem && !isPlausibleComponentVersion(version)) continue;
    signals.push(
      problem
        ? {
            source: "asset_ver",
            value: siteText(`${url.pathname}?ver=${version} (not the plugin's version: ${problem})`, 240),
            weight: 0,
          }
        : { source: "asset_ver", value: siteText(`${url.pathname}?ver=${version}`, 200), weight: 0.5, version },
    );
  }
  return signals;
}

/** The plugin's name as the WordPress.org directory gives it, when the names index was asked about it. */
function directoryName(artifacts: Artifacts, slug: string): string | null {
  const name = new Directory(artifacts.directory).slug("plugin", slug)?.name;
  return name ? siteText(name, 100) : null;
}

/**
 * What the site shows of each plugin, files aside: asset URLs and their `ver=`, signatures,
 * the general finders (credits by name, metas, scripts, markup, headers…), the REST API, an
 * open listing. Gather uses it (on the homepage alone) to
 * tell which plugins were found without a version; detectPlugins adds the files.
 */
export function pluginSightings(
  artifacts: Artifacts,
  paths: SitePaths,
  coreVersion: string | null,
): Map<string, { signature?: PluginSignature; presence: WeightedEvidence[]; note?: WeightedEvidence }> {
  const namespaces = restNamespaces(artifacts);
  const fromPage = pluginSlugsFromPage(artifacts.homepage, paths);
  const spread = verSpread(artifacts.homepage, paths);
  const stamps = siteVerStamps(artifacts, paths, spread);
  const listed = listedComponents(artifacts, "plugins");
  const listedSlugs = new Set(listed?.slugs);
  const named = namedPlugins(artifacts, paths, fromPage, coreVersion);
  // One plugin per folder, whatever the case a credit or the directory spells it in: a folder
  // with capitals (`LayerSlider`) keeps its own spelling (its files are asked there), and a
  // credit resolved to `layerslider` joins it instead of standing as a second plugin.
  const spelling = new Map<string, string>();
  for (const slug of [...fromPage.keys(), ...listedSlugs]) {
    if (!spelling.has(slug.toLowerCase())) spelling.set(slug.toLowerCase(), slug);
  }
  const variants = new Map<string, Set<string>>();
  for (const slug of [...fromPage.keys(), ...Object.keys(PLUGIN_SIGNATURES), ...named.keys(), ...listedSlugs]) {
    const folder = spelling.get(slug.toLowerCase()) ?? slug;
    variants.set(folder, (variants.get(folder) ?? new Set()).add(slug));
  }
  const sightings = new Map<
    string,
    { signature?: PluginSignature; presence: WeightedEvidence[]; note?: WeightedEvidence }
  >();
  for (const [slug, spellings] of variants) {
    const signature = PLUGIN_SIGNATURES[slug] ?? PLUGIN_SIGNATURES[slug.toLowerCase()];
    const seen = new Set<string>();
    const presence: WeightedEvidence[] = [
      ...assetVersionSignals(fromPage.get(slug) ?? [], coreVersion, {
        spread,
        stamps,
        contradicts: (value) => readmeContradicts(artifacts, slug, value),
      }),
      ...(signature ? signatureSignals(signature, artifacts, namespaces, seen) : []),
    ];
    // One signal per class (finders/resolve.ts); none for text a signature pattern read already.
    const classes = new Set(presence.map((signal) => signal.source));
    let note: WeightedEvidence | undefined;
    for (const variant of spellings) {
      const found = named.get(variant);
      for (const credit of found?.signals ?? []) {
        if (seen.has(credit.seen) || (variant !== slug && classes.has(credit.signal.source))) continue;
        presence.push(credit.signal);
        classes.add(credit.signal.source);
      }
      note ??= found?.note;
    }
    if (listed && listedSlugs.has(slug)) presence.push(listingSignal(listed, slug));
    if (presence.length > 0) sightings.set(slug, { signature, presence, note });
  }
  return sightings;
}

/** The version votes among a plugin's signals. */
export const versionVotes = (signals: readonly WeightedEvidence[]) => signals.filter((signal) => signal.version);

export function detectPlugins(artifacts: Artifacts, paths: SitePaths, coreVersion: string | null): PluginInfo[] {
  const plugins: PluginInfo[] = [];
  for (const [slug, { signature, presence, note }] of pluginSightings(artifacts, paths, coreVersion)) {
    // The files prove the plugin is installed, not that it is active: they only corroborate.
    const files = pluginFileVersions(artifacts, slug, {
      paths,
      displayName: signature?.name ?? null,
      pageVotes: versionVotes(presence),
      directoryName: directoryName(artifacts, slug),
    });
    // Why a slug no index vouches for stands: shown, weighing nothing.
    const signals = [...presence, ...files.signals, ...(note ? [note] : [])];
    const confidence = confidenceOf(signals);
    if (confidence < DETECTED_AT) continue;
    const { version, confidence: versionConfidence } = pickVersion(signals);
    plugins.push({
      slug,
      name: signature?.name ?? files.name ?? directoryName(artifacts, slug),
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
      !plugin.evidence.every(
        (item) =>
          item.source === "directory_listing" || item.source === "inferred_slug" || FILE_SOURCES.has(item.source),
      ) || ++listedOnly <= MAX_LISTED_ONLY,
  );
}

/** Evidence sources of the plugin's own files (finders/files.ts). */
const FILE_SOURCES = new Set(Object.keys(FILE_WEIGHTS));

/** Plugins reported on the strength of an open listing alone (the intel asks about 100 slugs at most). */
export const MAX_LISTED_ONLY = 100;
