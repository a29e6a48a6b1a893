/** Performance checks (ids `performance.*`). See ../catalogue.ts for the rules on ids. */
import type { CheckDefinition } from "../types.ts";

export const PERFORMANCE_CHECKS = {
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
