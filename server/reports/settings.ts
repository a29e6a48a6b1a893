/**
 * The settings of reports: what may be analysed (targets, DNS), each analysis's deadline and
 * budgets, the queue and the workers, how hard one target is pushed, site credentials' keys,
 * and the lab. Read with the platform's shared parsers; start/config.ts composes them.
 */
import { DEFAULT_ENUMERATION_BUDGET, type EnumerationBudget } from "../analyzer/enumeration/plan.ts";
import { parseDnsServers } from "../analyzer/fetch/dns-servers.ts";
import { parseAllowlist } from "../analyzer/fetch/target-policy.ts";
import { isPlanId, PLANS, type PlanId } from "../billing/plans.ts";
import type { SettingsReader } from "../platform/settings-reader.ts";
import { parseSiteAuthKeys } from "./site-auth-vault.ts";

export interface ReportsSettings {
  /** Hosts, IPs or CIDRs the target policy lets through although private. */
  targetAllowlist: string[];
  /** DNS servers (`IP` or `IP:port`) the analyzer resolves site names with; empty → the system resolver. */
  dnsServers: string[];
  /** Hard deadline for one analysis, in milliseconds. */
  analysisTimeoutMs: number;
  /** Budgets of the opt-in aggressive enumeration (docs/enumeration.md). */
  enumeration: EnumerationBudget;
  /** Analyses one worker process runs at once. */
  workerConcurrency: number;
  /** Analyses of one target at once — one canonical host, and one resolved address — across every worker. */
  hostConcurrency: number;
  /** TARGET_ADDRESS_CONCURRENCY: analyses at once of all sites on one address (shared hosting, CDNs). */
  targetAddressConcurrency: number;
  /** Requests per second to one target, all analyses together (0: no pace); docs/target-policy.md. */
  targetMaxRps: number;
  /** Aggressive enumeration requests one target gets per hour, all accounts together. */
  targetAggressivePerHour: number;
  /** DEAD_TARGET_WINDOW_MS: how long a target that gave no answer is checked quickly first (0: never). */
  deadTargetWindowMs: number;
  /** DEAD_TARGET_CHECK_MS: that quick check's deadline for a connect and the first byte. */
  deadTargetCheckMs: number;
  /** Analyses per account at once, by plan (defaults from the plan catalogue). */
  accountConcurrency: Record<PlanId, number>;
  /** Queued + running analyses past which new ones are refused with 503 overloaded. */
  queueMaxDepth: number;
  /** How long a queued analysis may wait for a worker before it fails (credit returned). */
  queueWaitMs: number;
  /** How long a synchronous generate-report call waits before answering 202 instead. */
  syncWaitMs: number;
  /** Bytes one analysis may download in all; past it the report is partial. */
  analysisMaxBytes: number;
  /**
   * SITE_AUTH_KEY: keys that seal site credentials on their way to a worker (the first seals,
   * all open). Unset → a key in memory on the embedded database; site credentials refused on
   * PostgreSQL. Secrets: never logged.
   */
  siteAuthKeys: Uint8Array[] | undefined;
  /**
   * Lab runs (docs/report.md, "Lab"): at most `concurrency` per worker process, on their own
   * queue (LAB_CONCURRENCY); the browser's hard deadline (LAB_TIMEOUT_MS, on top of the
   * analysis's) and memory cap (LAB_MAX_MEMORY_MB). They use CHROMIUM_PATH.
   */
  lab: { concurrency: number; timeoutMs: number; maxMemoryMb: number };
}

