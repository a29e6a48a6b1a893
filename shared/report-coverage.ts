/**
 * What a report did not check, in the words every view and export uses — the portfolio, the
 * site page, the CSV, the client report (HTML and PDF), the monitors' pages, the events'
 * words (webhooks, Slack, alert e-mails and the digest) and the report page — so that
 * "unknown" reads as unknown everywhere, never as "none" or "0" (docs/report.md, "What a
 * report did not check").
 *
 * Three things can leave a report's findings short of the site's truth:
 * - its vulnerability data (`intel.vulnerability_data`, shared/vulnerability-data.ts): no
 *   source answered ("none"), or not for every component ("partial") — an empty list of
 *   vulnerabilities then means nothing;
 * - checks that could not run (`not_checked`, `summary.not_checked`, since 1.5.0): a firewall
 *   challenge, a persisting 429, a 5xx or a timeout answered their probe;
 * - an incomplete report (errors[] kind `incomplete`: the homepage asked for credentials, or
 *   most probes got no answer): nothing of it was checked, it has no grade.
 *
 * Counts stay numbers in data (the API, the events); the status stands beside them. Words are
 * written here once.
 */
import type { Report, VULNERABILITY_DATA_STATUSES } from "./report.ts";

export type VulnerabilityDataStatus = (typeof VULNERABILITY_DATA_STATUSES)[number];

/** A component no vulnerability source checked, as views name it. */
export interface UncheckedRef {
  type: "core" | "theme" | "plugin";
  slug: string;
}

/** How far a report's vulnerabilities were checked, as every view states it. */
export interface VulnerabilityCoverage {
  status: VulnerabilityDataStatus;
  /** The components no source checked (status partial). */
  unchecked: UncheckedRef[];
  /** The report is incomplete (or has no result): nothing of it was checked. */
  incomplete?: boolean;
}

/** The words for "no source answered": a view says this instead of "none" or "0". */
export const NOT_CHECKED_NO_DATA = "not checked: no vulnerability data";
/** The words for a report that is incomplete: nothing of it was checked. */
export const NOT_CHECKED_INCOMPLETE = "not checked: the report is incomplete";
/** The words for a site with no completed report yet. */
export const NOT_CHECKED_NO_REPORT = "not checked: no completed report";

/** errors[].kind of the entry that marks an incomplete report (server/analyzer/completeness.ts). */
const INCOMPLETE_KIND = "incomplete";

/** True for a report marked incomplete: no grade, nothing of it can be relied on. */
export function isIncompleteReport(report: Pick<Report, "errors">): boolean {
  return (report.errors ?? []).some((error) => error.kind === INCOMPLETE_KIND && error.stage === "analysis");
}

/**
 * The coverage of a report's vulnerability data. A report without a result (queued, running,
 * failed) or an incomplete one checked nothing: none. One from before report schema 1.4.0 does
 * not say, and reads as complete (as shared/vulnerability-data.ts's vulnerabilitiesChecked).
 */
export function vulnerabilityCoverage(report: Pick<Report, "status" | "errors" | "intel">): VulnerabilityCoverage {
  if (report.status !== "completed" || isIncompleteReport(report)) {
    return { status: "none", unchecked: [], incomplete: true };
  }
  const data = report.intel?.vulnerability_data;
  if (!data) return { status: "complete", unchecked: [] };
  return {
    status: data.status,
    unchecked: data.status === "partial" ? data.unchecked.map(({ type, slug }) => ({ type, slug })) : [],
  };
}

/** "WordPress", "plugin akismet", "theme astra". */
export function componentName(ref: UncheckedRef): string {
  return ref.type === "core" ? "WordPress" : `${ref.type} ${ref.slug}`;
}

/** Most components named in one line; the rest are counted. */
const MAX_NAMED = 5;

/** "plugin akismet, theme astra and 3 more". */
export function componentList(refs: readonly UncheckedRef[]): string {
  const named = refs.slice(0, MAX_NAMED).map(componentName);
  const rest = refs.length - named.length;
  return rest > 0 ? `${named.join(", ")} and ${rest} more` : named.join(", ");
}

