/**
 * Gather: the network stage. The homepage first — it decides whether there is a report at
 * all and where WordPress lives — then one wave: every probe that the homepage alone
 * determines, at once, through the client's per-site limit (all of them over HTTP/2, six at
 * a time over HTTP/1.1). The heads of chains go first in that wave; what can be guessed
 * from the homepage is asked speculatively (REST users beside the REST root); the few
 * probes that truly depend on another answer (oEmbed of the feed's newest item, the parent
 * theme a child's style.css names, sitemaps robots.txt lists, readmes of plugins the REST
 * API or a listing names, GET after HEAD) are started the moment that answer is in, and go
 * before whatever of the wave still waits. A failed probe becomes an entry in errors[],
 * never a failed analysis.
 */
import type { ReportError } from "../../../shared/report.ts";
import type { Artifacts, AssetArtifact, HomepageArtifact, HttpArtifact } from "../artifacts.ts";
import { resolveUrl } from "../artifacts.ts";
import { pluginSlugsFromNamespaces, pluginSlugsFromPage } from "../detect/plugins.ts";
import { parseThemeHeader } from "../detect/readme.ts";
import { isRestRoot, restNamespaces } from "../detect/rest.ts";
import { detectSitePaths, isComponentSlug, type SitePaths } from "../detect/site-paths.ts";
import { themeSlugsFromPage } from "../detect/theme.ts";
import { isChallengePage } from "../detect/waf.ts";
import { SiteUnreachableError, TargetNotAllowedError } from "../errors.ts";
import { FetchFailure, type FetchResult, type SafeClient } from "../fetch/safe-client.ts";
import { linksWithRel, pageOf } from "../parse/page.ts";
import { pageResources } from "../parse/urls.ts";
import { headersToRecord, toArtifact } from "./decode.ts";
import { probeListings } from "./listings.ts";
import {
  EXPOSED_FILES,
  exposedFileProbe,
  MAX_ASSET_SAMPLE,
  MAX_EXTRA_SITEMAPS,
  MAX_PLUGIN_READMES,
  MAX_THEME_STYLES,
  PROBE_MAX_BYTES,
  type ProbeKey,
  type ProbeSpec,
  probeAt,
  probeOf,
} from "./probes.ts";

const TTFB_SAMPLES = 3;
/** HEAD answers after which the body is still needed: found (200/206) or HEAD not supported. */
const HEAD_NEEDS_GET = new Set([200, 206, 400, 405, 501]);
/** Assets larger than this are reported at this size (and the page is heavy anyway). */
const ASSET_MAX_BYTES = 2 * 1024 * 1024;

