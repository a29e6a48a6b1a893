/**
 * Gather: the network stage. The homepage first — it decides whether there is a report at
 * all and where WordPress lives — then one wave: every probe that the homepage alone
 * determines, at once, through the client's per-site limit (all of them over HTTP/2, six at
 * a time over HTTP/1.1). The heads of chains go first in that wave; what can be guessed
 * from the homepage is asked speculatively (REST users beside the REST root); the few
 * probes that truly depend on another answer (oEmbed of the feed's newest item, the parent
 * theme a child's style.css names, sitemaps robots.txt lists, readmes of plugins the REST
 * API or a listing names, the next version file of a plugin whose version is still unknown
 * (gather/version-files.ts), GET after HEAD) are started the moment that answer is in, and go
 * before whatever of the wave still waits (gather/chains.ts). A failed probe becomes an
 * entry in errors[], never a failed analysis.
 *
 * What each probe asks and reads is its record in the probe catalogue (probe-kinds.ts); this
 * file is the plan: which probes, in which order.
 */
import type { Artifacts } from "../artifacts.ts";
import type { NameLookup } from "../detect/finders/directory.ts";
import { askNames } from "../detect/finders/names-question.ts";
import { pluginSlugsFromPage } from "../detect/plugins.ts";
import { componentBase, detectSitePaths, type SitePaths } from "../detect/site-paths.ts";
import { isChallengePage } from "../detect/waf.ts";
import type { SafeClient } from "../fetch/safe-client.ts";
import { EXPOSED_FILES } from "../probe-kinds.ts";
import { askBlockControls } from "./block-controls.ts";
import { probeFeedAndOembed, probeRest, probeRobotsAndSitemaps, probeThemes, probeXmlRpc } from "./chains.ts";
import { fetchHomepage, quickCheck, sampleAssets } from "./homepage.ts";
import { probeListings } from "./listings.ts";
import { Probes } from "./probe-runner.ts";
import {
  exposedFileProbe,
  MAX_PASSIVE_FILES_PER_PLUGIN,
  MAX_PASSIVE_VERSION_READS,
  MAX_PLUGIN_READMES,
  probeAt,
  probeOf,
} from "./probes.ts";
import { VersionFiles } from "./version-files.ts";

/** The probes of the wave that need nothing but the site's paths, in the order they are asked, by base. */
const CORE_PROBES = ["readme_html", "login"] as const;
const HOME_PROBES = ["author_1", "users_sitemap"] as const;

export interface GatherOptions {
  /**
   * The names index: asked once the homepage is in, so that plugins it names without a
   * version get their files read like the others (detect/finders/names-question.ts).
   */
  names?: NameLookup;
  signal?: AbortSignal;
  /**
   * A site that gave no answer lately is checked first: the homepage must connect and bring its
   * first byte within this many ms, or the analysis ends (homepage.ts, quickCheck).
   */
  quickCheckMs?: number;
}

