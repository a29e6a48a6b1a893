/**
 * Per-plan shares of the service (docs/plans.md, "Fair queues"): Free accounts together get at
 * most a fixed share of the global queue and of each worker's analysis slots, so that paying
 * plans keep the rest under any flood of free accounts (issue 30: 70 Free accounts × 3 reports
 * of a dead site filled QUEUE_MAX_DEPTH, and an Enterprise account got 503 overloaded).
 *
 * Per-account limits cannot do this: each Free account stays within its own 3 queued and 1 at
 * once; it is their number that floods. Paying accounts are held by their plans' limits and
 * by what they pay, so they share the rest as before (fair order, per-account slots).
 */
import type { PlanId } from "../billing/plans.ts";

/** Free accounts together: at most this share of QUEUE_MAX_DEPTH queued or running. */
export const FREE_QUEUE_SHARE = 0.25;
/** Free accounts together: at most this share of each worker process's WORKER_CONCURRENCY. */
export const FREE_WORKER_SHARE = 0.5;

export const isFreePlan = (plan: PlanId | undefined): boolean => plan === undefined || plan === "free";

/** Free reports the whole service admits at once (QUEUE_MAX_DEPTH 200 → 50). */
export function freeQueueCap(queueMaxDepth: number): number {
  return Math.max(1, Math.floor(queueMaxDepth * FREE_QUEUE_SHARE));
}

/**
 * Free analyses one worker process runs at once (WORKER_CONCURRENCY 4 → 2). At least one, so
 * free reports still run on a worker with a single slot (where no share can be kept).
 */
export function freeWorkerCap(workerConcurrency: number): number {
  return Math.max(1, Math.floor(workerConcurrency * FREE_WORKER_SHARE));
}
