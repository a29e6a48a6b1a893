/**
 * The reports feature, built once per process (services.ts): admission (ReportService),
 * reading back (ReportHistoryService), the analysis queue and its worker, and the analysis
 * threads the worker runs analyses on. A report's whole life is in this folder.
 */
import { availableParallelism } from "node:os";
import type { IdempotencyService } from "../access/idempotency.service.ts";
import { DEFAULT_CLIENT_LIMITS } from "../analyzer/fetch/safe-client.ts";
import type { TargetPolicy } from "../analyzer/fetch/target-policy.ts";
import { AnalysisThreads, poolSize } from "../analyzer/threads/analysis-threads.ts";
import { ANALYZER_USER_AGENT } from "../analyzer/user-agent.ts";
import type { QuotaService } from "../billing/quota.service.ts";
import type { DirectoryStore } from "../intel/directory/directory.store.ts";
import type { IntelService } from "../intel/intel.service.ts";
import type { Database } from "../platform/db/database.ts";
import type { Logger } from "../platform/logger.ts";
import type { ServiceMetrics } from "../platform/prometheus.ts";
import type { QueueEngine } from "../platform/queue.ts";
import type { PlatformSettings } from "../platform/settings.ts";
import { type AnalysisQueue, createAnalysisQueue } from "./analysis-queue.ts";
import { AnalysisWorker, TICK_MS } from "./analysis-worker.ts";
import { analyzeOnThreads } from "./analyze-site.ts";
import { DeadTargets } from "./dead-targets.ts";
import { reportDeadlines } from "./deadlines.ts";
import { ReportHistoryService } from "./report-history.service.ts";
import { ReportOutcomes } from "./report-outcomes.ts";
import { type AnalyzeFn, ReportService } from "./reports.service.ts";
import type { ReportsSettings } from "./settings.ts";
import { SiteAuthVault } from "./site-auth-vault.ts";
import { Slots } from "./slots.ts";
import { TargetLimits } from "./target-limits.ts";

/** How long a slot outlives its worker's last renewal (every TICK_MS). */
const SLOT_LEASE_MS = TICK_MS * 8;

export interface Reports {
  reports: ReportService;
  history: ReportHistoryService;
  analysisQueue: AnalysisQueue;
  /** The worker role's job runner; started by start/runtime.ts when the role includes it. */
  worker: AnalysisWorker;
  /** Where other features listen for reports that end (report-outcomes.ts). */
  outcomes: ReportOutcomes;
  close(): Promise<void>;
}

export interface ReportsDeps {
  /** The reports feature's settings, and where the platform's Chromium is (for lab runs). */
  config: { reports: ReportsSettings; platform: Pick<PlatformSettings, "chromiumPath"> };
  db: Database;
  logger: Logger;
  engine: QueueEngine;
  policy: TargetPolicy;
  quota: QuotaService;
  idempotency: IdempotencyService;
  intel: IntelService;
  names: DirectoryStore;
  metrics: ServiceMetrics;
  /** Tests replace the analysis (the default runs it on analysis threads). */
  analyze?: AnalyzeFn;
}

export async function createReports(deps: ReportsDeps): Promise<Reports> {
  const { config, db, logger, metrics } = deps;
  const settings = config.reports;
  const { sql } = db;
  const deadlines = reportDeadlines(settings);
  const limits = { ...DEFAULT_CLIENT_LIMITS, maxTotalBytes: settings.analysisMaxBytes };
  const threads = new AnalysisThreads(
    { allowlist: settings.targetAllowlist, dnsServers: settings.dnsServers, userAgent: ANALYZER_USER_AGENT, limits },
    poolSize(settings.workerConcurrency, availableParallelism()),
    deps.intel.lookup,
    undefined,
    (query) => deps.names.lookup(query),
  );
  const analysisQueue = await createAnalysisQueue(settings, deps.engine);
  // Site credentials reach the worker sealed (site-auth-vault.ts): with SITE_AUTH_KEY, or on
  // the embedded database (one process queues and analyses) with a key made now, in memory.
  const siteAuth = settings.siteAuthKeys
    ? new SiteAuthVault(sql, settings.siteAuthKeys)
    : db.kind === "embedded"
      ? SiteAuthVault.ephemeral(sql)
      : undefined;
  const outcomes = new ReportOutcomes(logger);
  const reports = new ReportService({
    outcomes,
    sql,
    siteAuth,
    quota: deps.quota,
    idempotency: deps.idempotency,
    queue: analysisQueue,
    policy: deps.policy,
    deadlines,
    queueMaxDepth: settings.queueMaxDepth,
    syncWaitMs: settings.syncWaitMs,
    logger,
    metrics,
  });
  const worker = new AnalysisWorker({
    outcomes,
    sql,
    quota: deps.quota,
    queue: analysisQueue,
    // A slot's lease is renewed every TICK_MS while its analysis runs: a dead worker's slots
    // free themselves within SLOT_LEASE_MS.
    slots: new Slots(sql, SLOT_LEASE_MS),
    targets: new TargetLimits(sql, {
      hostConcurrency: settings.hostConcurrency,
      addressConcurrency: settings.targetAddressConcurrency,
      targetMaxRps: settings.targetMaxRps,
      aggressivePerHour: settings.targetAggressivePerHour,
      dnsServers: settings.dnsServers,
    }),
    deadTargets: new DeadTargets(sql, { windowMs: settings.deadTargetWindowMs, checkMs: settings.deadTargetCheckMs }),
    aggressiveMaxRequests: settings.enumeration.maxRequests,
    analyze: deps.analyze ?? analyzeOnThreads(threads, deps.intel, config),
    siteAuth,
    config: settings,
    deadlines,
    logger,
    metrics,
  });
  return {
    reports,
    history: new ReportHistoryService(sql),
    analysisQueue,
    worker,
    outcomes,
    close: () => threads.close(),
  };
}
