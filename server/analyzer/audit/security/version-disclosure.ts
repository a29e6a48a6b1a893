/** Does the site tell everyone its exact WordPress version? */
import { makeCheck } from "../catalogue.ts";
import { unlessObstructed } from "../obstacles.ts";
import type { Audit } from "../types.ts";

const DISCLOSING = new Set(["meta_generator", "rss_generator", "atom_generator"]);

export const auditVersionDisclosure: Audit = ({ wordpress, probes }) => {
  // Reported as skipped (wordpress-only.ts gives the reason), so every report lists every check.
  if (!wordpress.detected)
    return [makeCheck("security.wp_version_disclosed", "skip", "The site does not look like WordPress.")];
  const leaks = wordpress.evidence.filter((item) => DISCLOSING.has(item.source) && /\d+\.\d+/.test(item.value));
  if (leaks.length === 0) {
    // The feed's generator behind a challenge may state it (audit/obstacles.ts).
    const pass = makeCheck(
      "security.wp_version_disclosed",
      "pass",
      "No generator tag discloses the WordPress version.",
    );
    return [unlessObstructed(pass, probes)];
  }
  return [
    makeCheck(
      "security.wp_version_disclosed",
      "fail",
      `The WordPress version is published in ${leaks.length === 1 ? "a generator tag" : `${leaks.length} generator tags`}.`,
      leaks.map((item) => `${item.source}: ${item.value}`),
    ),
  ];
};