function failureEntry(stage: string, url: string, error: unknown): ReportError {
  if (error instanceof FetchFailure) return { stage, url, kind: error.kind, message: error.message };
  return { stage, url, kind: "error", message: "unexpected failure" };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const round = (ms: number) => Math.round(ms * 10) / 10;

/** The site's main feed: the first advertised RSS/Atom link on the site, else <base>feed/. */
export function feedUrl(homepage: HttpArtifact, installBase: string): string {
  const base = new URL(homepage.url);
  for (const link of linksWithRel(pageOf(homepage), "alternate")) {
    const type = (link.attrs.type ?? "").toLowerCase();
    if (type !== "application/rss+xml" && type !== "application/atom+xml") continue;
    const href = resolveUrl(link.attrs.href, homepage.url);
    // Only the site's own origin is probed; comment feeds carry nothing we need.
    if (href && href.origin === base.origin && !/comments/i.test(href.pathname)) return href.toString();
  }
  return new URL("feed/", installBase).toString();
}

/** The REST root WordPress serves with pretty permalinks: <install>wp-json/. */
const prettyRestRoot = (paths: SitePaths) => new URL("wp-json/", paths.installBase).toString();

/** The probes of the wave that need nothing but the site's paths, in the order they are asked. */
const SITE_PROBES = ["readme_html", "login", "author_1", "users_sitemap", "uploads"] as const;

type ProbeOutcome = { artifact: HttpArtifact } | { error: ReportError };

class Probes {
  /**
   * Set once the first wave is queued. Every request asked after that was waiting on an
   * answer — it is a chain's next link — so it goes before what is still queued.
   */
  firstWaveQueued = false;

  constructor(
    private readonly client: SafeClient,
    private readonly artifacts: Artifacts,
    /**
     * HEAD-first (ProbeSpec.headFirst) only over HTTP/2. Over HTTP/1.1 undici closes the
     * connection after every HEAD (a server might send a body anyway), so fifteen HEADs
     * would cost fifteen new connections — each one or two more round trips and a
     * handshake for the site — where a GET of a capped 404 reuses the open ones.
     */
    private readonly headFirstAllowed: boolean,
  ) {}

  /** Probes under way by key: a second asker of the same key (a readme both the REST API and a listing name) waits for the first. */
  private readonly inFlight = new Map<ProbeKey, Promise<HttpArtifact | undefined>>();

  async run(spec: ProbeSpec): Promise<HttpArtifact | undefined> {
    if (spec.key in this.artifacts.probes) return this.artifacts.probes[spec.key];
    const pending = this.inFlight.get(spec.key);
    if (pending) return pending;
    const asked = this.attempt(spec).then((outcome) => this.keep(spec, outcome));
    this.inFlight.set(spec.key, asked);
    try {
      return await asked;
    } finally {
      this.inFlight.delete(spec.key);
    }
  }

  /** Asks without recording: for speculative probes, kept only if the guess was right. */
  async attempt(spec: ProbeSpec): Promise<ProbeOutcome> {
    try {
      const options = {
        headers: spec.headers,
        body: spec.body,
        follow: spec.follow ?? true,
        maxBodyBytes: spec.maxBytes ?? PROBE_MAX_BYTES,
        idempotent: spec.idempotent,
      };
      if (spec.headFirst && this.headFirstAllowed) {
        const head = await this.client.fetch(spec.url, { ...options, method: "HEAD", urgent: this.firstWaveQueued });
        if (!HEAD_NEEDS_GET.has(head.status)) return { artifact: toArtifact(head) };
      }
      const result = await this.client.fetch(spec.url, {
        ...options,
        method: spec.method ?? "GET",
        urgent: this.firstWaveQueued,
      });
      return { artifact: toArtifact(result) };
    } catch (error) {
      return { error: failureEntry(spec.key, spec.url, error) };
    }
  }

  keep(spec: ProbeSpec, outcome: ProbeOutcome): HttpArtifact | undefined {
    if ("error" in outcome) {
      this.artifacts.errors.push(outcome.error);
      return undefined;
    }
    this.artifacts.probes[spec.key] = outcome.artifact;
    return outcome.artifact;
  }
}

async function fetchHomepage(client: SafeClient, url: string): Promise<HomepageArtifact> {
  let result: FetchResult;
  try {
    result = await client.fetch(url);
  } catch (error) {
    if (error instanceof FetchFailure) {
      if (error.kind === "blocked") throw new TargetNotAllowedError(error.message);
      throw new SiteUnreachableError(error.kind, `The site did not answer: ${error.message}.`);
    }
    throw error;
  }
  return {
    ...toArtifact(result),
    redirects: result.redirects,
    ttfb_ms: round(result.ttfbMs),
    ttfb_samples_ms: [round(result.ttfbMs)],
    download_ms: round(result.totalMs),
    transfer_bytes: result.headers.has("content-length") ? Number(result.headers.get("content-length")) : null,
    body_bytes: result.body.byteLength,
    encoding: result.encoding,
    http_version: result.httpVersion,
  };
}

export async function gather(url: string, client: SafeClient): Promise<Artifacts> {
  const homepage = await fetchHomepage(client, url);
  const artifacts: Artifacts = {
    requested_url: url,
    homepage,
    probes: {},
    assets: [],
    requests: client.timings,
    errors: [],
  };
  if (homepage.truncated) {
    artifacts.errors.push({
      stage: "homepage",
      url: homepage.url,
      kind: "too_large",
      message: "the homepage was cut at the size limit",
    });
  }
  // A bot challenge instead of the site: probing further would only collect more challenges.
  if (isChallengePage(homepage)) return artifacts;

  const paths = detectSitePaths(homepage);
  const probes = new Probes(client, artifacts, homepage.http_version === "2");
  const tasks: Promise<unknown>[] = [];
  const later = (task: Promise<unknown>) => tasks.push(task);

  // Requests leave in the order asked (it matters over HTTP/1.1): heads of chains first, so
  // their next links can start while the rest of the wave runs; static assets last.
  later(probeRest(probes, paths, artifacts, homepage));
  later(probeFeedAndOembed(probes, paths, homepage));
  later(probeRobotsAndSitemaps(probes, paths));
  later(probeThemes(probes, paths, homepage));
  later(probeXmlRpc(probes, paths));
  later(sampleTtfb(client, homepage));
  const pluginReadmes = new Set<string>();
  for (const slug of pluginSlugsFromPage(homepage, paths).keys()) {
    if (pluginReadmes.size >= MAX_PLUGIN_READMES) break;
    pluginReadmes.add(slug);
    later(probes.run(probeOf("plugin_readme", paths, slug)));
  }
  later(probes.run(probeOf("not_found", paths, crypto.randomUUID().slice(0, 8))));
  for (const name of SITE_PROBES) later(probes.run(probeOf(name, paths)));
  // Open listings of plugins/ and themes/ name installed components (then readmes of listed plugins).
  later(probeListings((spec) => probes.run(spec), paths, pluginReadmes));
  for (const file of EXPOSED_FILES) later(probes.run(exposedFileProbe(file, paths)));
  if (new URL(homepage.url).protocol === "https:") {
    const plain = new URL(homepage.url);
    plain.protocol = "http:";
    plain.port = "";
    later(probes.run(probeAt("http_redirect", plain.toString())));
  }
  later(sampleAssets(client, homepage, paths, artifacts));
  probes.firstWaveQueued = true;
  await Promise.all(tasks);
  return artifacts;
}

/**
 * Two more homepage requests timed to the first byte, together (in series they would add a
 * round trip to the report); TTFB is the median of the three.
 */
async function sampleTtfb(client: SafeClient, homepage: HomepageArtifact) {
  const samples = await Promise.allSettled(
    Array.from({ length: TTFB_SAMPLES - 1 }, () => client.fetch(homepage.url, { discardBody: true, follow: false })),
  );
  // A failed sample is left out: one sample is still a measurement.
  for (const sample of samples)
    if (sample.status === "fulfilled") homepage.ttfb_samples_ms.push(round(sample.value.ttfbMs));
  homepage.ttfb_ms = round(median(homepage.ttfb_samples_ms));
}

/**
 * REST root (advertised, then /wp-json/, then ?rest_route=/), its users, and readmes of
 * plugins its namespaces name. The users are asked together with the first candidate root,
 * whose URL they derive from; they are kept only if that candidate is the root.
 */
async function probeRest(probes: Probes, paths: SitePaths, artifacts: Artifacts, homepage: HttpArtifact) {
  const candidates = [
    ...new Set(
      [paths.restRoot, prettyRestRoot(paths), new URL("?rest_route=/", paths.installBase).toString()].filter(
        (c): c is string => !!c,
      ),
    ),
  ];
  const usersOf = (root: string) => probeOf("rest_users", { ...paths, restRoot: root });
  const first = candidates[0] as string;
  const speculativeUsers = probes.attempt(usersOf(first));
  let root: string | undefined;
  for (const candidate of candidates) {
    delete artifacts.probes.rest_root;
    const answer = await probes.run(probeAt("rest_root", candidate));
    if (isRestRoot(answer)) {
      root = candidate;
      break;
    }
  }
  if (!root) {
    await speculativeUsers; // asked for nothing: not kept
    return;
  }
  const followUps: Promise<unknown>[] = [
    root === first
      ? speculativeUsers.then((outcome) => probes.keep(usersOf(root), outcome))
      : probes.run(usersOf(root)),
  ];
  const onPage = pluginSlugsFromPage(homepage, paths);
  for (const slug of pluginSlugsFromNamespaces(restNamespaces(artifacts))) {
    if (onPage.has(slug)) continue;
    followUps.push(probes.run(probeOf("plugin_readme", paths, slug)));
  }
  await Promise.all(followUps);
}

/** The feed, then oEmbed of its newest item (oEmbed names the item's author). */
async function probeFeedAndOembed(probes: Probes, paths: SitePaths, homepage: HttpArtifact) {
  const feed = await probes.run(probeAt("feed", feedUrl(homepage, paths.installBase)));
  if (feed?.status !== 200) return;
  // The first link after the first <item>/<entry>. Found in two steps, not with `<item>[\s\S]*?<link>`:
  // that pattern rescans the rest of the feed from every <item>, so a 512 KB feed of bare
  // "<item>" tags blocked the event loop for seconds (test/hostile).
  const after = (tag: RegExp) => {
    const start = feed.body.search(tag);
    return start < 0 ? "" : feed.body.slice(start);
  };
  const item =
    /<link>\s*([^<\s]+)\s*<\/link>/i.exec(after(/<item>/i))?.[1] ??
    /<link[^>]{0,1000}href="([^"]{1,2048})"/i.exec(after(/<entry>/i))?.[1];
  const itemUrl = resolveUrl(item, feed.url);
  if (!itemUrl || itemUrl.origin !== paths.origin) return;
  const restRoot = paths.restRoot ?? prettyRestRoot(paths);
  await probes.run(probeOf("oembed", { ...paths, restRoot }, encodeURIComponent(itemUrl.toString())));
}

