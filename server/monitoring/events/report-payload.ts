/**
 * The `report` part of report events, built from a stored report, so that every emitter —
 * the report worker (report.completed, report.failed), the monitors (monitor.regressed) —
 * says the same thing the same way: the fields shared/events.ts names, and links to the
 * report in the API and on the web under PUBLIC_BASE_URL.
 */
import type { EventData, EventReport } from "../../../shared/events.ts";
import type { Report } from "../../../shared/report.ts";
import { checksNotRun, isIncompleteReport, vulnerabilityCoverage } from "../../../shared/report-coverage.ts";

type FailedEventReport = EventData<"report.failed">["report"];

function links(baseUrl: string, id: string): EventReport["links"] {
  return { api: `${baseUrl}/api/report/${id}`, web: `${baseUrl}/reports/${id}` };
}

/** A completed report as `report.completed` and `monitor.regressed` carry it. */
export function eventReport(report: Report, baseUrl: string): EventReport {
  // What the report did not check stands beside its grade, so no receiver reads unknown as "none".
  const coverage = vulnerabilityCoverage(report);
  return {
    id: report.id,
    url: report.url,
    environment: report.metadata.environment ?? null,
    status: report.status === "failed" ? "failed" : "completed",
    grade: report.summary?.grade ?? null,
    score: report.summary?.score ?? null,
    created_at: report.created_at,
    completed_at: report.completed_at,
    incomplete: report.status === "completed" && isIncompleteReport(report),
    vulnerability_data: coverage.status,
    vulnerabilities_unchecked: coverage.unchecked,
    not_checked: checksNotRun(report),
    links: links(baseUrl, report.id),
  };
}

/** A failed report as `report.failed` carries it: the failure's problem code and its words. */
export function failedEventReport(
  report: Report,
  failure: { code: string; detail: string },
  baseUrl: string,
): FailedEventReport {
  return {
    id: report.id,
    url: report.url,
    environment: report.metadata.environment ?? null,
    status: "failed",
    error: { code: failure.code, detail: failure.detail },
    created_at: report.created_at,
    links: links(baseUrl, report.id),
  };
}
