/**
 * How a report names the intel sources it used. A service may point WORDFENCE_FEED_URL,
 * WPVULNERABILITY_API_URL or WPORG_API_URL at a mirror (an air-gapped proxy, a cache of the
 * agency's): the report then says so — "mirror of WPVulnerability at intel.example" with the
 * mirror's address — instead of crediting the original for data it did not serve. The notices
 * of a source that did not answer use the same name.
 */
import {
  WORDFENCE_FEED_URL,
  WORDFENCE_SOURCE_NAME,
  WPORG_API_URL,
  WPORG_SOURCE_NAME,
  WPVULNERABILITY_API_URL,
  WPVULNERABILITY_SITE_URL,
  WPVULNERABILITY_SOURCE_NAME,
} from "./source-ids.ts";

export interface SourceName {
  /** As the report and its notices write it. */
  name: string;
  /** The page the report links for it: the original's, or the mirror's own origin. */
  url: string;
}

export interface SourceNames {
  wordfence: SourceName;
  wpvulnerability: SourceName;
  wporg: SourceName;
}

/** The hosts that serve each original (a URL on another host is a mirror). */
const ORIGINAL_HOSTS = {
  wordfence: new Set(["www.wordfence.com", "wordfence.com"]),
  wpvulnerability: new Set([
    "www.wpvulnerability.net",
    "wpvulnerability.net",
    "www.wpvulnerability.com",
    "wpvulnerability.com",
  ]),
  wporg: new Set(["api.wordpress.org"]),
} as const;

function nameOf(
  kind: keyof typeof ORIGINAL_HOSTS,
  original: SourceName,
  configured: string | null | undefined,
): SourceName {
  if (!configured) return original;
  let url: URL;
  try {
    url = new URL(configured);
  } catch {
    return original;
  }
  if (ORIGINAL_HOSTS[kind].has(url.hostname.toLowerCase())) return original;
  // url.host keeps a port that is not the scheme's default: two mirrors on one host differ by it.
  return { name: `mirror of ${original.name} at ${url.host}`, url: `${url.origin}/` };
}

/** The names for a service's configured source addresses (undefined or null: the original's). */
export function sourceNames(configured: {
  wordfenceFeedUrl?: string | null;
  wpvulnerabilityApiUrl?: string | null;
  wporgApiUrl?: string | null;
}): SourceNames {
  return {
    wordfence: nameOf(
      "wordfence",
      { name: WORDFENCE_SOURCE_NAME, url: "https://www.wordfence.com/threat-intel/vulnerabilities/" },
      configured.wordfenceFeedUrl,
    ),
    wpvulnerability: nameOf(
      "wpvulnerability",
      { name: WPVULNERABILITY_SOURCE_NAME, url: WPVULNERABILITY_SITE_URL },
      configured.wpvulnerabilityApiUrl,
    ),
    wporg: nameOf("wporg", { name: WPORG_SOURCE_NAME, url: "https://wordpress.org/plugins/" }, configured.wporgApiUrl),
  };
}

/** The originals' names: what a service that uses the default addresses reports. */
export const ORIGINAL_SOURCE_NAMES: SourceNames = sourceNames({
  wordfenceFeedUrl: WORDFENCE_FEED_URL,
  wpvulnerabilityApiUrl: WPVULNERABILITY_API_URL,
  wporgApiUrl: WPORG_API_URL,
});

/** A source's name at the start of a sentence: "Mirror of WPVulnerability at …". */
export function atSentenceStart(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
