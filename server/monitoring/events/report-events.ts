/**
 * `report.completed` and `report.failed`: a listener on the reports feature's outcomes
 * (reports/report-outcomes.ts), so each event is written in the transaction that stores the
 * report — exactly one event per finished report, whichever worker (or the sweeper) finished it.
 */
import type { Queryable } from "../../platform/db/database.ts";
import type { ReportOutcome } from "../../reports/report-outcomes.ts";
import type { EventService } from "./event.service.ts";
import { eventReport, failedEventReport } from "./report-payload.ts";

export function reportEvents(events: EventService, baseUrl: string) {
  return async (tx: Queryable, outcome: ReportOutcome): Promise<void> => {
    const { accountId, report, failure, monitorId } = outcome;
    if (report.status === "failed") {
      const error = failure ?? { code: "internal_error", detail: "The analysis failed." };
      await events.emit(
        accountId,
        "report.failed",
        { report: failedEventReport(report, error, baseUrl), monitor_id: monitorId },
        { tx },
      );
    } else {
      await events.emit(
        accountId,
        "report.completed",
        { report: eventReport(report, baseUrl), monitor_id: monitorId },
        { tx },
      );
    }
  };
}