/** "no vulnerability data for plugin akismet": what a partial coverage did not check. */
function partlyText(coverage: VulnerabilityCoverage): string {
  return coverage.unchecked.length > 0
    ? `partly checked: no vulnerability data for ${componentList(coverage.unchecked)}`
    : "partly checked: no vulnerability data for some components";
}

const known = (count: number) => `${count} known ${count === 1 ? "vulnerability" : "vulnerabilities"}`;

/**
 * A count of known vulnerabilities in words, honest about its coverage: "2 known
 * vulnerabilities" when every component was checked (0 included); "not checked: no
 * vulnerability data" when none was; "partly checked: no vulnerability data for plugin akismet"
 * (after the count when some were found) when some were not.
 */
export function vulnerabilityCountText(count: number, coverage: VulnerabilityCoverage): string {
  if (coverage.incomplete) return NOT_CHECKED_INCOMPLETE;
  if (coverage.status === "none") return NOT_CHECKED_NO_DATA;
  if (coverage.status === "partial")
    return count > 0 ? `${known(count)}; ${partlyText(coverage)}` : partlyText(coverage);
  return known(count);
}

/**
 * The sentence a view shows beside an empty (or short) list of vulnerabilities when the
 * coverage is not complete; null when it is.
 */
export function vulnerabilityCoverageSentence(coverage: VulnerabilityCoverage): string | null {
  if (coverage.incomplete)
    return "Vulnerabilities not checked: the report is incomplete, so nothing of it was checked.";
  if (coverage.status === "none")
    return "Vulnerabilities not checked: no vulnerability data. No vulnerability source answered for this report, so an empty list does not mean there are none.";
  if (coverage.status === "partial")
    return `Vulnerabilities partly checked: no vulnerability data for ${componentList(coverage.unchecked) || "some components"}. Their known vulnerabilities are unknown.`;
  return null;
}

/**
 * One short line for lists (alert e-mails, chat messages, the digest): "Vulnerabilities not
 * checked: no vulnerability data", "Vulnerabilities partly checked: no vulnerability data for
 * plugin akismet"; null when complete.
 */
export function vulnerabilityCoverageLine(coverage: VulnerabilityCoverage): string | null {
  if (coverage.incomplete) return `Vulnerabilities ${NOT_CHECKED_INCOMPLETE}`;
  if (coverage.status === "none") return `Vulnerabilities ${NOT_CHECKED_NO_DATA}`;
  if (coverage.status === "partial") return `Vulnerabilities ${partlyText(coverage)}`;
  return null;
}

/** Whether a component's vulnerabilities were checked under this coverage. */
export function componentChecked(coverage: VulnerabilityCoverage, ref: UncheckedRef): boolean {
  if (coverage.incomplete || coverage.status === "none") return false;
  if (coverage.status === "complete") return true;
  const slug = ref.type === "core" ? "wordpress" : ref.slug.toLowerCase();
  return !coverage.unchecked.some((gap) => gap.type === ref.type && gap.slug.toLowerCase() === slug);
}

/** How many checks could not run (`summary.not_checked`, else `not_checked[]`; 0 before 1.5.0). */
export function checksNotRun(report: Pick<Report, "summary" | "not_checked">): number {
  return report.summary?.not_checked ?? report.not_checked?.length ?? 0;
}

/** "1 check could not run", "3 checks could not run"; null for 0. */
export function checksNotRunText(count: number): string | null {
  if (count <= 0) return null;
  return `${count} ${count === 1 ? "check" : "checks"} could not run`;
}

/**
 * What to say instead of "nothing failed" / "every check passes" when a report has no failing
 * check: null when everything was checked (then the all-clear is true), else the lines that say
 * what was not.
 */
export function notAllChecked(coverage: VulnerabilityCoverage, notRun: number): string[] | null {
  const lines: string[] = [];
  const sentence = vulnerabilityCoverageSentence(coverage);
  if (sentence) lines.push(sentence);
  const checks = checksNotRunText(notRun);
  if (checks) lines.push(`${checks}: they are not passes.`);
  return lines.length > 0 ? lines : null;
}