/**
 * XML-RPC: system.listMethods answers everything at once (enabled, multicall, pingback).
 * Only when it does not answer as XML-RPC (a firewall blocking POSTs, say) does a GET ask
 * whether the endpoint is there at all.
 */
async function probeXmlRpc(probes: Probes, paths: SitePaths) {
  const methods = await probes.run(probeOf("xmlrpc_methods", paths));
  if (methods?.status === 200 && /<methodResponse>/i.test(methods.body)) return;
  await probes.run(probeOf("xmlrpc_get", paths));
}

/**
 * robots.txt and WordPress core's sitemap first (together), then the sitemaps robots.txt
 * lists; the conventional names of SEO plugins (Yoast/Rank Math's sitemap_index.xml,
 * Jetpack/AIOSEO/SEO Framework's sitemap.xml) are only guessed when neither found one.
 */
async function probeRobotsAndSitemaps(probes: Probes, paths: SitePaths) {
  const sitemap = (url: string) => probes.run(probeAt("sitemap", url));
  const isSitemap = (answer: HttpArtifact | undefined) =>
    answer?.status === 200 && /<(urlset|sitemapindex)\b/i.test(answer.body.slice(0, 5_000));
  const core = new URL("wp-sitemap.xml", paths.installBase).toString();
  const fetched = new Set([core]);
  const [coreAnswer, robots] = await Promise.all([sitemap(core), probes.run(probeOf("robots", paths))]);
  const listed: string[] = [];
  if (robots?.status === 200) {
    for (const match of robots.body.matchAll(/^[ \t]*sitemap:[ \t]*(\S+)/gim)) {
      const url = resolveUrl(match[1], robots.url);
      if (!url || url.origin !== paths.origin || fetched.has(url.toString()) || listed.length >= MAX_EXTRA_SITEMAPS)
        continue;
      fetched.add(url.toString());
      listed.push(url.toString());
    }
  }
  const answers = await Promise.all(listed.map(sitemap));
  if (isSitemap(coreAnswer) || answers.some(isSitemap)) return;
  const guesses = ["sitemap_index.xml", "sitemap.xml"].map((name) => new URL(name, paths.installBase).toString());
  await Promise.all(guesses.filter((url) => !fetched.has(url)).map(sitemap));
}

