/**
 * The plugins/ and themes/ folders of the content directory, asked whether they list their
 * files (probes `plugins_listing`, `themes_listing`). WordPress ships an empty index.php in
 * both, so most sites answer with an empty page; a site with autoindex on and the file
 * missing names every installed component. The readme.txt of plugins the listing names
 * (and the page did not already lead to) are fetched next, bounded: a readme gives the
 * version, and its `=== Name ===` lets a comment that credits the plugin by name count.
 * A readme without a version leads to the plugin's other version files (version-files.ts).
 */
import type { HttpArtifact } from "../artifacts.ts";
import { listedSlugs, parseDirectoryListing } from "../detect/directory-listing.ts";
import type { SitePaths } from "../detect/site-paths.ts";
import { MAX_LISTED_PLUGIN_READMES, type ProbeSpec, probeOf } from "./probes.ts";

export async function probeListings(
  run: (spec: ProbeSpec) => Promise<HttpArtifact | undefined>,
  /** Asks a plugin's readme.txt, then its other version files if need be (version-files.ts). */
  followFiles: (slug: string, readmeAsked: true) => Promise<unknown>,
  paths: SitePaths,
  readmesAlreadyAsked: ReadonlySet<string>,
): Promise<void> {
  const [plugins] = await Promise.all([run(probeOf("plugins_listing", paths)), run(probeOf("themes_listing", paths))]);
  const slugs = listedSlugs(parseDirectoryListing(plugins))
    .filter((slug) => !readmesAlreadyAsked.has(slug))
    .slice(0, MAX_LISTED_PLUGIN_READMES);
  await Promise.all(slugs.map((slug) => followFiles(slug, true)));
}
