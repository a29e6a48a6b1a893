/** The redirects between the URL as given and the homepage that answered. */
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/**
 * Lighthouse counts every document redirect against a page. One hop is usually just the
 * URL as the caller typed it (http → https, missing www), so only a chain — a hop that a
 * visitor following an old link also pays, one round trip each — fails here.
 */
const MAX_REDIRECTS = 1;

export const auditRedirects: Audit = ({ homepage }) => {
  const { redirects, status } = homepage;
  const url = siteUrl(homepage.url);
  // Each hop as "status URL", ending with the page that answered.
  const evidence = [...redirects.map((hop) => `${hop.status} ${siteUrl(hop.url)}`), `${status} ${url}`];
  if (redirects.length === 0) {
    return [makeCheck("performance.redirects", "pass", "The homepage answered directly, without a redirect.")];
  }
  if (redirects.length <= MAX_REDIRECTS) {
    return [
      makeCheck(
        "performance.redirects",
        "pass",
        `The URL as given redirects once to the homepage (${url}); a single hop is normal.`,
        evidence,
      ),
    ];
  }
  return [
    makeCheck(
      "performance.redirects",
      "fail",
      `The homepage is reached through a chain of ${redirects.length} redirects; each costs a round trip before the page starts loading.`,
      evidence,
    ),
  ];
};
