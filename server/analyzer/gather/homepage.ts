/**
 * The homepage and what is measured on it: the page itself (it decides whether there is a
 * report at all), its time to first byte (sampled again when slow), and a bounded sample of
 * the same-site assets it loads. These are not probes: they are stored in
 * `artifacts.homepage` and `artifacts.assets`.
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

/**
 * The time to first byte is the homepage request's own, timed from the moment it went on the
 * wire (fetch/send-time.ts), while nothing else of the analysis loads the site. A first byte
 * slower than this is asked twice more once the probes are done, one request after the other,
 * and the median is the fact: from there on a render's jitter (10–20 %) is of the size of the
 * checks' bounds (800 and 1,800 ms) and of what the gate calls a regression (100 ms and 20 %).
 * Faster, one unloaded sample is the measurement: the gate's 100 ms is several times a fast
 * render's jitter, and each sample is a full render of the site's homepage.
 */
export const TTFB_RESAMPLE_MS = 500;
/**
 * A first byte this slow stands alone too: it is far past the checks' poor bound (1,800 ms),
 * and two more would lengthen the report by twice as long, out of the analysis's deadline.
 */
export const TTFB_RESAMPLE_MAX_MS = 2_500;
const TTFB_SAMPLES = 3;
/** Assets larger than this are reported at this size (and the page is heavy anyway). */
const ASSET_MAX_BYTES = 2 * 1024 * 1024;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
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

/**
 * Two more samples of a slow first byte (TTFB_RESAMPLE_MS up to TTFB_RESAMPLE_MAX_MS), one after the other, asked when
 * the analysis's other requests are done: samples taken beside them would time the site
 * busy with our own probes (they measured 3× the homepage's own TTFB on the fixture).
 * TTFB is then the median of the three. A failed sample is left out: one is a measurement.
 */
export async function resampleSlowTtfb(client: SafeClient, homepage: HomepageArtifact): Promise<void> {
  const first = homepage.ttfb_samples_ms[0] ?? 0;
  if (first < TTFB_RESAMPLE_MS || first >= TTFB_RESAMPLE_MAX_MS) return;
  while (homepage.ttfb_samples_ms.length < TTFB_SAMPLES) {
    try {
      const sample = await client.fetch(homepage.url, { discardBody: true, follow: false });
      homepage.ttfb_samples_ms.push(round(sample.sentTtfbMs));
    } catch {
      break;
    }
  }
  homepage.ttfb_ms = round(median(homepage.ttfb_samples_ms));
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
