/**
 * How long the pieces of one report may take, derived from the configuration:
 * - a job must start (or restart after a crashed worker) within `startWithinMs` of its creation;
 * - its credit and its report are given up after `holdMs` (the sweeper then returns the credit
 *   and fails the report), which covers waiting, one retry and the analysis itself.
 */
import { RESERVATION_GRACE_MS } from "../billing/quota.service.ts";
import type { Config } from "../platform/config.ts";
import { jobExpirySeconds } from "./analysis-queue.ts";

export function reportDeadlines(config: Pick<Config, "analysisTimeoutMs" | "queueWaitMs" | "lab">) {
  // A lab report's analysis may also take LAB_TIMEOUT_MS: the holds cover the longer kind.
  const longest = config.analysisTimeoutMs + config.lab.timeoutMs;
  const expireInSeconds = jobExpirySeconds(longest);
  const startWithinMs = config.queueWaitMs + expireInSeconds * 1000;
  return { startWithinMs, holdMs: startWithinMs + longest + RESERVATION_GRACE_MS };
}
