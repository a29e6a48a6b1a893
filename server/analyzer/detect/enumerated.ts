/**
 * Components found by aggressive enumeration (enumeration/enumerate.ts) and not by passive
 * detection: plugins from their directory or readme.txt answer, themes from their
 * style.css. Each is marked `found_by: "aggressive"`, with the answer that proved it as
 * evidence, and its name and version from its files (finders/files.ts: readme.txt, changelogs,
 * translation template, manifests) / its style.css header. Such a component
 * is installed; whether it is active the site does not say. Inactive themes named by an open
 * listing of the themes folder (passive) join them in `installed_themes`.
 */
import type { Component, PluginInfo } from "../../../shared/report.ts";
import type { Artifacts } from "../artifacts.ts";
import { type ProbeKey, probeKey } from "../probe-keys.ts";
import { siteText, siteUrl } from "../untrusted-text.ts";
import { componentFrom, isPlausibleComponentVersion, type WeightedEvidence } from "./evidence.ts";
import { pluginFileVersions } from "./finders/files.ts";
import { type ListedComponents, listedComponents, listingSignal } from "./finders/listing.ts";
import { parseThemeHeader } from "./readme.ts";
import { PLUGIN_SIGNATURES } from "./signatures.ts";

/** A 403 directory or a 200 readme/style.css after a 404 calibration: strong, not certain. */
const PRESENCE_WEIGHT = 0.85;

function presence(artifacts: Artifacts, key: ProbeKey, what: string): WeightedEvidence | undefined {
  const answer = artifacts.probes[key];
  if (!answer) return undefined;
  const path = new URL(answer.url).pathname;
  return {
    source: "aggressive_enumeration",
    value: siteText(`${what} ${path} answered ${answer.status}`, 200),
    url: siteUrl(answer.url),
    weight: PRESENCE_WEIGHT,
  };
}

const aggressive = (found: Component): Component => ({ ...found, found_by: "aggressive" });

/** Plugins that only enumeration found (the passive ones were not probed). */
export function enumeratedPlugins(artifacts: Artifacts, passive: ReadonlySet<string>): PluginInfo[] {
  const plugins: PluginInfo[] = [];
  for (const slug of artifacts.enumeration?.plugins.found ?? []) {
    if (passive.has(slug.toLowerCase())) continue;
    const proof = presence(artifacts, probeKey("enum_plugin", slug), "plugin");
    if (!proof) continue;
    const signatureName = PLUGIN_SIGNATURES[slug]?.name ?? null;
    const files = pluginFileVersions(artifacts, slug, { paths: null, displayName: signatureName, pageVotes: [] });
    const found = aggressive(componentFrom(slug, signatureName ?? files.name, [proof, ...files.signals]));
    plugins.push({ ...found, category: PLUGIN_SIGNATURES[slug]?.category ?? null });
  }
  return plugins;
}

/** A hostile listing can name hundreds of folders; the listing check names them all anyway. */
const MAX_LISTED_THEMES = 50;

/** Installed themes other than the active one and its parent: listed (passive), then enumerated. */
export function installedThemes(artifacts: Artifacts, active: ReadonlySet<string>): Component[] {
  const listed = listedComponents(artifacts, "themes");
  const fromListing = (listed?.slugs ?? [])
    .filter((slug) => !active.has(slug.toLowerCase()))
    .slice(0, MAX_LISTED_THEMES)
    .map((slug) => componentFrom(slug, null, [listingSignal(listed as ListedComponents, slug)]));
  const seen = new Set([...active, ...fromListing.map((theme) => theme.slug.toLowerCase())]);
  return [...fromListing, ...enumeratedThemes(artifacts, seen)];
}

/** Themes only enumeration found (not active, not listed). */
export function enumeratedThemes(artifacts: Artifacts, active: ReadonlySet<string>): Component[] {
  const themes: Component[] = [];
  for (const slug of artifacts.enumeration?.themes.found ?? []) {
    if (active.has(slug.toLowerCase())) continue;
    const proof = presence(artifacts, probeKey("enum_theme", slug), "theme");
    if (!proof) continue;
    const signals = [proof];
    const style = artifacts.probes[probeKey("theme_style", slug)];
    const header = style?.status === 200 ? parseThemeHeader(style.body) : null;
    if (style && header?.version && isPlausibleComponentVersion(header.version)) {
      signals.push({
        source: "style_css_version",
        value: siteText(`Version: ${header.version}`, 100),
        url: siteUrl(style.url),
        weight: 0.9,
        version: header.version,
      });
    }
    themes.push(aggressive(componentFrom(slug, header?.name ? siteText(header.name, 100) : null, signals)));
  }
  return themes;
}
