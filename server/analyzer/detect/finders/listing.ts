/**
 * Components named by an open directory listing of `<content>/plugins/` or
 * `<content>/themes/` (probes `plugins_listing`, `themes_listing`). A folder there means
 * the component is installed — not that it is active — so the signal is weaker than any
 * sign of it on the page: on its own it just reaches the reporting threshold, and the
 * evidence says what it proves.
 */
import type { Artifacts } from "../../artifacts.ts";
import { siteText, siteUrl } from "../../untrusted-text.ts";
import { type DirectoryListing, listedSlugs, parseDirectoryListing } from "../directory-listing.ts";
import type { WeightedEvidence } from "../evidence.ts";

/** Installed, activity unknown: 50, the detection threshold, when nothing else is seen. */
export const LISTING_WEIGHT = 0.5;

export interface ListedComponents {
  listing: DirectoryListing;
  /** Folder names that can be slugs, in listing order. */
  slugs: string[];
}

export function listedComponents(artifacts: Artifacts, kind: "plugins" | "themes"): ListedComponents | null {
  const listing = parseDirectoryListing(artifacts.probes[`${kind}_listing`]);
  return listing ? { listing, slugs: listedSlugs(listing) } : null;
}

export function listingSignal(listed: ListedComponents, slug: string): WeightedEvidence {
  const folder = new URL(listed.listing.url).pathname;
  return {
    source: "directory_listing",
    value: siteText(`${slug}/ listed in ${folder}: installed (a listing does not say whether it is active)`, 300),
    url: siteUrl(new URL(`${encodeURIComponent(slug)}/`, listed.listing.url).toString()),
    weight: LISTING_WEIGHT,
  };
}
