/**
 * The client report of one site over one month (docs/portfolio.md#client-reports): what a
 * white-label monthly report tells the agency's client — the grade now and its trend, what
 * changed between the month's first and last report (the diff engine of shared/diff.ts),
 * what was fixed, and what is still open with how to fix it. Built from stored reports only.
 */

import { diff, failingChecks } from "../../shared/diff.ts";
import type {
  CheckChange,
  ComponentChange,
  Diff,
  MetricChange,
  VulnerabilityChange,
} from "../../shared/diff-schema.ts";
import type { OpenVulnerability, ScorePoint } from "../../shared/portfolio-api.ts";
import type { Check, IntelSource, Report } from "../../shared/report.ts";
import { checksNotRun, type VulnerabilityCoverage, vulnerabilityCoverage } from "../../shared/report-coverage.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { componentsOf, openVulnerabilities, siteText } from "./components.ts";

/** The agency's branding from its settings (branding.service.ts); null parts are left out. */
export interface Branding {
  name: string | null;
  /** A data: URL (image/png, image/jpeg or image/svg+xml), shown only as an <img>. */
  logo: string | null;
  /** #rrggbb */
  color: string | null;
}

export interface Period {
  /** YYYY-MM */
  id: string;
  /** "November 2026" */
  label: string;
  start: Date;
  end: Date;
}

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** A calendar month, UTC, from "YYYY-MM"; a 400 problem for anything else. */
export function parsePeriod(text: string): Period {
  const match = PERIOD.exec(text);
  if (!match) {
    throw new ApiProblem("invalid_request", "period must be a month as YYYY-MM, e.g. 2026-11.", {
      extensions: { errors: [{ location: "query", pointer: "/period", detail: "Expected YYYY-MM" }] },
    });
  }
  const year = Number(match[1]);
  const month = Number(match[2]);
  const start = new Date(Date.UTC(year, month - 1, 1));
  const end = new Date(Date.UTC(year, month, 1));
  const label = new Intl.DateTimeFormat("en", { month: "long", year: "numeric", timeZone: "UTC" }).format(start);
  return { id: text, label, start, end };
}

export interface ClientReportModel {
  site: { url: string; site: string; environment: string | null; title: string | null };
  period: Period;
  branding: Branding;
  generatedAt: Date;
  /** The month's completed reports, oldest first. */
  points: ScorePoint[];
  /** The last completed report before the month, for "since last month". */
  previous: ScorePoint | null;
  first: Report;
  last: Report;
  /** First → last of the month; null when the month has one report. */
  diff: Diff | null;
  /** Component updates, additions and removals during the month. */
  componentChanges: ComponentChange[];
  metricChanges: MetricChange[];
  fixedChecks: CheckChange[];
  fixedVulnerabilities: VulnerabilityChange[];
  /** What got worse during the month (failing at the end, not at the start). */
  regressions: CheckChange[];
  /** Still failing at the end of the month, most severe first, each with its remediation. */
  openChecks: Check[];
  openVulnerabilities: OpenVulnerability[];
  /** How far the last report's vulnerabilities were checked: an empty list means "none" only when complete. */
  vulnerabilityCoverage: VulnerabilityCoverage;
  /** The last report's checks that could not run, with their titles and reasons (site text cleaned). */
  notChecked: { check: string; title: string; reason: string }[];
  /** How many checks of the last report could not run (summary.not_checked, else notChecked's length). */
  checksNotRun: number;
  /** The intel sources of the last report whose terms ask for attribution. */
  sources: IntelSource[];
}

function pointOf(report: Report): ScorePoint | null {
  if (!report.summary) return null;
  return {
    report_id: report.id,
    created_at: report.created_at,
    score: report.summary.score,
    grade: report.summary.grade,
  };
}

/** Everything shown in a check, with its site text made one clean line. */
function cleanCheck<T extends { message: string; evidence: string[] }>(check: T): T {
  return {
    ...check,
    message: siteText(check.message, 1_000) ?? "",
    evidence: check.evidence.map((line) => siteText(line, 300) ?? "").filter(Boolean),
  };
}

/**
 * The model of the report. `reports`: the site's completed reports of the month, oldest first
 * (at least one); `previous`: the newest completed report before the month, if any.
 */
export function clientReportModel(input: {
  reports: Report[];
  previous: ScorePoint | null;
  period: Period;
  branding: Branding;
  site: { url: string; site: string; environment: string | null };
  now?: Date;
}): ClientReportModel {
  const first = input.reports[0];
  const last = input.reports.at(-1);
  if (!first || !last) throw new Error("a client report needs at least one report");
  const compared = first.id === last.id ? null : diff(first, last, { failOn: "none" });
  const components = componentsOf(last);
  return {
    site: { ...input.site, title: siteText(last.seo?.title) },
    period: input.period,
    branding: input.branding,
    generatedAt: input.now ?? new Date(),
    points: input.reports.map(pointOf).filter((point): point is ScorePoint => point !== null),
    previous: input.previous,
    first,
    last,
    diff: compared,
    componentChanges: (compared?.components ?? []).map((change) => ({ ...change, name: siteText(change.name) })),
    metricChanges: compared?.metrics ?? [],
    // A check that went from failing (or warning) to passing: what was fixed.
    fixedChecks: (compared?.improvements ?? [])
      .filter((change) => (change.before === "fail" || change.before === "warn") && change.after === "pass")
      .map(cleanCheck),
    fixedVulnerabilities: compared?.fixed_vulnerabilities ?? [],
    regressions: (compared?.regressions ?? []).filter((change) => !change.new_check).map(cleanCheck),
    openChecks: failingChecks(last).map(cleanCheck),
    openVulnerabilities: openVulnerabilities(components),
    vulnerabilityCoverage: vulnerabilityCoverage(last),
    notChecked: (last.not_checked ?? []).map((entry) => ({
      check: entry.check,
      title: last.checks.find((check) => check.id === entry.check)?.title ?? entry.check,
      reason: siteText(entry.reason, 500) ?? "",
    })),
    checksNotRun: checksNotRun(last),
    sources: (last.intel?.sources ?? []).filter((source) => source.attribution),
  };
}
