/**
 * How long the pieces of one report may take, derived from the configuration and the report's
 * kind (an analysis alone, or one with a lab run, whose browser may also take LAB_TIMEOUT_MS):
 * - a job must start (or restart after a crashed worker) within `startWithinMs` of its creation;
 * - its credit and its report are given up after `holdMs` (the sweeper then returns the credit
 *   and fails the report), which covers waiting, one retry and the analysis itself.
 *
 * The kinds are apart so that a crash costs an ordinary report's owner its credit only for the
 * ordinary deadlines, not for the longest a lab report may take.
 */
import { RESERVATION_GRACE_MS } from "../billing/quota.service.ts";
import { jobExpirySeconds } from "./analysis-queue.ts";
import type { ReportsSettings } from "./settings.ts";

export interface Deadlines {
  startWithinMs: number;
  holdMs: number;
}

export interface ReportDeadlines {
  analysis: Deadlines;
  lab: Deadlines;
  /** The deadlines of a report of that kind. */
  of(kind: { lab?: unknown }): Deadlines;
}

type DeadlineConfig = Pick<ReportsSettings, "analysisTimeoutMs" | "queueWaitMs" | "lab">;

function deadlinesFor(config: DeadlineConfig, runMs: number): Deadlines {
  const startWithinMs = config.queueWaitMs + jobExpirySeconds(runMs) * 1000;
  return { startWithinMs, holdMs: startWithinMs + runMs + RESERVATION_GRACE_MS };
}

export function reportDeadlines(config: DeadlineConfig): ReportDeadlines {
  const analysis = deadlinesFor(config, config.analysisTimeoutMs);
  const lab = deadlinesFor(config, config.analysisTimeoutMs + config.lab.timeoutMs);
  return { analysis, lab, of: (kind) => (kind.lab ? lab : analysis) };
}
