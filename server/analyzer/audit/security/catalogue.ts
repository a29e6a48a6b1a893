/** Security checks (ids `security.*`). See ../catalogue.ts for the rules on ids. */
import type { CheckDefinition } from "../types.ts";

export const SECURITY_CHECKS = {
  "security.https": {
    category: "security",
    severity: "high",
    title: "Site is served over HTTPS",
    remediation:
      "Install a TLS certificate (Let's Encrypt is free), serve the site over https:// and redirect every http:// request to it. In WordPress, set the Site Address and WordPress Address to https://.",
  },
  "security.wp_version_disclosed": {
    category: "security",
    severity: "low",
    title: "WordPress version is not disclosed",
    remediation:
      "Remove the generator tag (remove_action('wp_head', 'wp_generator')) and the version from feeds (add_filter('the_generator', '__return_empty_string')). Hiding the version is no substitute for updating, but it stops drive-by scanners from picking you.",
  },
} as const satisfies Record<string, CheckDefinition>;
