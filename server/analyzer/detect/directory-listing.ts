/**
 * Open directory listings ("Index of /wp-content/plugins/"): the web server's autoindex
 * page names every file and folder, so a listing of plugins/ or themes/ names each
 * installed component, active or not. Apache (fancy table, <pre> and <ul> styles), nginx
 * and LiteSpeed autoindex pages and IIS's directory browsing are recognised.
 *
 * Parsing is one htmlparser2 pass that stops at MAX_LISTING_ENTRIES: a listing of 100 000
 * entries costs no more than one of 500, and no regular expression runs over the body.
 */
import { Parser } from "htmlparser2";
import type { HttpArtifact } from "../artifacts.ts";
import { decodedSegment } from "../parse/urls.ts";
import { isComponentSlug } from "./site-paths.ts";

/** Entries read from one listing; the rest of a bigger one is counted as cut. */
export const MAX_LISTING_ENTRIES = 500;

export interface ListingEntry {
  /** The entry's name as shown (percent-decoded), without a trailing slash. */
  name: string;
  /** True for a folder (the link ends with "/"). */
  directory: boolean;
}

export interface DirectoryListing {
  url: string;
  entries: ListingEntry[];
  /** True when the listing had more entries than were read. */
  capped: boolean;
}

/** Autoindex pages of Apache, nginx, LiteSpeed ("Index of /…") and IIS ("[To Parent Directory]"). */
export function isDirectoryListing(artifact: HttpArtifact | undefined): artifact is HttpArtifact {
  if (artifact?.status !== 200) return false;
  const head = artifact.body.slice(0, 4_000);
  return /<(?:title|h1)>\s*Index of \//i.test(head) || head.includes("[To Parent Directory]");
}

/**
 * An entry is a link to a child of the listed folder: one relative path segment, with a
 * trailing "/" for folders. Sort links (?C=N;O=D), the parent (../, /wp-content/) and
 * absolute links are not entries. IIS writes absolute paths, so a link under the listing's
 * own path counts too.
 */
function entryOf(href: string, listingPath: string): ListingEntry | null {
  let rest = href.trim();
  if (rest.startsWith(listingPath) && listingPath.length > 1) rest = rest.slice(listingPath.length);
  if (rest.length === 0 || rest.length > 300 || /^[?#./]|^[a-z][a-z0-9+.-]*:/i.test(rest)) return null;
  const directory = rest.endsWith("/");
  const name = decodedSegment(directory ? rest.slice(0, -1) : rest);
  if (name.length === 0 || name.includes("/") || name.includes("?") || name === "..") return null;
  return { name, directory };
}

/**
 * Parsed listings by artifact: gather, plugin and theme detection, the installed themes and
 * the listing check all read the same (up to 256 KB) listing; it is parsed once.
 */
const parsed = new WeakMap<HttpArtifact, DirectoryListing | null>();

export function parseDirectoryListing(artifact: HttpArtifact | undefined): DirectoryListing | null {
  if (!artifact) return null;
  let listing = parsed.get(artifact);
  if (listing === undefined) {
    listing = parseListing(artifact);
    parsed.set(artifact, listing);
  }
  return listing;
}

function parseListing(artifact: HttpArtifact): DirectoryListing | null {
  if (!isDirectoryListing(artifact)) return null;
  const listingPath = new URL(artifact.url).pathname;
  const entries: ListingEntry[] = [];
  const seen = new Set<string>();
  let capped = false;
  const parser: Parser = new Parser({
    onopentag(name, attrs) {
      if (name !== "a" || attrs.href === undefined) return;
      const entry = entryOf(attrs.href, listingPath);
      if (!entry || seen.has(entry.name)) return;
      if (entries.length >= MAX_LISTING_ENTRIES) {
        capped = true;
        parser.pause(); // the rest is not read at all
        return;
      }
      seen.add(entry.name);
      entries.push(entry);
    },
  });
  parser.write(artifact.body);
  if (!capped) parser.end();
  return { url: artifact.url, entries, capped: capped || artifact.truncated };
}

/** Folder names in a listing that can be component slugs (of plugins/ or themes/), as written. */
export function listedSlugs(listing: DirectoryListing | null): string[] {
  if (!listing) return [];
  return listing.entries.filter((entry) => entry.directory && isComponentSlug(entry.name)).map((entry) => entry.name);
}
