/**
 * The active theme (and its parent, for child themes): slug from the theme files the page
 * loads (and WordPress's `wp-theme-*` body classes), name/version/author/parent from the
 * header of each candidate's style.css; an open listing of the themes folder corroborates
 * that each is installed (the other listed themes go to the report's installed_themes).
 */
import type { Component, ThemeInfo } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { pageOf } from "../parse/page.ts";
import { probeKey } from "../probe-keys.ts";
import { siteText } from "../untrusted-text.ts";
import { componentFrom, isPlausibleComponentVersion, type WeightedEvidence } from "./evidence.ts";
import { type ListedComponents, listedComponents, listingSignal } from "./finders/listing.ts";
import { parseThemeHeader, type ThemeHeader } from "./readme.ts";
import { componentAssets, isComponentSlug, type SitePaths } from "./site-paths.ts";

/** Theme slugs the page refers to, most referenced first, with the URLs seen. */
export function themeSlugsFromPage(homepage: HttpArtifact, paths: SitePaths): Map<string, string[]> {
  const found = componentAssets(homepage, paths, ["themes"]);
  // WordPress ≥ 6.x marks <body> with wp-theme-<slug> and wp-child-theme-<slug>.
  for (const match of pageOf(homepage).bodyClass.matchAll(/\bwp-(?:child-)?theme-([a-z0-9._-]+)/gi)) {
    const slug = match[1] ?? "";
    if (isComponentSlug(slug) && !found.has(slug)) found.set(slug, []);
  }
  return new Map([...found.entries()].sort((a, b) => b[1].length - a[1].length));
}

function styleOf(artifacts: Artifacts, slug: string): { header: ThemeHeader; url: string } | undefined {
  const artifact = artifacts.probes[probeKey("theme_style", slug)];
  if (artifact?.status !== 200) return undefined;
  const header = parseThemeHeader(artifact.body);
  return header ? { header, url: artifact.url } : undefined;
}

function component(
  slug: string,
  urls: readonly string[],
  /** The `wp-theme-<slug>` / `wp-child-theme-<slug>` class on <body>, if there is one. */
  bodyClass: string | null,
  style: ReturnType<typeof styleOf>,
  listed: ListedComponents | null,
): Component {
  const signals: WeightedEvidence[] = [];
  for (const [index, raw] of urls.slice(0, 10).entries()) {
    signals.push({
      source: "asset_url",
      value: siteText(new URL(raw).pathname, 200),
      url: siteText(raw, 500),
      weight: index === 0 ? 0.9 : 0.3,
    });
    const ver = new URL(raw).searchParams.get("ver");
    // A theme's own style.css is enqueued with the theme's version by most themes.
    if (ver && isPlausibleComponentVersion(ver) && /\/style\.css$/.test(new URL(raw).pathname)) {
      signals.push({
        source: "asset_ver",
        value: siteText(`${new URL(raw).pathname}?ver=${ver}`, 200),
        weight: 0.5,
        version: ver,
      });
    }
  }
  if (bodyClass) signals.push({ source: "body_class", value: bodyClass, weight: 0.8 });
  if (style) {
    signals.push({
      source: "style_css",
      value: siteText(`Theme Name: ${style.header.name}`, 200),
      url: style.url,
      weight: 0.7,
    });
    if (style.header.version && isPlausibleComponentVersion(style.header.version)) {
      signals.push({
        source: "style_css_version",
        value: siteText(`Version: ${style.header.version}`, 100),
        url: style.url,
        weight: 0.9,
        version: style.header.version,
      });
    }
  }
  if (listed?.slugs.includes(slug)) signals.push(listingSignal(listed, slug));
  return componentFrom(slug, style?.header.name ? siteText(style.header.name, 100) : null, signals);
}

export function detectTheme(artifacts: Artifacts, paths: SitePaths): ThemeInfo | null {
  const candidates = themeSlugsFromPage(artifacts.homepage, paths);
  if (candidates.size === 0) return null;
  const bodyClass = pageOf(artifacts.homepage).bodyClass;
  // A child theme names its parent in `Template:`; the child is the active theme.
  let activeSlug = [...candidates.keys()][0] as string;
  for (const slug of candidates.keys()) {
    const template = styleOf(artifacts, slug)?.header.template;
    if (template && template !== slug) {
      activeSlug = slug;
      break;
    }
  }
  const classes = new Set(bodyClass.split(/\s+/));
  const themeClass = (slug: string) =>
    [`wp-child-theme-${slug}`, `wp-theme-${slug}`].find((name) => classes.has(name)) ?? null;
  const style = styleOf(artifacts, activeSlug);
  const listed = listedComponents(artifacts, "themes");
  const active = component(activeSlug, candidates.get(activeSlug) ?? [], themeClass(activeSlug), style, listed);
  let parent: Component | null = null;
  const template = style?.header.template;
  if (template && template !== activeSlug && isComponentSlug(template)) {
    parent = component(
      template,
      candidates.get(template) ?? [],
      classes.has(`wp-theme-${template}`) ? `wp-theme-${template}` : null,
      styleOf(artifacts, template),
      listed,
    );
    parent.evidence.unshift({
      source: "style_css_template",
      value: siteText(`Template: ${template}`, 100),
      url: style?.url ?? "",
    });
    parent.confidence = Math.max(parent.confidence, 90);
  }
  return {
    ...active,
    author: style?.header.author ? siteText(style.header.author, 100) : null,
    parent,
  };
}
