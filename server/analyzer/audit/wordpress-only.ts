/**
 * Checks that only mean something on WordPress. On a site that is not WordPress they are
 * skipped with one clear reason, so the report scores the site on the checks that apply to
 * any site (HTTPS, headers, cookies, compression, caching of assets, SEO tags…) and nothing
 * else — a Hugo blog does not "pass" "no wp-config.php backup is readable", nor "fail"
 * for lacking a page-cache plugin.
 *
 * Applied once to all checks (audit/index.ts), so each audit keeps judging what it sees; which
 * checks it skips is a flag of their catalogue entries (`wordpressOnly`), also shown in
 * docs/checks.md.
 */
import type { Check } from "../../../shared/report.ts";
import { CHECKS, type CheckDefinition, type CheckId } from "./catalogue.ts";

const idsWhere = (scope: CheckDefinition["wordpressOnly"]): ReadonlySet<CheckId> =>
  new Set(
    (Object.entries(CHECKS) as [CheckId, CheckDefinition][])
      .filter(([, definition]) => definition.wordpressOnly === scope)
      .map(([id]) => id),
  );

/** About WordPress itself (`wordpressOnly: "check"` in the catalogue): on another site there is nothing to judge. */
export const WORDPRESS_CHECKS: ReadonlySet<CheckId> = idsWhere("check");

/**
 * Looking for WordPress's own files (`wordpressOnly: "files"`: wp-config.php backups,
 * wp-admin/install.php, the content directory's debug.log and folders, readme.html): on another
 * site a pass says nothing — they cannot be there — but a failure still counts: the file was
 * there, its content proved it, and a WordPress that hides itself well still exposed it.
 */
export const WORDPRESS_FILE_CHECKS: ReadonlySet<CheckId> = idsWhere("files");

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