/** style.css of the themes the page uses, then of the parent a child theme names. */
async function probeThemes(probes: Probes, paths: SitePaths, homepage: HttpArtifact) {
  const slugs = [...themeSlugsFromPage(homepage, paths).keys()].slice(0, MAX_THEME_STYLES);
  const style = (slug: string) => probes.run(probeOf("theme_style", paths, slug));
  const answers = await Promise.all(slugs.map(style));
  const parents = new Set<string>();
  for (const answer of answers) {
    const template = answer?.status === 200 ? parseThemeHeader(answer.body)?.template : undefined;
    if (template && isComponentSlug(template) && !slugs.includes(template)) parents.add(template);
  }
  await Promise.all([...parents].map(style));
}

/** A bounded sample of same-site assets: sizes, compression, caching. */
async function sampleAssets(client: SafeClient, homepage: HttpArtifact, paths: SitePaths, artifacts: Artifacts) {
  const resources = pageResources(pageOf(homepage), homepage.body, homepage.url).filter(
    (resource) => resource.url.origin === paths.origin && resource.kind !== "other" && resource.from === "attribute",
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
      } catch (error) {
        artifacts.errors.push(failureEntry("asset", asset.url, error));
      }
      artifacts.assets.push(asset);
    }),
  );
  artifacts.assets.sort((a, b) => a.url.localeCompare(b.url));
}