export async function gather(url: string, client: SafeClient, options: GatherOptions = {}): Promise<Artifacts> {
  if (options.quickCheckMs) await quickCheck(client, url, options.quickCheckMs);
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

  // The install's shape as the homepage shows it (detect/site-paths.ts).
  const paths = detectSitePaths({ homepage });
  const signal = options.signal ?? new AbortController().signal;
  // The names index is asked while the wave goes out: only the version files wait for its answer.
  const named = options.names ? askNames(artifacts, options.names, signal) : Promise.resolve();
  const probes = new Probes(client, artifacts);
  const tasks: Promise<unknown>[] = [];
  const later = (task: Promise<unknown>) => tasks.push(task);

  // Plugins found without a version: their files, one after the other until one settles it.
  // The reader is made once the wave is out (below): what it reads of the page costs CPU that
  // the first requests need not wait for.
  let readerMade!: (reader: VersionFiles) => void;
  const reader = new Promise<VersionFiles>((resolve) => {
    readerMade = resolve;
  });
  const followFiles = (slug: string, readmeAsked: boolean) =>
    reader.then((versionFiles) => versionFiles.follow(slug, readmeAsked));

  // Requests leave in the order asked (it matters over HTTP/1.1): heads of chains first, so
  // their next links can start while the rest of the wave runs; static assets last.
  const rest = probeRest(probes, paths, artifacts, homepage, followFiles);
  later(rest.done);
  // Plugins the REST API alone names (a namespace spelt like a directory plugin's slug): the
  // names index is asked about its namespaces, then their files are read like the others'.
  later(
    rest.root.then(async (root) => {
      if (!root) return;
      await named;
      if (options.names) await askNames(artifacts, options.names, signal);
      const versionFiles = await reader;
      versionFiles.learn();
      await Promise.all(versionFiles.unversionedOnPage().map((slug) => versionFiles.follow(slug, false)));
    }),
  );
  // Where core is (and the default content directory under it): when the homepage does not
  // show it (no wp-includes/ or wp-admin/ URL of its own, no RSD link — its core files on a
  // CDN, say), the REST index's `url` (siteurl) does; the probes under core wait for it
  // rather than go to a guess.
  // (When the homepage shows it, they go in the wave as they always did, in its order.)
  const settled: Promise<SitePaths> | null =
    paths.found.core.length > 0
      ? null
      : rest.root.then(() => detectSitePaths({ homepage, probes: { rest_root: artifacts.probes.rest_root } }));
  const whenSettled = (task: (site: SitePaths) => Promise<unknown>) =>
    later(settled ? settled.then(task) : task(paths));
  later(probeFeedAndOembed(probes, paths, homepage));
  later(probeRobotsAndSitemaps(probes, paths));
  later(probeThemes(probes, paths, homepage));
  whenSettled((site) => probeXmlRpc(probes, site));
  const pluginReadmes = new Set<string>();
  for (const [slug, urls] of pluginSlugsFromPage(homepage, paths)) {
    if (pluginReadmes.size >= MAX_PLUGIN_READMES) break;
    pluginReadmes.add(slug);
    // The readme goes out in this place of the wave; the reader takes its answer from there.
    later(probes.run(probeOf("plugin_readme", { ...paths, contentBase: componentBase(paths, urls) }, slug)));
    later(followFiles(slug, true));
  }
  later(probes.run(probeOf("not_found", paths, crypto.randomUUID().slice(0, 8))));
  whenSettled((site) => Promise.all(CORE_PROBES.map((name) => probes.run(probeOf(name, site)))));
  for (const name of HOME_PROBES) later(probes.run(probeOf(name, paths)));
  whenSettled((site) => probes.run(probeOf("uploads", site)));
  // Open listings of plugins/ and themes/ name installed components (then readmes of listed plugins).
  whenSettled((site) => probeListings((spec) => probes.run(spec), followFiles, site, pluginReadmes));
  for (const file of EXPOSED_FILES) {
    if (file.base === "home") later(probes.run(exposedFileProbe(file, paths)));
    else whenSettled((site) => probes.run(exposedFileProbe(file, site)));
  }
  // wp-config.php backups also beside core, when core has its own directory (/wp/).
  whenSettled(async (site) => {
    if (site.coreBase === site.homeBase) return;
    const beside = EXPOSED_FILES.filter((file) => file.alsoUnderCore);
    await Promise.all(beside.map((file) => probes.run(exposedFileProbe(file, site, "core"))));
  });
  if (new URL(homepage.url).protocol === "https:") {
    const plain = new URL(homepage.url);
    plain.protocol = "http:";
    plain.port = "";
    later(probes.run(probeAt("http_redirect", plain.toString())));
  }
  later(sampleAssets(client, homepage, paths, artifacts));
  probes.firstWaveQueued = true;
  later(
    (async () => {
      // Once the queued requests are on their connections and the names index answered: the
      // reader, which reads the page (and those answers) as they were before any probe answered.
      await new Promise((resolve) => setImmediate(resolve));
      await named;
      const versionFiles = new VersionFiles({
        artifacts,
        paths,
        mode: "passive",
        run: (spec) => probes.run(spec),
        maxRequests: MAX_PASSIVE_VERSION_READS,
        perPlugin: MAX_PASSIVE_FILES_PER_PLUGIN,
        seen: { ...artifacts, probes: {}, assets: [] },
      });
      readerMade(versionFiles);
      // Plugins the page names only by a comment, a generator, a header…, without a version
      // (as a chain's next link, they go before what of the wave still waits).
      await Promise.all(versionFiles.unversionedOnPage().map((slug) => versionFiles.follow(slug, false)));
    })(),
  );
  await Promise.all(tasks);
  // Only when a probe met a challenge or block page: is the path filtered, or answered?
  await askBlockControls((spec) => probes.run(spec), artifacts);
  return artifacts;
}
