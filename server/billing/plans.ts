/**
 * The plan catalogue (docs/plans.md) — the one source of plan facts. It is written into
 * the `plans` table at every start-up (upsert), so a change here reaches the database
 * with the next deploy, and docs/plans.md's plan table is checked against it by a test.
 */
export interface Plan {
  id: PlanId;
  name: string;
  /** Monthly price in euro cents; null when the plan is not sold on its own. */
  priceEurCents: number | null;
  monthlyQuota: number;
  requestsPerMinute: number;
  /** Analyses of one account that run at once; more wait in the queue (ACCOUNT_CONCURRENCY overrides). */
  concurrentAnalyses: number;
  /**
   * Reports of one account queued or running at once; more are refused (429) before a credit
   * is taken. Well under QUEUE_MAX_DEPTH, so no one account fills the service's queue, and
   * small enough that the last one starts within QUEUE_WAIT_MS when every one of them runs to
   * the analysis deadline: maxQueued / concurrentAnalyses × 30 s ≤ 120 s (docs/plans.md).
   */
  maxQueued: number;
  /**
   * Reports of one account that may fail "site_unreachable" in a minute; past it, new reports
   * are refused (429) until the minute is over. A site that never answers holds a worker for
   * the whole analysis deadline, for free: this bounds what one account's dead targets cost
   * everyone else (docs/plans.md, "Fair queues").
   */
  unreachablePerMinute: number;
  /** Monitors (scheduled audits) the account may have; more are refused (monitor_limit_reached). */
  maxMonitors: number;
}

export const PLAN_IDS = ["free", "premium", "starter", "business", "professional", "enterprise"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const PLANS: readonly Plan[] = [
  {
    id: "free",
    name: "Free",
    priceEurCents: 0,
    monthlyQuota: 3,
    requestsPerMinute: 10,
    concurrentAnalyses: 1,
    maxQueued: 3,
    unreachablePerMinute: 2,
    maxMonitors: 1,
  },
  {
    id: "premium",
    name: "Premium",
    priceEurCents: null,
    monthlyQuota: 15,
    requestsPerMinute: 20,
    concurrentAnalyses: 2,
    maxQueued: 8,
    unreachablePerMinute: 4,
    maxMonitors: 3,
  },
  {
    id: "starter",
    name: "Starter",
    priceEurCents: 1900,
    monthlyQuota: 50,
    requestsPerMinute: 30,
    concurrentAnalyses: 2,
    maxQueued: 8,
    unreachablePerMinute: 4,
    maxMonitors: 5,
  },
  {
    id: "business",
    name: "Business",
    priceEurCents: 3900,
    monthlyQuota: 150,
    requestsPerMinute: 60,
    concurrentAnalyses: 3,
    maxQueued: 12,
    unreachablePerMinute: 6,
    maxMonitors: 20,
  },
  {
    id: "professional",
    name: "Professional",
    priceEurCents: 9900,
    monthlyQuota: 500,
    requestsPerMinute: 120,
    concurrentAnalyses: 5,
    maxQueued: 20,
    unreachablePerMinute: 10,
    maxMonitors: 100,
  },
  {
    id: "enterprise",
    name: "Enterprise",
    priceEurCents: 25900,
    monthlyQuota: 2000,
    requestsPerMinute: 300,
    concurrentAnalyses: 10,
    maxQueued: 40,
    unreachablePerMinute: 20,
    maxMonitors: 500,
  },
];

export function isPlanId(value: string): value is PlanId {
  return (PLAN_IDS as readonly string[]).includes(value);
}

export function getPlan(id: PlanId): Plan {
  const plan = PLANS.find((candidate) => candidate.id === id);
  if (!plan) throw new Error(`unknown plan ${id}`);
  return plan;
}
