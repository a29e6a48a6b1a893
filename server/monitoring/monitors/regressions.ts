/**
 * What a monitor's finished run tells: a listener on the reports' outcomes
 * (reports/report-outcomes.ts), run in the transaction that stores the report. A completed run
 * is judged against its baseline by the Action's rule — ReportHistoryService.judge with
 * `last-passing` and the monitor's fail_on and assertions, which records the report's gate
 * verdict as the Action's diff call does, so the next run's baseline follows the same rule —
 * and a failed gate emits `monitor.regressed`. A run with no grade where its baseline had one
 * fails the gate (the diff engine says so), as in the Action.
 */
import { parseDiffOptions } from "../../../shared/diff-options.ts";
import type { Queryable } from "../../platform/db/database.ts";
import type { ReportHistoryService } from "../../reports/report-history.service.ts";
import type { ReportOutcome } from "../../reports/report-outcomes.ts";
import type { EventService } from "../events/event.service.ts";
import { eventReport } from "../events/report-payload.ts";
import { eventMonitor, type MonitorRow } from "./monitors.service.ts";

export function monitorRegressions(history: ReportHistoryService, events: EventService, baseUrl: string) {
  return async (tx: Queryable, outcome: ReportOutcome): Promise<void> => {
    const { accountId, report, monitorId } = outcome;
    if (!monitorId || report.status !== "completed") return;
    const [monitor] = await tx<
      Pick<MonitorRow, "id" | "url" | "environment" | "schedule" | "fail_on" | "assertions">[]
    >`
      select id, url, environment, schedule, fail_on, assertions from monitors
      where id = ${monitorId} and account_id = ${accountId}`;
    // A deleted monitor's last report is judged by nobody.
    if (!monitor) return;
    const options = parseDiffOptions({ failOn: monitor.fail_on, assert: monitor.assertions });
    const judged = await history.within(tx).judge(accountId, report.id, { base: "last-passing", options });
    if (judged.verdict.result !== "fail") return;
    await events.emit(
      accountId,
      "monitor.regressed",
      {
        monitor: eventMonitor(monitor),
        report: eventReport(report, baseUrl),
        baseline: { id: judged.baseline.id, rule: judged.baseline.rule, reason: judged.baseline.reason },
        verdict: judged.verdict,
        regressions: judged.regressions,
      },
      { tx },
    );
  };
}
