/**
 * The probes that wait on another answer, one chain each: a chain's head goes out with the
 * first wave, and its next links start the moment the answer they need is in (the probe
 * runner then puts them before what of the wave still waits). Every request is a record of
 * the probe catalogue (probe-kinds.ts); what is worked out here is only the URL of the
 * `found` kinds and whether to go on.
 */
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { resolveUrl } from "../artifacts.ts";
import { pluginSlugsFromNamespaces, pluginSlugsFromPage } from "../detect/plugins.ts";
import { parseThemeHeader } from "../detect/readme.ts";
import { isRestRoot, restIndexRequest, restNamespaces } from "../detect/rest.ts";
import { componentBase, isComponentSlug, type SitePaths } from "../detect/site-paths.ts";
import { themeSlugsFromPage } from "../detect/theme.ts";
import { linksWithRel, pageOf } from "../parse/page.ts";
import type { Probes } from "./probe-runner.ts";
import { MAX_EXTRA_SITEMAPS, MAX_THEME_STYLES, probeAt, probeOf } from "./probes.ts";

/** The site's main feed: the first advertised RSS/Atom link on the site, else <home>feed/. */
export function feedUrl(homepage: HttpArtifact, homeBase: string): string {
  const base = new URL(homepage.url);
  for (const link of linksWithRel(pageOf(homepage), "alternate")) {
    const type = (link.attrs.type ?? "").toLowerCase();
    if (type !== "application/rss+xml" && type !== "application/atom+xml") continue;
    const href = resolveUrl(link.attrs.href, homepage.url);
    // Only the site's own origin is probed; comment feeds carry nothing we need.
    if (href && href.origin === base.origin && !/comments/i.test(href.pathname)) return href.toString();
  }
  return new URL("feed/", homeBase).toString();
}

/** The REST root WordPress serves with pretty permalinks: <home>wp-json/. */
const prettyRestRoot = (paths: SitePaths) => new URL("wp-json/", paths.homeBase).toString();

/**
 * REST root (advertised, then /wp-json/, then ?rest_route=/), its users, and readmes of
 * plugins its namespaces name. The users are asked together with the first candidate root,
 * whose URL they derive from; they are kept only if that candidate is the root. `root`
 * settles once the root is known (or none answered), `done` when the follow-ups are in too.
 */
export function probeRest(
  probes: Probes,
  paths: SitePaths,
  artifacts: Artifacts,
  homepage: HttpArtifact,
  /** Asks a plugin's readme.txt, then its other version files if need be (version-files.ts). */
  followFiles: (slug: string, readmeAsked: true) => Promise<unknown>,
): { root: Promise<string | undefined>; done: Promise<unknown> } {
  const candidates = [
    ...new Set(
      [paths.restRoot, prettyRestRoot(paths), new URL("?rest_route=/", paths.homeBase).toString()].filter(
        (c): c is string => !!c,
      ),
    ),
  ];
  const usersOf = (root: string) => probeOf("rest_users", { ...paths, restRoot: root });
  const first = candidates[0] as string;
  const speculativeUsers = probes.attempt(usersOf(first));
  const root = (async () => {
    for (const candidate of candidates) {
      delete artifacts.probes.rest_root;
      const answer = await probes.run(probeAt("rest_root", restIndexRequest(candidate)));
      if (isRestRoot(answer)) return candidate;
    }
    return undefined;
  })();
  const done = root.then(async (found) => {
    if (!found) {
      await speculativeUsers; // asked for nothing: not kept
      return;
    }
    const followUps: Promise<unknown>[] = [
      found === first
        ? speculativeUsers.then((outcome) => probes.keep(usersOf(found), outcome))
        : probes.run(usersOf(found)),
    ];
    const onPage = pluginSlugsFromPage(homepage, paths);
    for (const slug of pluginSlugsFromNamespaces(restNamespaces(artifacts))) {
      if (onPage.has(slug)) continue;
      followUps.push(followFiles(slug, true));
    }
    await Promise.all(followUps);
  });
  return { root, done };
}

/** The feed, then oEmbed of its newest item (oEmbed names the item's author). */
export async function probeFeedAndOembed(probes: Probes, paths: SitePaths, homepage: HttpArtifact) {
  const feed = await probes.run(probeAt("feed", feedUrl(homepage, paths.homeBase)));
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
  const core = new URL("wp-sitemap.xml", paths.homeBase).toString();
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
  const guesses = ["sitemap_index.xml", "sitemap.xml"].map((name) => new URL(name, paths.homeBase).toString());
  await Promise.all(guesses.filter((url) => !fetched.has(url)).map(sitemap));
}

/**
 * style.css of the themes the page uses — where their files came from (the site's content
 * directory, or the asset origin serving them) — then of the parent a child theme names
 * (beside the child).
 */
export async function probeThemes(probes: Probes, paths: SitePaths, homepage: HttpArtifact) {
  const themes = [...themeSlugsFromPage(homepage, paths)].slice(0, MAX_THEME_STYLES);
  const slugs = themes.map(([slug]) => slug);
  const style = (slug: string, contentBase: string) =>
    probes.run(probeOf("theme_style", { ...paths, contentBase }, slug));
  const answers = await Promise.all(themes.map(([slug, urls]) => style(slug, componentBase(paths, urls))));
  const parents = new Map<string, string>();
  for (const [index, answer] of answers.entries()) {
    const template = answer?.status === 200 ? parseThemeHeader(answer.body)?.template : undefined;
    const [, urls = []] = themes[index] ?? [];
    if (template && isComponentSlug(template) && !slugs.includes(template))
      parents.set(template, componentBase(paths, urls));
  }
  await Promise.all([...parents].map(([slug, contentBase]) => style(slug, contentBase)));
}
