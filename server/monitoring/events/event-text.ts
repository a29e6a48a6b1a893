/**
 * An event in words, for people: the one-line title and the few lines under it that the
 * Slack-format body, the alert emails, the digest and the web delivery log show. Site text in
 * events is already cleaned where it was stored; it is cleaned again here (one line each,
 * bounded), since these words go to other people's chat channels and mailboxes. Escaping for
 * a particular output (Slack's &<>, HTML) is the renderer's job.
 */
import type { EventData, EventReport, EventType } from "../../../shared/events.ts";
import { checksNotRunText, vulnerabilityCoverageLine } from "../../../shared/report-coverage.ts";
import { oneLine } from "../../../shared/untrusted-text.ts";

export interface EventText {
  /** One line: what happened, to which site. */
  title: string;
  /** Details, one line each (may be empty). */
  lines: string[];
  /** Where to look (a report's web page); null when there is no such page. */
  link: string | null;
}

const clean = (text: string | null | undefined, max = 300) => oneLine(text ?? "", max).trim();
const env = (environment: string | null) => (environment ? ` (${clean(environment, 64)})` : "");
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** Most regression lines listed under a title; the rest are counted. */
const MAX_LINES = 10;

/**
 * What the report did not check (shared/report-coverage.ts), so a grade in a mail or a chat
 * never reads as "no known vulnerabilities" when none were looked up. Events emitted before
 * these fields existed have none of them: nothing is said.
 */
function coverageLines(report: EventReport): string[] {
  if (report.vulnerability_data === undefined && report.not_checked === undefined && !report.incomplete) return [];
  const lines: string[] = [];
  const vulnerabilities = vulnerabilityCoverageLine({
    status: report.vulnerability_data ?? "complete",
    unchecked: report.vulnerabilities_unchecked ?? [],
    incomplete: report.incomplete === true,
  });
  if (vulnerabilities) lines.push(clean(vulnerabilities));
  const checks = checksNotRunText(report.not_checked ?? 0);
  if (checks) lines.push(checks);
  return lines;
}

export function describeEvent<T extends EventType>(type: T, data: EventData<T>): EventText {
  // The switch narrows `type`, not `data`: each branch reads the data of its own type.
  const any = data as EventData<EventType>;
  const kind: EventType = type;
  switch (kind) {
    case "report.completed": {
      const { report } = any as EventData<"report.completed">;
      const grade = report.grade ? `grade ${report.grade}, score ${report.score}` : "no grade";
      return {
        title: report.incomplete
          ? `Report incomplete: ${clean(report.url)}${env(report.environment)} — not graded`
          : `Report completed: ${clean(report.url)}${env(report.environment)} — ${grade}`,
        lines: coverageLines(report),
        link: report.links.web,
      };
    }
    case "report.failed": {
      const { report } = any as EventData<"report.failed">;
      return {
        title: `Analysis failed: ${clean(report.url)}${env(report.environment)}`,
        lines: [`${clean(report.error.code, 64)}: ${clean(report.error.detail)}`],
        link: report.links.web,
      };
    }
    case "monitor.regressed": {
      const { monitor, report, verdict, regressions } = any as EventData<"monitor.regressed">;
      const lines = [
        ...verdict.reasons.map((reason) => clean(reason)),
        ...coverageLines(report),
        ...regressions
          .slice(0, MAX_LINES)
          .map((change) => `[${change.severity}] ${clean(change.title, 200)} (${clean(change.id, 100)})`),
      ];
      if (regressions.length > MAX_LINES) lines.push(`…and ${regressions.length - MAX_LINES} more`);
      return {
        title: `Regression on ${clean(monitor.url)}${env(monitor.environment)}: ${plural(regressions.length, "regression")}, grade ${report.grade ?? "—"}`,
        lines,
        link: report.links.web,
      };
    }
    case "monitor.skipped": {
      const { monitor, reason, detail, scheduled_for } = any as EventData<"monitor.skipped">;
      return {
        title: `Monitor run skipped: ${clean(monitor.url)}${env(monitor.environment)} — ${clean(reason, 64)}`,
        lines: [clean(detail), `Scheduled for ${clean(scheduled_for, 40)}`],
        link: null,
      };
    }
    case "vulnerability.found": {
      const { site, component, advisory } = any as EventData<"vulnerability.found">;
      const name = clean(component.name ?? component.slug, 120);
      const version = component.version ? ` ${clean(component.version, 40)}` : "";
      const lines = [
        `Severity ${advisory.severity}${advisory.cvss_score === null ? "" : ` (CVSS ${advisory.cvss_score})`}${advisory.cve.length > 0 ? `, ${advisory.cve.map((cve) => clean(cve, 40)).join(", ")}` : ""}`,
        advisory.fixed_in
          ? `Fix: update ${clean(component.slug, 120)} to ${clean(advisory.fixed_in, 40)}`
          : `No fix available: remove or replace ${clean(component.slug, 120)}`,
        ...advisory.references.slice(0, 3).map((reference) => clean(reference)),
      ];
      return {
        title: `Vulnerability in ${component.type} ${name}${version} on ${clean(site.url)}${env(site.environment)}: ${clean(advisory.title, 200)}`,
        lines,
        link: null,
      };
    }
    case "webhook.test": {
      const { message } = any as EventData<"webhook.test">;
      return { title: `Test event from wpreport: ${clean(message)}`, lines: [], link: null };
    }
    default: {
      // A new event type must be given its words here: without a branch, this does not compile.
      const unhandled: never = kind;
      throw new Error(`No text for the event type ${String(unhandled)}`);
    }
  }
}
