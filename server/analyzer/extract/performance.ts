/** The performance facts of a report: timings, weights, caching, blocking resources, images. */
import type { AssetSample, PerformanceInfo, ResourceCount } from "../../../shared/report.ts";
import { resolveUrl } from "../artifacts.ts";
import type { Detected } from "../facts.ts";
import { pageOf } from "../parse/page.ts";
import { pageResources } from "../parse/urls.ts";
import { siteUrl } from "../untrusted-text.ts";
import { maxAgeOf } from "./cache-control.ts";
import { extractLab } from "./lab.ts";

/**
 * Script types a browser executes as classic scripts (HTML's JavaScript MIME types; no type
 * = JavaScript). Any other type is inert data or a deferred-loader placeholder — WP Rocket's
 * `rocketlazyloadscript`, LiteSpeed's `litespeed/javascript` — and blocks nothing.
 */
const CLASSIC_JS_TYPE =
  /^(?:(?:text|application)\/(?:x-)?(?:javascript|ecmascript)|text\/(?:javascript1\.[0-5]|jscript|livescript)|)$/i;

export function extractPerformance({ artifacts, hosting, paths, wordpress }: Detected): PerformanceInfo {
  const { homepage } = artifacts;
  const page = pageOf(homepage);
  const site = new URL(homepage.url);
  const resources = pageResources(page, homepage.body, homepage.url);

  const assets: AssetSample[] = artifacts.assets.map((asset) => {
    return {
      url: siteUrl(asset.url),
      type: asset.type,
      status: asset.status,
      bytes: asset.status !== null && asset.status < 400 ? asset.bytes : null,
      encoding: asset.headers["content-encoding"] ?? null,
      cache_control: asset.headers["cache-control"] ?? null,
      max_age: maxAgeOf(asset.headers),
    };
  });
  const sizeOf = new Map(
    assets.filter((asset) => asset.bytes !== null).map((asset) => [asset.url, asset.bytes as number]),
  );
  const count = (kind: string): ResourceCount => {
    const list = resources.filter(
      (resource) => resource.kind === kind && (resource.from === "attribute" || kind === "font"),
    );
    const sized = list.filter((resource) => sizeOf.has(resource.url.toString()));
    return {
      count: list.length,
      bytes: sized.reduce((sum, resource) => sum + (sizeOf.get(resource.url.toString()) ?? 0), 0),
      sized: sized.length,
    };
  };

  const renderBlocking: string[] = [];
  for (const script of page.scripts) {
    if (!script.inHead || !script.src) continue;
    const { attrs } = script;
    const type = (attrs.type ?? "").split(";")[0]?.trim() ?? "";
    if ("async" in attrs || "defer" in attrs || !CLASSIC_JS_TYPE.test(type)) continue;
    // resolveUrl, not new URL: an unparsable src on a hostile page must not throw.
    const src = resolveUrl(script.src, homepage.url);
    if (src) renderBlocking.push(siteUrl(src.toString()));
  }
  for (const link of page.links) {
    if (!link.inHead || !(link.attrs.rel ?? "").toLowerCase().split(/\s+/).includes("stylesheet") || !link.attrs.href)
      continue;
    const media = (link.attrs.media ?? "all").toLowerCase();
    if (media !== "all" && media !== "screen" && media !== "") continue;
    try {
      renderBlocking.push(siteUrl(new URL(link.attrs.href, homepage.url).toString()));
    } catch {
      // unusable href
    }
  }

  const ownHost = site.hostname.replace(/^www\./, "");
  const thirdParty = new Set<string>();
  // Only what the page loads (tags), not every URL it mentions (og:image, links to files).
  for (const resource of resources.filter((item) => item.from === "attribute")) {
    const host = resource.url.hostname.replace(/^www\./, "");
    if (host !== ownHost && thirdParty.size < 50) thirdParty.add(host);
  }

  const images = page.images.filter((image) => !image.inHead);
  const lazy = images.filter(
    (image) =>
      (image.attrs.loading ?? "").toLowerCase() === "lazy" ||
      "data-src" in image.attrs ||
      /\blazy/i.test(image.attrs.class ?? ""),
  ).length;
  const age = Number(homepage.headers.age);
  return {
    ttfb_ms: homepage.ttfb_ms,
    ttfb_samples_ms: homepage.ttfb_samples_ms,
    html_download_ms: homepage.download_ms,
    html_bytes: homepage.body_bytes,
    html_transfer_bytes: homepage.transfer_bytes,
    compression: homepage.encoding,
    http_version: homepage.http_version,
    caching: {
      cache_control: homepage.headers["cache-control"] ?? null,
      expires: homepage.headers.expires ?? null,
      etag: homepage.headers.etag !== undefined,
      last_modified: homepage.headers["last-modified"] !== undefined,
      age: homepage.headers.age !== undefined && Number.isFinite(age) ? age : null,
      page_cache: hosting.page_cache,
      page_cache_hit: hosting.page_cache_hit,
    },
    resources: { scripts: count("script"), styles: count("style"), images: count("image"), fonts: count("font") },
    render_blocking: [...new Set(renderBlocking)].slice(0, 100),
    third_party_hosts: [...thirdParty].sort(),
    images: {
      total: images.length,
      lazy,
      without_dimensions: images.filter((image) => !image.attrs.width || !image.attrs.height).length,
      without_alt: images.filter((image) => !("alt" in image.attrs)).length,
    },
    assets,
    requests: artifacts.requests.map((row) => ({ ...row, url: siteUrl(row.url) })),
    ...(artifacts.lab
      ? { lab: extractLab(artifacts.lab, wordpress.detected ? paths : null, new URL(artifacts.requested_url).origin) }
      : {}),
  };
}
