/**
 * Whether a report saw the site it names. A completed report without a grade could not: it is
 * incomplete (the homepage asked for credentials, refused the ones given, refused the analyzer,
 * was an error page, or most probes got no answer — server/analyzer/completeness.ts) or the
 * homepage was a firewall's challenge page. Its checks graded an error or challenge page, not
 * the site, so a reader that acts on a report — the gate of the Action and the CLI, SARIF for
 * code scanning — must not read them as the site's: "could not check", never "pass".
 *
 * Keyed on the report's own statement (its errors[] entry and its missing grade), not on one
 * firewall vendor or status code, so a new cause the analyzer learns is covered as well.
 */
import type { Report } from "./report.ts";

export interface UnseenSite {
  /** The errors[] kind that says why: `incomplete`, `blocked_by_waf`, … (`ungraded` when none says). */
  kind: string;
  /** The report's own statement: why, and what to do. Site text may be in it (a firewall's name). */
  message: string;
}

/** errors[].kind of the entry that marks an incomplete report (server/analyzer/completeness.ts). */
const INCOMPLETE_KIND = "incomplete";

/** Why the report could not see the site, in its own words; null when it did (or has not completed). */
export function unseenSite(report: Pick<Report, "status" | "summary" | "errors" | "hosting">): UnseenSite | null {
  if (report.status !== "completed") return null;
  const errors = report.errors ?? [];
  const entry =
    errors.find((error) => error.kind === INCOMPLETE_KIND && error.stage === "analysis") ??
    errors.find((error) => error.kind === "blocked_by_waf");
  if (!entry && report.summary !== null && !report.hosting?.blocked_by_waf) return null;
  const cause = entry ?? errors.find((error) => error.stage === "homepage") ?? errors[0];
  return {
    kind: cause?.kind ?? "ungraded",
    message:
      cause?.message ??
      "The report has no grade: the site could not be analyzed, so its checks do not describe the site.",
  };
}
