/** The intel sources: their ids (intel_sources.id, report `intel.sources[].id`), names and addresses. */
export const WORDFENCE_SOURCE_ID = "wordfence";
export const WORDFENCE_SOURCE_NAME = "Wordfence Intelligence";
export const WORDFENCE_FEED_URL = "https://www.wordfence.com/api/intelligence/v3/vulnerabilities/production";
export const WORDFENCE_TERMS_URL = "https://www.wordfence.com/wordfence-intelligence-terms-and-conditions/";

export const WPORG_SOURCE_ID = "wordpress.org";
export const WPORG_SOURCE_NAME = "WordPress.org";
export const WPORG_API_URL = "https://api.wordpress.org";
