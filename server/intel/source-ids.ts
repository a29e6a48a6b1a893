/** The intel sources: their ids (intel_sources.id, report `intel.sources[].id`), names and addresses. */
export const WORDFENCE_SOURCE_ID = "wordfence";
export const WORDFENCE_SOURCE_NAME = "Wordfence Intelligence";
export const WORDFENCE_FEED_URL = "https://www.wordfence.com/api/intelligence/v3/vulnerabilities/production";
export const WORDFENCE_TERMS_URL = "https://www.wordfence.com/wordfence-intelligence-terms-and-conditions/";

export const WPORG_SOURCE_ID = "wordpress.org";
export const WPORG_SOURCE_NAME = "WordPress.org";
export const WPORG_API_URL = "https://api.wordpress.org";

export const WPVULNERABILITY_SOURCE_ID = "wpvulnerability";
export const WPVULNERABILITY_SOURCE_NAME = "WPVulnerability";
export const WPVULNERABILITY_API_URL = "https://www.wpvulnerability.net";
export const WPVULNERABILITY_SITE_URL = "https://www.wpvulnerability.net/";
/**
 * Shown with every report that uses its data. WPVulnerability asks to be used reasonably and
 * credited; its records gather advisories from CVE, JVN, Wordfence, Patchstack, WPScan and
 * others, each linked from the advisory's references, where their own terms apply.
 */
export const WPVULNERABILITY_ATTRIBUTION =
  "Vulnerability data: WPVulnerability Database API (https://www.wpvulnerability.net/), free and open, by its project team. Its records gather advisories from public sources (CVE, JVN, Wordfence, Patchstack, WPScan and others); each advisory links to its original source. Provided as is, without warranty.";
