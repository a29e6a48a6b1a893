/**
 * What other features learn when a report ends: a listener runs inside the transaction that
 * stores the report's final state, so whatever it writes (an event in the outbox, a monitor's
 * run, the site's components) commits exactly when the report does, and never for a report
 * another attempt already finished.
 *
 *   reports.outcomes.listen(async (tx, outcome) => { … });   // services.ts wires them
 *
 * A listener must be quick (a few statements, no network) and must not swallow errors: a
 * failing listener rolls the report's transaction back, and the worker retries it.
 */
import type { Report } from "../../shared/report.ts";
import type { Queryable } from "../platform/db/database.ts";
import type { StoredFailure } from "./report-outcome.ts";

export interface ReportOutcome {
  accountId: string;
  /** The report as stored: completed (incomplete ones too) or failed. */
  report: Report;
  /** The failure's problem code and words; null for a completed report. */
  failure: StoredFailure | null;
  /** The monitor whose run made the report (reports.monitor_id); null otherwise. */
  monitorId: string | null;
  /** Whether the report was charged (false for a failed or incomplete one). */
  billable: boolean;
}

export type ReportOutcomeListener = (tx: Queryable, outcome: ReportOutcome) => Promise<void>;

export class ReportOutcomes {
  private readonly listeners: ReportOutcomeListener[] = [];

  listen(listener: ReportOutcomeListener): void {
    this.listeners.push(listener);
  }

  /** Runs every listener, in the order they were added, in the caller's transaction. */
  async ended(tx: Queryable, outcome: ReportOutcome): Promise<void> {
    for (const listener of this.listeners) await listener(tx, outcome);
  }
}
