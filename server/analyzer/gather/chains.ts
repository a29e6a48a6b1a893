/**
 * The probes that wait on another answer, one chain each: a chain's head goes out with the
 * first wave, and its next links start the moment the answer they need is in (the probe
 * runner then puts them before what of the wave still waits). Every request is a record of
 * the probe catalogue (gather/probes.ts); what is worked out here is only the URL of the
 * `found` kinds and whether to go on.
 */
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { resolveUrl } from "../artifacts.ts";
import { pluginSlugsFromNamespaces, pluginSlugsFromPage } from "../detect/plugins.ts";
import { parseThemeHeader } from "../detect/readme.ts";
import { isRestRoot, restNamespaces } from "../detect/rest.ts";
import { isComponentSlug, type SitePaths } from "../detect/site-paths.ts";
import { themeSlugsFromPage } from "../detect/theme.ts";
import { linksWithRel, pageOf } from "../parse/page.ts";
import type { Probes } from "./probe-runner.ts";
import { MAX_EXTRA_SITEMAPS, MAX_THEME_STYLES, probeAt, probeOf } from "./probes.ts";

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

/**
 * REST root (advertised, then /wp-json/, then ?rest_route=/), its users, and readmes of
 * plugins its namespaces name. The users are asked together with the first candidate root,
 * whose URL they derive from; they are kept only if that candidate is the root.
 */
export async function probeRest(
  probes: Probes,
  paths: SitePaths,
  artifacts: Artifacts,
  homepage: HttpArtifact,
  /** Asks a plugin's readme.txt, then its other version files if need be (version-files.ts). */
  followFiles: (slug: string, readmeAsked: true) => Promise<unknown>,
) {
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
    followUps.push(followFiles(slug, true));
  }
  await Promise.all(followUps);
}

/** The feed, then oEmbed of its newest item (oEmbed names the item's author). */
export async function probeFeedAndOembed(probes: Probes, paths: SitePaths, homepage: HttpArtifact) {
  const feed = await probes.run(probeAt("feed", feedUrl(homepage, paths.installBase)));
  if (feed?.status !== 200) return;
  // The first link after the first <item>/<entry>. Found in two steps, not with `<item>[\s\S]*?<link>`:
  // that pattern rescans the rest of the feed from every <item>, so a 512 KB feed of bare
  // "<item>" tags blocked the event loop for seconds (test/analyzer/hostile).
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
export async function probeXmlRpc(probes: Probes, paths: SitePaths) {
  const methods = await probes.run(probeOf("xmlrpc_methods", paths));
  if (methods?.status === 200 && /<methodResponse>/i.test(methods.body)) return;
  await probes.run(probeOf("xmlrpc_get", paths));
}

/**
 * robots.txt and WordPress core's sitemap first (together), then the sitemaps robots.txt
 * lists; the conventional names of SEO plugins (Yoast/Rank Math's sitemap_index.xml,
 * Jetpack/AIOSEO/SEO Framework's sitemap.xml) are only guessed when neither found one.
 */
export async function probeRobotsAndSitemaps(probes: Probes, paths: SitePaths) {
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
export async function probeThemes(probes: Probes, paths: SitePaths, homepage: HttpArtifact) {
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
