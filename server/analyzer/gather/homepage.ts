/**
 * The homepage and what is measured on it: the page itself (it decides whether there is a
 * report at all), its time to first byte, and a bounded sample of the same-site assets it
 * loads. These are not probes: they are stored in `artifacts.homepage` and `artifacts.assets`.
 */
import type { Artifacts, AssetArtifact, HomepageArtifact, HttpArtifact } from "../artifacts.ts";
import type { SitePaths } from "../detect/site-paths.ts";
import { SiteUnreachableError, TargetNotAllowedError } from "../errors.ts";
import { FetchFailure, type FetchResult, type SafeClient } from "../fetch/safe-client.ts";
import { pageOf } from "../parse/page.ts";
import { pageResources } from "../parse/urls.ts";
import { headersToRecord, toArtifact } from "./decode.ts";
import { failureEntry } from "./probe-runner.ts";
import { MAX_ASSET_SAMPLE } from "./probes.ts";

/** Assets larger than this are reported at this size (and the page is heavy anyway). */
const ASSET_MAX_BYTES = 2 * 1024 * 1024;

const round = (ms: number) => Math.round(ms * 10) / 10;

/** How a failed quick check's message begins (the worker tells why the check was made). */
export const QUICK_CHECK_FAILED = "The site did not answer a quick check";

/**
 * The quick reachability check of a site that gave no answer to its last analyses
 * (server/reports/dead-targets.ts): one request for the homepage that must connect and bring
 * its first byte within `ms`; its body is not read. A site that still does not answer ends the
 * analysis at once, instead of holding its target's slots until the full deadlines.
 */
export async function quickCheck(client: SafeClient, url: string, ms: number): Promise<void> {
  try {
    await client.fetch(url, { timeoutMs: ms, discardBody: true, follow: false });
  } catch (error) {
    if (!(error instanceof FetchFailure)) throw error;
    if (error.kind === "blocked") throw new TargetNotAllowedError(error.message);
    throw new SiteUnreachableError(
      error.kind,
      `${QUICK_CHECK_FAILED} (a connection and the first byte within ${ms / 1000} s): ${error.message}.`,
    );
  }
}

/**
 * The homepage, and its time to first byte: its own request's, timed from the moment the
 * request went on the wire (fetch/send-time.ts), while nothing else of the analysis loads
 * the site. One sample: more taken beside the probes would time the site busy with our own
 * requests (the two that were measured 3× the homepage's own TTFB on the fixture), and more
 * taken after them would lengthen every report of a slow site by as many first bytes
 * (docs/decisions.md, "Third round").
 */
export async function fetchHomepage(client: SafeClient, url: string): Promise<HomepageArtifact> {
  let result: FetchResult;
  try {
    result = await client.fetch(url);
  } catch (error) {
    if (error instanceof FetchFailure) {
      if (error.kind === "blocked") throw new TargetNotAllowedError(error.message);
      if (error.kind === "tls" && error.message.startsWith("its TLS certificate")) {
        throw new SiteUnreachableError(
          error.kind,
          `The site could not be analyzed: ${error.message}. For a staging site with a self-signed or internal-CA certificate, ask again with tls: "insecure" (the certificate is not verified) or tls_ca (the PEM of the CA to trust); the report then says so.`,
        );
      }
      throw new SiteUnreachableError(error.kind, `The site did not answer: ${error.message}.`);
    }
    throw error;
  }
  return {
    ...toArtifact(result),
    redirects: result.redirects,
    ttfb_ms: round(result.sentTtfbMs),
    ttfb_samples_ms: [round(result.sentTtfbMs)],
    download_ms: round(result.totalMs),
    transfer_bytes: result.headers.has("content-length") ? Number(result.headers.get("content-length")) : null,
    body_bytes: result.body.byteLength,
    encoding: result.encoding,
    http_version: result.httpVersion,
  };
}

/** Kept of a sampled script's or stylesheet's text: its opening comment, where a banner is. */
export const ASSET_HEAD_CHARS = 1_024;

/** The start of a script or stylesheet that opens with a comment (a banner), else nothing. */
function bannerHead(asset: AssetArtifact, body: Buffer): string | undefined {
  if (asset.status !== 200 || (asset.type !== "script" && asset.type !== "style")) return undefined;
  const text = new TextDecoder("utf-8").decode(body.subarray(0, ASSET_HEAD_CHARS * 4)).slice(0, ASSET_HEAD_CHARS);
  return /^\uFEFF?\s*(?:(["'])use strict\1;?\s*)?(?:\/\*|\/\/)/.test(text) ? text : undefined;
}

/**
 * A bounded sample of the site's own assets — on its origin, or on the asset origins serving
 * its plugin and theme files (a CDN, a pull zone: detect/site-paths.ts) — for sizes,
 * compression, caching, and the banners of scripts and stylesheets.
 */
export async function sampleAssets(client: SafeClient, homepage: HttpArtifact, paths: SitePaths, artifacts: Artifacts) {
  const origins = new Set([paths.origin, ...paths.assetBases.map((base) => new URL(base).origin)]);
  const resources = pageResources(pageOf(homepage), homepage.body, homepage.url).filter(
    (resource) => origins.has(resource.url.origin) && resource.kind !== "other" && resource.from === "attribute",
  );
  // Round-robin over kinds so the sample covers scripts, styles, images and fonts.
  const byKind = new Map<string, typeof resources>();
  for (const resource of resources) byKind.set(resource.kind, [...(byKind.get(resource.kind) ?? []), resource]);
  const sample: typeof resources = [];
  while (sample.length < MAX_ASSET_SAMPLE && [...byKind.values()].some((list) => list.length > 0)) {
    for (const list of byKind.values()) {
      const next = list.shift();
      if (next && sample.length < MAX_ASSET_SAMPLE) sample.push(next);
    }
  }
  await Promise.all(
    sample.map(async (resource) => {
      const asset: AssetArtifact = {
        url: resource.url.toString(),
        type: resource.kind,
        status: null,
        headers: {},
        bytes: null,
      };
      try {
        const result = await client.fetch(asset.url, {
          follow: true,
          maxBodyBytes: ASSET_MAX_BYTES,
          headers: { accept: "*/*" },
        });
        asset.status = result.status;
        asset.headers = headersToRecord(result.headers);
        asset.bytes = result.body.byteLength;
        const head = bannerHead(asset, result.body);
        if (head) asset.head = head;
      } catch (error) {
        artifacts.errors.push(failureEntry("asset", asset.url, error));
      }
      artifacts.assets.push(asset);
    }),
  );
  artifacts.assets.sort((a, b) => a.url.localeCompare(b.url));
}
