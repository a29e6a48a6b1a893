/**
 * Checks that only mean something on WordPress. On a site that is not WordPress they are
 * skipped with one clear reason, so the report scores the site on the checks that apply to
 * any site (HTTPS, headers, cookies, compression, caching of assets, SEO tags…) and nothing
 * else — a Hugo blog does not "pass" "no wp-config.php backup is readable", nor "fail"
 * for lacking a page-cache plugin.
 *
 * Applied once to all checks (audit/index.ts), so each audit keeps judging what it sees and
 * the policy lives in one table, also shown in docs/checks.md.
 */
import type { Check } from "../../../shared/report.ts";
import type { CheckId } from "./catalogue.ts";

/** About WordPress itself: on another site there is nothing to judge, whatever the audit said. */
export const WORDPRESS_CHECKS: ReadonlySet<CheckId> = new Set<CheckId>([
  "components.core_outdated",
  "components.core_vulnerable",
  "components.plugins_outdated",
  "components.plugins_vulnerable",
  "components.theme_outdated",
  "components.theme_vulnerable",
  "components.plugin_versions_exposed",
  "security.wp_version_disclosed",
  "security.login_over_https",
  "security.xmlrpc_enabled",
  "security.xmlrpc_multicall",
  "security.xmlrpc_pingback",
  "security.user_enumeration",
  "security.rest_user_enumeration",
  "security.author_enumeration",
  "security.admin_username",
  "performance.emoji_script",
  "performance.jquery_migrate",
  // Judges whether WordPress builds the page per request; a static or other site may not
  // need a page cache at all (performance.ttfb still measures the first byte).
  "performance.page_cache",
  "seo.seo_plugin",
]);

/**
 * Looking for WordPress's own files (wp-config.php backups, wp-admin/install.php, the
 * content directory's debug.log and folders, readme.html): on another site a pass says
 * nothing — they cannot be there — but a failure still counts: the file was there, its
 * content proved it, and a WordPress that hides itself well still exposed it.
 */
export const WORDPRESS_FILE_CHECKS: ReadonlySet<CheckId> = new Set<CheckId>([
  "security.config_backup_exposed",
  "security.installer_exposed",
  "security.emergency_script_exposed",
  "security.debug_log_exposed",
  "security.installer_log_exposed",
  "security.backup_dir_exposed",
  "security.readme_exposed",
  "security.directory_listing",
]);

export const NOT_WORDPRESS_REASON =
  "The site does not look like WordPress; this WordPress-specific check does not apply.";
export const NOT_WORDPRESS_FILE_REASON =
  "The site does not look like WordPress; this check looks for WordPress's own files, and none was found.";

/** The checks with the WordPress-only ones skipped when the site is not WordPress. */
export function skipWordPressOnly(checks: readonly Check[], isWordPress: boolean): Check[] {
  if (isWordPress) return [...checks];
  return checks.map((check) => {
    const id = check.id as CheckId;
    if (WORDPRESS_CHECKS.has(id)) return { ...check, status: "skip", message: NOT_WORDPRESS_REASON, evidence: [] };
    if (WORDPRESS_FILE_CHECKS.has(id) && check.status !== "fail" && check.status !== "warn") {
      return { ...check, status: "skip", message: NOT_WORDPRESS_FILE_REASON, evidence: [] };
    }
    return check;
  });
}
