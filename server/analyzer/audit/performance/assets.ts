/**
 * The site's own asset sample (scripts, stylesheets, images, fonts the homepage references on
 * its origin or its asset origins — a CDN serving its plugins and themes —, fetched by gather):
 * compression, browser caching and size. Only a sample is fetched, so
 * messages say how many were looked at.
 */
import type { AssetSample } from "../../../../shared/report.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";
import { count, size } from "./format.ts";

/** Below this size compression saves too little to matter (Lighthouse: IGNORE_THRESHOLD_IN_BYTES = 1400). */
const COMPRESSION_MIN_BYTES = 1400;

/** Browser cache lifetime that counts as long: Lighthouse's cache insight ignores TTLs ≥ 30 days. */
const LONG_CACHE_SECONDS = 30 * 24 * 3600;

/**
 * Decoded size above which a single file is large (warn), and twice that (fail). Our bounds:
 * a 1200 px JPEG/WebP is typically under 250 KB; a Latin WOFF2 font file is 20–60 KB; a
 * 300 KB script (~100 KB gzipped) is seconds of parsing on a mid-range phone.
 */
const LARGE_BYTES: Record<AssetSample["type"], number | null> = {
  script: 300 * 1024,
  style: 200 * 1024,
  image: 300 * 1024,
  font: 100 * 1024,
  other: null,
};
const FAIL_FACTOR = 2;

/** Assets that were fetched successfully and have a size. */
function fetched(assets: readonly AssetSample[]): (AssetSample & { bytes: number })[] {
  return assets.filter(
    (asset): asset is AssetSample & { bytes: number } =>
      asset.status !== null && asset.status >= 200 && asset.status < 300 && asset.bytes !== null,
  );
}

/** Text formats that compress well; fonts (WOFF/WOFF2) and raster images are compressed already. */
function isText(asset: AssetSample): boolean {
  if (asset.type === "script" || asset.type === "style") return true;
  try {
    return asset.type === "image" && new URL(asset.url).pathname.toLowerCase().endsWith(".svg");
  } catch {
    return false;
  }
}

/** Directives by which a server deliberately asks not to cache; Lighthouse leaves such assets out. */
const NO_CACHE = /\b(?:no-store|no-cache|private|must-revalidate)\b|\bmax-age\s*=\s*0+(?!\d)/i;

/**
 * How long a browser may keep the asset: max-age if present; s-maxage alone is for shared
 * caches only, so then nothing; otherwise the facts' value (from Expires).
 */
function browserMaxAge(asset: AssetSample): number {
  const cacheControl = asset.cache_control ?? "";
  const maxAge = /\bmax-age\s*=\s*(\d+)/i.exec(cacheControl)?.[1]; // "s-maxage" never matches "max-age"
  if (maxAge !== undefined) return Number(maxAge);
  if (/\bs-maxage\b/i.test(cacheControl)) return 0;
  return asset.max_age ?? 0;
}

const days = (seconds: number) =>
  seconds >= 86_400 ? count(Math.floor(seconds / 86_400), "day") : seconds > 0 ? `${seconds} s` : "none";

export const auditAssets: Audit = ({ performance }) => {
  const assets = fetched(performance.assets);
  const sampled = `${count(assets.length, "asset")} sampled`;
  const checks = [];

  // Compression of text assets.
  const text = assets.filter((asset) => isText(asset) && asset.bytes >= COMPRESSION_MIN_BYTES);
  const plain = text.filter((asset) => asset.encoding === null || asset.encoding.toLowerCase() === "identity");
  if (text.length === 0) {
    checks.push(
      makeCheck(
        "performance.asset_compression",
        "skip",
        `No script, stylesheet or SVG of ${size(COMPRESSION_MIN_BYTES)} or more among the ${sampled}.`,
      ),
    );
  } else if (plain.length === 0) {
    checks.push(
      makeCheck(
        "performance.asset_compression",
        "pass",
        `Every text asset checked (${count(text.length, "script, stylesheet or SVG", "scripts, stylesheets or SVGs")}) is compressed.`,
        text.map((asset) => `${asset.encoding}: ${asset.url}`),
      ),
    );
  } else {
    checks.push(
      makeCheck(
        "performance.asset_compression",
        "fail",
        `${plain.length} of ${count(text.length, "text asset")} checked are sent uncompressed (${size(plain.reduce((sum, asset) => sum + asset.bytes, 0))} in all) although the request accepted gzip and Brotli.`,
        plain.map((asset) => `${asset.url} (${size(asset.bytes)})`),
      ),
    );
  }

  // Browser caching.
  const deliberate = assets.filter((asset) => NO_CACHE.test(asset.cache_control ?? ""));
  const cacheable = assets.filter((asset) => !deliberate.includes(asset));
  const short = cacheable.filter((asset) => browserMaxAge(asset) < LONG_CACHE_SECONDS);
  const noted =
    deliberate.length > 0
      ? ` ${count(deliberate.length, "asset")} explicitly marked not to be cached (no-cache, no-store, private) ${deliberate.length === 1 ? "was" : "were"} left out.`
      : "";
  if (cacheable.length === 0) {
    checks.push(makeCheck("performance.asset_caching", "skip", `No cacheable asset among the ${sampled}.${noted}`));
  } else if (short.length === 0) {
    checks.push(
      makeCheck(
        "performance.asset_caching",
        "pass",
        `Every asset checked (${count(cacheable.length, "asset")}) may be cached for 30 days or more.${noted}`,
        cacheable.map((asset) => `${days(browserMaxAge(asset))}: ${asset.url}`),
      ),
    );
  } else {
    checks.push(
      makeCheck(
        "performance.asset_caching",
        short.length === cacheable.length ? "fail" : "warn",
        `${short.length} of ${count(cacheable.length, "asset")} checked may be cached for less than 30 days (or carry no caching header), so returning visitors download or revalidate them again.${noted}`,
        short.map((asset) => `${asset.cache_control ?? "no cache-control"}: ${asset.url}`),
      ),
    );
  }

  // Oversized files.
  const large = assets
    .flatMap((asset) => {
      const limit = LARGE_BYTES[asset.type];
      return limit !== null && asset.bytes > limit ? [{ asset, limit }] : [];
    })
    .sort((a, b) => b.asset.bytes - a.asset.bytes);
  const sized = assets.filter((asset) => LARGE_BYTES[asset.type] !== null);
  if (sized.length === 0) {
    checks.push(makeCheck("performance.large_assets", "skip", "No asset could be sized."));
  } else if (large.length === 0) {
    checks.push(
      makeCheck(
        "performance.large_assets",
        "pass",
        `None of the ${count(sized.length, "asset")} sampled is oversized (largest: ${size(Math.max(...sized.map((asset) => asset.bytes)))}).`,
      ),
    );
  } else {
    const veryLarge = large.some(({ asset, limit }) => asset.bytes >= limit * FAIL_FACTOR);
    checks.push(
      makeCheck(
        "performance.large_assets",
        veryLarge ? "fail" : "warn",
        `${large.length} of the ${count(sized.length, "asset")} sampled ${large.length === 1 ? "is" : "are"} oversized for ${large.length === 1 ? "its" : "their"} type.`,
        large.map(({ asset, limit }) => `${asset.type} ${size(asset.bytes)} (limit ${size(limit)}): ${asset.url}`),
      ),
    );
  }
  return checks;
};
