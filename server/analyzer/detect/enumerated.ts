/**
 * Components found by aggressive enumeration (enumeration/enumerate.ts) and not by passive
 * detection: plugins from their directory or readme.txt answer, themes from their
 * style.css. Each is marked `found_by: "aggressive"`, with the answer that proved it as
 * evidence, and its name and version from the readme / style.css header. Such a component
 * is installed; whether it is active the site does not say. Inactive themes named by an open
 * listing of the themes folder (passive) join them in `installed_themes`.
 */
import type { Component, PluginInfo } from "../../../shared/report.ts";
import type { Artifacts } from "../artifacts.ts";
import { siteText, siteUrl } from "../untrusted-text.ts";
import {
  confidenceOf,
  isPlausibleComponentVersion,
  pickVersion,
  toEvidence,
  type WeightedEvidence,
} from "./evidence.ts";
import { type ListedComponents, listedComponents, listingSignal } from "./finders/listing.ts";
import { looksLikeReadme, parsePluginReadme, parseThemeHeader } from "./readme.ts";
import { PLUGIN_SIGNATURES } from "./signatures.ts";

/** A 403 directory or a 200 readme/style.css after a 404 calibration: strong, not certain. */
const PRESENCE_WEIGHT = 0.85;

function presence(artifacts: Artifacts, key: string, what: string): WeightedEvidence | undefined {
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

function component(slug: string, signals: WeightedEvidence[], name: string | null): Component {
  const { version, confidence: versionConfidence } = pickVersion(signals);
  return {
    slug,
    name,
    version,
    version_confidence: versionConfidence,
    confidence: confidenceOf(signals),
    evidence: toEvidence(signals),
    latest_version: null,
    outdated: null,
    vulnerabilities: [],
    found_by: "aggressive",
  };
}

/** Plugins that only enumeration found (the passive ones were not probed). */
export function enumeratedPlugins(artifacts: Artifacts, passive: ReadonlySet<string>): PluginInfo[] {
  const plugins: PluginInfo[] = [];
  for (const slug of artifacts.enumeration?.plugins.found ?? []) {
    if (passive.has(slug.toLowerCase())) continue;
    const proof = presence(artifacts, `enum_plugin:${slug}`, "plugin");
    if (!proof) continue;
    const signals = [proof];
    let name: string | null = PLUGIN_SIGNATURES[slug]?.name ?? null;
    const readme = artifacts.probes[`plugin_readme:${slug}`];
    if (readme?.status === 200 && looksLikeReadme(readme.body)) {
      const parsed = parsePluginReadme(readme.body);
      name ??= parsed.name ? siteText(parsed.name, 100) : null;
      if (parsed.stableTag && isPlausibleComponentVersion(parsed.stableTag)) {
        signals.push({
          source: "readme_stable_tag",
          value: siteText(`Stable tag: ${parsed.stableTag}`, 100),
          url: siteUrl(readme.url),
          weight: 0.6,
          version: parsed.stableTag,
        });
      }
      const newest = parsed.changelog[0];
      if (newest && isPlausibleComponentVersion(newest)) {
        signals.push({
          source: "readme_changelog",
          value: `Changelog: ${newest}`,
          url: siteUrl(readme.url),
          weight: 0.5,
          version: newest,
        });
      }
    }
    plugins.push({ ...component(slug, signals, name), category: PLUGIN_SIGNATURES[slug]?.category ?? null });
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
    .map((slug) => {
      const { found_by: _aggressive, ...passive } = component(
        slug,
        [listingSignal(listed as ListedComponents, slug)],
        null,
      );
      return passive;
    });
  const seen = new Set([...active, ...fromListing.map((theme) => theme.slug.toLowerCase())]);
  return [...fromListing, ...enumeratedThemes(artifacts, seen)];
}

/** Themes only enumeration found (not active, not listed). */
export function enumeratedThemes(artifacts: Artifacts, active: ReadonlySet<string>): Component[] {
  const themes: Component[] = [];
  for (const slug of artifacts.enumeration?.themes.found ?? []) {
    if (active.has(slug.toLowerCase())) continue;
    const proof = presence(artifacts, `enum_theme:${slug}`, "theme");
    if (!proof) continue;
    const signals = [proof];
    const style = artifacts.probes[`theme_style:${slug}`];
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
    themes.push(component(slug, signals, header?.name ? siteText(header.name, 100) : null));
  }
  return themes;
}
