/**
 * The plugins/ and themes/ folders of the content directory, asked whether they list their
 * files (probes `plugins_listing`, `themes_listing`). WordPress ships an empty index.php in
 * both, so most sites answer with an empty page; a site with autoindex on and the file
 * missing names every installed component. The readme.txt of plugins the listing names
 * (and the page did not already lead to) are fetched next, bounded: a readme gives the
 * version, and its `=== Name ===` lets a comment that credits the plugin by name count.
 */
import type { HttpArtifact } from "../artifacts.ts";
import { listedSlugs, parseDirectoryListing } from "../detect/directory-listing.ts";
import type { SitePaths } from "../detect/site-paths.ts";
import { type ProbeSpec, pluginReadmeProbe } from "./probes.ts";

/**
 * What is read of a plugins/ or themes/ listing: ~3 000 rows of Apache's fancy index, far
 * more than detect reads (MAX_LISTING_ENTRIES); a 5 MB listing costs this and no more.
 */
export const LISTING_MAX_BYTES = 256 * 1024;
/** Readmes of plugins known only from a listing, on top of the page's and the REST API's. */
export const MAX_LISTED_PLUGIN_READMES = 20;

export async function probeListings(
  run: (spec: ProbeSpec) => Promise<HttpArtifact | undefined>,
  paths: SitePaths,
  readmesAlreadyAsked: ReadonlySet<string>,
): Promise<void> {
  const listing = (kind: "plugins" | "themes") =>
    run({
      key: `${kind}_listing`,
      url: new URL(`${kind}/`, paths.contentBase).toString(),
      follow: false,
      maxBytes: LISTING_MAX_BYTES,
    });
  const [plugins] = await Promise.all([listing("plugins"), listing("themes")]);
  const slugs = listedSlugs(parseDirectoryListing(plugins))
    .filter((slug) => !readmesAlreadyAsked.has(slug))
    .slice(0, MAX_LISTED_PLUGIN_READMES);
  await Promise.all(slugs.map((slug) => run(pluginReadmeProbe(slug, paths.contentBase))));
}
