/**
 * Whether a report is complete enough to be graded (docs/report.md, "Incomplete reports").
 *
 * A site whose homepage answers but whose probes mostly get no answer at all (they hang, are
 * refused or reset, or run into the analysis deadline) yields checks that say little: most
 * facts are unknown. Such a report is marked incomplete — an `incomplete` entry first in its
 * errors, no summary and so no grade — and the service does not charge it.
 *
 * "No answer" is a failed probe (an entry in errors[] under the probe's key); any HTTP answer,
 * 404 and 500 included, is an answer. Too few probes to judge (a site that is not WordPress
 * is asked little) never makes a report incomplete.
 */
import type { ReportError } from "../../shared/report.ts";
import type { ProbeFacts } from "./facts.ts";

/** More than this share of the probes without an answer makes the report incomplete. */
export const INCOMPLETE_FAILED_SHARE = 0.5;
/** Fewer probes than this are too few to judge. */
export const INCOMPLETE_MIN_PROBES = 4;
/** errors[].kind of the entry that marks an incomplete report. */
export const INCOMPLETE_KIND = "incomplete";

export interface Completeness {
  asked: number;
  failed: number;
  incomplete: boolean;
}

export function completeness(probes: ProbeFacts): Completeness {
  const failed = probes.failed.size;
  const asked = Object.keys(probes.answers).length + failed;
  const incomplete = asked >= INCOMPLETE_MIN_PROBES && failed / asked > INCOMPLETE_FAILED_SHARE;
  return { asked, failed, incomplete };
}

/** The errors[] entry of an incomplete report. */
export function incompleteEntry({ asked, failed }: Completeness): ReportError {
  return {
    stage: "analysis",
    kind: INCOMPLETE_KIND,
    message: `${failed} of ${asked} probes got no answer from the site (more than ${INCOMPLETE_FAILED_SHARE * 100} % is too many): the report is incomplete, has no grade and is not charged.`,
  };
}

/** True for a report (or analysis result) marked incomplete. */
export function isIncomplete(report: { errors: readonly Pick<ReportError, "stage" | "kind">[] }): boolean {
  return report.errors.some((error) => error.kind === INCOMPLETE_KIND && error.stage === "analysis");
}
