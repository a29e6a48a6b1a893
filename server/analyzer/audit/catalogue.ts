/**
 * The check catalogue: every check the analyzer can report, with its stable id, category,
 * severity, title and remediation. Ids never change meaning once published; the diff
 * engine and users' CI thresholds depend on them. docs/checks.md is generated from here
 * (`bun run docs:checks`), and a test keeps the two in step.
 */
import type { Check, CheckCategory, CheckStatus, Severity } from "../../../shared/report.ts";

export interface CheckDefinition {
  category: CheckCategory;
  severity: Severity;
  title: string;
  remediation: string;
}

export const CHECKS = {
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
  "performance.html_compression": {
    category: "performance",
    severity: "medium",
    title: "HTML is compressed",
    remediation:
      "Enable gzip or Brotli for text/html in the web server (nginx: gzip on; Apache: mod_deflate) or at your CDN.",
  },
  "performance.ttfb": {
    category: "performance",
    severity: "medium",
    title: "Server responds quickly (time to first byte)",
    remediation:
      "Use a page cache (WP Rocket, W3 Total Cache, LiteSpeed Cache or your host's), keep PHP up to date with OPcache enabled, and look for slow plugins with Query Monitor.",
  },
} as const satisfies Record<string, CheckDefinition>;

export type CheckId = keyof typeof CHECKS;

export function makeCheck(id: CheckId, status: CheckStatus, message: string, evidence: string[] = []): Check {
  const definition: CheckDefinition = CHECKS[id];
  return {
    id,
    category: definition.category,
    severity: definition.severity,
    status,
    title: definition.title,
    message,
    evidence,
    remediation: definition.remediation,
  };
}
