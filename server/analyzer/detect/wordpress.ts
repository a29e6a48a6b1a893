/**
 * Is the site WordPress, and which core version? A pure function of the artifacts.
 *
 * Each signal has a likelihood of being right on its own; independent signals combine
 * as 1 − Π(1 − p) ("noisy OR") into a 0–100 confidence. A version is only ever taken
 * from a source that names WordPress's own version and only when it has the shape of a
 * WordPress release; disagreeing sources lower the confidence of the winner.
 */
import { parseHTML } from "linkedom";
import type { Evidence, WordPressInfo } from "../../../shared/report.ts";
import type { Artifacts } from "../artifacts.ts";
import { siteText, siteUrl } from "../untrusted-text.ts";

const RELEASE = /^([1-9])\.(\d{1,2})(?:\.(\d{1,2}))?$/;

export function isPlausibleWordPressVersion(version: string): boolean {
  return RELEASE.test(version);
}

interface Signal extends Evidence {
  /** Probability that this signal alone is right (0–1). */
  weight: number;
  /** The WordPress version it states, if any. */
  version?: string;
}

const combine = (weights: number[]) => 1 - weights.reduce((rest, weight) => rest * (1 - weight), 1);

/** `\/` in inline JSON (wp_localize_script, emoji settings) hides plain paths. */
const unescapeJsonSlashes = (text: string) => text.replaceAll("\\/", "/");

export function detectWordPress(artifacts: Artifacts): WordPressInfo {
  const signals: Signal[] = [];
  const { homepage, feed } = artifacts;
  const html = homepage.body;

  let restApiUrl: string | null = null;
  const linkHeader = homepage.headers.link ?? "";
  const restLink = /<([^>]+)>\s*;\s*rel="https:\/\/api\.w\.org\/"/.exec(linkHeader);
  if (restLink?.[1]) {
    restApiUrl = siteUrl(restLink[1]);
    signals.push({ source: "rest_link_header", value: siteText(restLink[0]), weight: 0.95 });
  }

  try {
    const { document } = parseHTML(html);
    for (const meta of document.querySelectorAll('meta[name="generator" i]')) {
      const content = meta.getAttribute("content") ?? "";
      const match = /^WordPress\s*(\S*)/i.exec(content.trim());
      if (!match) continue;
      const version = match[1] && isPlausibleWordPressVersion(match[1]) ? match[1] : undefined;
      signals.push({ source: "meta_generator", value: siteText(content), weight: 0.95, version });
    }
    const restTag = document.querySelector('link[rel="https://api.w.org/"][href]');
    if (restTag) {
      const href = restTag.getAttribute("href") ?? "";
      restApiUrl ??= siteUrl(href);
      signals.push({ source: "rest_link_tag", value: siteText(href), weight: 0.9 });
    }
  } catch {
    // Broken HTML that even a lenient parser rejects: the regex signals below still work.
  }

  const plain = unescapeJsonSlashes(html);
  const pathHit = /["'(=\s](?:https?:)?(?:\/\/[^"'\s/]+)?\/[^"'\s]*?wp-(?:content|includes)\/[^"'\s]+/i.exec(plain);
  if (pathHit) {
    signals.push({ source: "wp_paths", value: siteText(pathHit[0].slice(1), 200), weight: 0.8 });
  }
  // Core assets carry the core version as ?ver=; count each distinct asset once.
  const seenAssets = new Set<string>();
  for (const match of plain.matchAll(/\/wp-includes\/([^"'\s?]+)\?ver=([0-9][0-9.]*)/g)) {
    const [, asset = "", version = ""] = match;
    if (!isPlausibleWordPressVersion(version) || seenAssets.has(asset) || seenAssets.size >= 5) continue;
    seenAssets.add(asset);
    signals.push({
      source: "core_asset_ver",
      value: siteText(`/wp-includes/${asset}?ver=${version}`),
      weight: 0.5,
      version,
    });
  }

  if (feed) {
    const rss = /<generator>\s*https?:\/\/wordpress\.org\/\?v=([^<\s]*)\s*<\/generator>/i.exec(feed.body);
    const atom = /<generator[^>]*uri="https?:\/\/wordpress\.org\/?"[^>]*version="([^"]*)"/i.exec(feed.body);
    const found = rss ?? atom;
    if (found) {
      const version = found[1] && isPlausibleWordPressVersion(found[1]) ? found[1] : undefined;
      signals.push({
        source: rss ? "rss_generator" : "atom_generator",
        value: siteText(found[0]),
        url: siteUrl(feed.url),
        weight: 0.9,
        version,
      });
    }
  }

  const confidence = Math.round(combine(signals.map((signal) => signal.weight)) * 100);

  // Version: sum evidence per candidate; the winner's confidence is discounted by the
  // share of version evidence that disagrees with it.
  const byVersion = new Map<string, number[]>();
  for (const signal of signals) {
    if (!signal.version) continue;
    byVersion.set(signal.version, [...(byVersion.get(signal.version) ?? []), signal.weight]);
  }
  let version: string | null = null;
  let versionConfidence = 0;
  let best = 0;
  let total = 0;
  for (const [candidate, weights] of byVersion) {
    const score = combine(weights);
    total += weights.reduce((sum, weight) => sum + weight, 0);
    if (score > best) {
      best = score;
      version = candidate;
    }
  }
  if (version) {
    const agreeing = (byVersion.get(version) ?? []).reduce((sum, weight) => sum + weight, 0);
    versionConfidence = Math.round(best * (agreeing / total) * 100);
  }

  return {
    detected: confidence >= 50,
    confidence,
    version,
    version_confidence: versionConfidence,
    evidence: signals.map(({ source, value, url }) => (url ? { source, value, url } : { source, value })),
    rest_api_url: restApiUrl,
  };
}