export function parseReportsSettings(settings: SettingsReader): ReportsSettings {
  const { read, int, problems } = settings;
  const targetAllowlist = (read("TARGET_ALLOWLIST") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  problems.push(...parseAllowlist(targetAllowlist).problems);
  const dns = parseDnsServers((read("DNS_SERVERS") ?? "").split(","));
  problems.push(...dns.problems);

  const accountConcurrency = (): Record<PlanId, number> => {
    const limits = Object.fromEntries(PLANS.map((plan) => [plan.id, plan.concurrentAnalyses])) as Record<
      PlanId,
      number
    >;
    for (const pair of (read("ACCOUNT_CONCURRENCY") ?? "").split(",").map((item) => item.trim())) {
      if (!pair) continue;
      const [plan = "", value = ""] = pair.split("=").map((part) => part.trim());
      if (!isPlanId(plan) || !/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 100) {
        problems.push(`ACCOUNT_CONCURRENCY entry "${pair}" must look like free=1 (a plan id and 1-100)`);
        continue;
      }
      limits[plan] = Number(value);
    }
    return limits;
  };

  const analysisTimeoutMs = int("ANALYSIS_TIMEOUT_MS", 30_000, 1_000, 300_000);
  const workerConcurrency = int("WORKER_CONCURRENCY", 4, 1, 64);
  const hostConcurrency = int("HOST_CONCURRENCY", 2, 1, 50);
  const targetAddressConcurrency = int("TARGET_ADDRESS_CONCURRENCY", 4, 1, 200);
  const targetMaxRps = int("TARGET_MAX_RPS", 60, 0, 10_000);
  const targetAggressivePerHour = int("TARGET_AGGRESSIVE_PER_HOUR", 1_000, 0, 1_000_000);
  const deadTargetWindowMs = int("DEAD_TARGET_WINDOW_MS", 60_000, 0, 3_600_000);
  const deadTargetCheckMs = int("DEAD_TARGET_CHECK_MS", 5_000, 500, 30_000);
  const limits = accountConcurrency();
  const queueMaxDepth = int("QUEUE_MAX_DEPTH", 200, 1, 100_000);
  const queueWaitMs = int("QUEUE_WAIT_MS", 120_000, 1_000, 3_600_000);
  const analysisMaxBytes = int("ANALYSIS_MAX_BYTES", 32 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024);
  const lab = {
    concurrency: int("LAB_CONCURRENCY", 1, 1, 16),
    timeoutMs: int("LAB_TIMEOUT_MS", 60_000, 5_000, 300_000),
    maxMemoryMb: int("LAB_MAX_MEMORY_MB", 1_536, 256, 65_536),
  };
  const siteAuth = parseSiteAuthKeys(read("SITE_AUTH_KEY"));
  problems.push(...siteAuth.problems);
  const maxRequests = int("AGGRESSIVE_MAX_REQUESTS", DEFAULT_ENUMERATION_BUDGET.maxRequests, 10, 5_000);
  const syncWaitMs = int("SYNC_WAIT_MS", analysisTimeoutMs + 15_000, 1_000, 600_000);
  // The enumeration runs after the passive requests, inside the report's deadline: by default
  // 12 s or half the deadline, whichever is less; set higher than half, it is refused.
  const halfDeadline = Math.floor(analysisTimeoutMs / 2);
  const timeBudgetMs = int(
    "AGGRESSIVE_TIME_BUDGET_MS",
    Math.min(DEFAULT_ENUMERATION_BUDGET.timeBudgetMs, halfDeadline),
    500,
    240_000,
  );
  if (timeBudgetMs > halfDeadline) {
    problems.push(
      `AGGRESSIVE_TIME_BUDGET_MS (${timeBudgetMs}) must be at most half of ANALYSIS_TIMEOUT_MS (${analysisTimeoutMs}): the passive analysis needs the rest`,
    );
  }
  return {
    targetAllowlist,
    dnsServers: dns.servers,
    analysisTimeoutMs,
    enumeration: { maxRequests, timeBudgetMs },
    workerConcurrency,
    hostConcurrency,
    targetAddressConcurrency,
    targetMaxRps,
    targetAggressivePerHour,
    deadTargetWindowMs,
    deadTargetCheckMs,
    accountConcurrency: limits,
    queueMaxDepth,
    queueWaitMs,
    syncWaitMs,
    analysisMaxBytes,
    siteAuthKeys: siteAuth.keys,
    lab,
  };
}
