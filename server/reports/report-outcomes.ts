/**
 * What other features learn when a report ends: a listener runs inside the transaction that
 * stores the report's final state, so whatever it writes (an event in the outbox, a monitor's
 * run, the site's components) commits exactly when the report does, and never for a report
 * another attempt already finished.
 *
 *   reports.outcomes.listen("site components", async (tx, outcome) => { … });   // monitoring.ts
 *
 * A listener must be quick (a few statements, no network). Each runs in a savepoint of its
 * own: one that fails is rolled back alone and logged, and the report is stored all the same
 * — a bug or a bad row in one feature never leaves a report unfinished, makes the worker crawl
 * the site again, or stops the sweeper. A database that went away fails the whole
 * transaction instead, which the caller retries as before.
 */
import type { Report } from "../../shared/report.ts";
import type { Queryable, Transaction } from "../platform/db/database.ts";
import { isTransientDbError } from "../platform/db/transient.ts";
import type { Logger } from "../platform/logger.ts";
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
  private readonly listeners: { name: string; listener: ReportOutcomeListener }[] = [];

  constructor(private readonly logger: Logger) {}

  /** `name` says whose listener it is in the log line of a failure. */
  listen(name: string, listener: ReportOutcomeListener): void {
    this.listeners.push({ name, listener });
  }

  /** Runs every listener, in the order they were added, each in a savepoint of the caller's transaction. */
  async ended(tx: Transaction, outcome: ReportOutcome): Promise<void> {
    for (const { name, listener } of this.listeners) {
      try {
        await tx.savepoint((savepoint) => listener(savepoint, outcome));
      } catch (error) {
        if (isTransientDbError(error)) throw error;
        this.logger.error("a report outcome listener failed; the report is stored without what it writes", {
          listener: name,
          report_id: outcome.report.id,
          error,
        });
      }
    }
  }
}
