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
 *
 * A homepage that answers with an error status (401 or 403: the site wants credentials or
 * refuses us; 404; 5xx: the site is broken) is incomplete too: its page is an error page, so
 * the checks would grade the error page, not the site — a password-protected staging site
 * would pass "no .env exposed" because the probe got a 401, and a deploy that took the site
 * down would be graded and could become a gate's baseline.
 */
import type { Check, ReportError } from "../../shared/report.ts";
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
  /** The homepage's status when it is an error (≥ 400), else null. */
  homepageError: number | null;
  incomplete: boolean;
}

export function completeness(probes: Pick<ProbeFacts, "answers" | "failed">, homepageStatus: number): Completeness {
  const failed = probes.failed.size;
  const asked = Object.keys(probes.answers).length + failed;
  const homepageError = homepageStatus >= 400 ? homepageStatus : null;
  const incomplete =
    homepageError !== null || (asked >= INCOMPLETE_MIN_PROBES && failed / asked > INCOMPLETE_FAILED_SHARE);
  return { asked, failed, homepageError, incomplete };
}

/** Why the homepage's error status leaves nothing to grade, and what to do. */
function homepageErrorText(status: number): string {
  if (status === 401 || status === 407)
    return `The homepage asks for credentials (HTTP ${status}): a password-protected site is analysed with its credentials (site_auth in the API, http-auth in the Action, --http-auth in the CLI).`;
  if (status === 403)
    return "The homepage refused the analyzer (HTTP 403): a firewall, an IP allowlist or a login wall stands before the site; allow the analyzer or send credentials (site_auth).";
  if (status >= 500) return `The homepage answered an error (HTTP ${status}): the site is broken or down.`;
  return `The homepage answered HTTP ${status}: there is no page to analyse at this URL.`;
}

/** The incomplete entry's message when the site credentials were sent and the homepage still asked for them or refused. */
export function refusedCredentialsText(status: number): string {
  return `The homepage refused the site credentials that were sent (HTTP ${status}): check that the secret holds the current user and password (or headers, cookies) and that the URL is the origin they are for. So the report is incomplete, has no grade and is not charged.`;
}

/** The errors[] entry of an incomplete report. */
export function incompleteEntry({ asked, failed, homepageError }: Completeness): ReportError {
  const tail = "the report is incomplete, has no grade and is not charged.";
  return {
    stage: "analysis",
    kind: INCOMPLETE_KIND,
    message:
      homepageError !== null
        ? `${homepageErrorText(homepageError)} So ${tail}`
        : `${failed} of ${asked} probes got no answer from the site (more than ${INCOMPLETE_FAILED_SHARE * 100} % is too many): ${tail}`,
  };
}

/**
 * The checks of a report whose homepage was an error page (a protected staging site's 401, a
 * 403 wall, a 5xx): every check is `skip`, not checked, with why. Their probes got the same wall
 * ("no .env" from a 401 is not "no .env"), and what the checks read from the page is the wall's,
 * not the site's: "the homepage has no <title>", "no Content-Security-Policy" (nginx adds its
 * headers to 2xx and 3xx answers only, unless told `always`) or "does not look like WordPress"
 * would each state something about a site nobody saw. The facts read stay in the report
 * (performance, security, seo) and each check keeps its evidence (what its requests got); only
 * the verdicts about the site go.
 */
export function unseenSiteChecks(checks: readonly Check[], homepageStatus: number): Check[] {
  const why =
    homepageStatus === 401 || homepageStatus === 407
      ? `The homepage asked for credentials (HTTP ${homepageStatus}), so the site behind it was not seen`
      : `The homepage answered HTTP ${homepageStatus}, so the site behind that page was not seen`;
  return checks.map((check) => ({ ...check, status: "skip", message: `${why}: not checked.` }));
}

/** True for a report (or analysis result) marked incomplete. */
export function isIncomplete(report: { errors: readonly Pick<ReportError, "stage" | "kind">[] }): boolean {
  return report.errors.some((error) => error.kind === INCOMPLETE_KIND && error.stage === "analysis");
}
