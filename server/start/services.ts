/**
 * Wiring: builds every feature once per process, from the configuration and a database, in the
 * order they depend on each other. Each feature's own factory (`create…` in its folder) knows
 * how it is put together; this file only passes each one what it needs. Routes receive what
 * they need from here; nothing reaches for globals.
 */
import { IdempotencyService } from "../access/idempotency.service.ts";
import { createRateLimiter, type RateLimiter } from "../access/rate-limiter.ts";
import { TokenService } from "../access/token.service.ts";
import { AccountAuthService, AccountService } from "../accounts/account.service.ts";
import { SignInService } from "../accounts/sign-in.service.ts";
import type { SubscriptionService } from "../accounts/subscriptions.ts";
import { TargetPolicy } from "../analyzer/fetch/target-policy.ts";
import { createBilling } from "../billing/billing.ts";
import type { BillingProvider } from "../billing/provider.ts";
import { QuotaService } from "../billing/quota.service.ts";
import type { StripeWebhookService } from "../billing/stripe-webhooks.service.ts";
import type { DirectoryStore } from "../intel/directory/directory.store.ts";
import type { IntelService } from "../intel/intel.service.ts";
import { createIntel } from "../intel/intel.ts";
import { createIntelRefreshQueue } from "../intel/intel-jobs.ts";
import type { IntelRefresher } from "../intel/refresh.ts";
import { createMonitoring, type Monitoring } from "../monitoring/monitoring.ts";
import type { Database } from "../platform/db/database.ts";
import { withinDeadline } from "../platform/deadline.ts";
import type { Logger } from "../platform/logger.ts";
import { createServiceMetrics, type ServiceMetrics } from "../platform/prometheus.ts";
import { openQueueEngine, type QueueEngine } from "../platform/queue.ts";
import type { BrandingService } from "../portfolio/branding.service.ts";
import type { ClientReportService } from "../portfolio/client-report.service.ts";
import type { PortfolioService } from "../portfolio/portfolio.service.ts";
import { createPortfolio } from "../portfolio/portfolio.ts";
import type { AnalysisQueue } from "../reports/analysis-queue.ts";
import type { AnalysisWorker } from "../reports/analysis-worker.ts";
import type { ReportHistoryService } from "../reports/report-history.service.ts";
import type { ReportOutcomes } from "../reports/report-outcomes.ts";
import type { AnalyzeFn, ReportService } from "../reports/reports.service.ts";
import { createReports } from "../reports/reports.ts";
import { SessionService } from "../web/session.service.ts";
import type { Config } from "./config.ts";

export interface Services {
  config: Config;
  logger: Logger;
  db: Database;
  accounts: AccountService;
  auth: AccountAuthService;
  /** Sign-up, sign-in and password changes: the rules the web's forms go through. */
  signIn: SignInService;
  sessions: SessionService;
  subscriptions: SubscriptionService;
  billing: BillingProvider;
  /** Stripe's event deliveries; absent when Stripe is not configured. */
  stripeWebhooks: StripeWebhookService | undefined;
  /** Component intelligence: the per-report lookup, the store, the refresher. */
  intel: IntelService;
  intelRefresher: IntelRefresher;
  /** The WordPress.org names index: name → slug lookups for reports (docs/intel.md). */
  names: DirectoryStore;
  tokens: TokenService;
  quota: QuotaService;
  idempotency: IdempotencyService;
  reports: ReportService;
  /** Where features learn of reports that end (reports/report-outcomes.ts). */
  reportOutcomes: ReportOutcomes;
  history: ReportHistoryService;
  limiter: RateLimiter;
  policy: TargetPolicy;
  /** The job queue engine every feature's queues run on (platform/queue.ts). */
  queue: QueueEngine;
  analysisQueue: AnalysisQueue;
  /** The worker role's job runner; started by start/runtime.ts when the role includes it. */
  worker: AnalysisWorker;
  metrics: ServiceMetrics;
  /** Issue 25: the events outbox, webhooks, email alerts (server/monitoring/). */
  monitoring: Monitoring;
  /** Portfolio and client reports (issue 25): sites, components, branding, HTML/PDF reports. */
  portfolio: PortfolioService;
  branding: BrandingService;
  clientReports: ClientReportService;
  close(): Promise<void>;
}

/** How long closing may wait for the job queue's workers to let go. */
const QUEUE_STOP_DEADLINE_MS = 3_000;

export async function createServices(
  config: Config,
  logger: Logger,
  db: Database,
  overrides: { analyze?: AnalyzeFn; limiter?: RateLimiter; billing?: BillingProvider } = {},
): Promise<Services> {
  const { sql } = db;
  const policy = new TargetPolicy(config.reports.targetAllowlist);
  // Kept for compatibility, but "127.0.0.1" also exposes that host's PostgreSQL and Redis.
  for (const entry of policy.allPortEntries) {
    logger.warn("TARGET_ALLOWLIST entry has no port: the analyzer may reach every port of it; name one (host:port)", {
      entry,
    });
  }
  const quota = new QuotaService(sql);
  const idempotency = new IdempotencyService(sql);
  const limiter = overrides.limiter ?? createRateLimiter(config.platform.redisUrl, logger);
  const intel = await createIntel(config.intel, db, logger);
  const metrics = createServiceMetrics(sql);
  const queue = await openQueueEngine(config.platform, db, logger);
  await createIntelRefreshQueue(queue.boss, config.intel);
  const reports = await createReports({
    config,
    db,
    logger,
    engine: queue,
    policy,
    quota,
    idempotency,
    intel: intel.intel,
    names: intel.names,
    metrics,
    analyze: overrides.analyze,
  });
  const billing = createBilling(config.billing, sql, logger, overrides.billing);
  const auth = new AccountAuthService(sql);
  // Monitoring listens to the reports that end (events, monitors' verdicts, the sites' components)…
  const monitoring = await createMonitoring({ config, db, queue, policy, logger, reports });
  // …and to the advisories an intel import adds (vulnerability.found), INTEL_FILE's included:
  // so that file is imported only now, with every listener in place.
  intel.advisoriesAdded.listen(monitoring.vulnerabilities.advisoriesAdded);
  await intel.importIntelFile().catch(async (error: unknown) => {
    // A bad INTEL_FILE stops the start-up: let go of what is open already.
    await monitoring.close().catch(() => {});
    await queue.stop({ graceful: false, timeoutMs: 1_000 }).catch(() => {});
    await reports.close().catch(() => {});
    throw error;
  });
  const portfolio = createPortfolio(config.platform, sql, logger, monitoring.monitors);
  return {
    config,
    logger,
    db,
    accounts: new AccountService(sql),
    auth,
    signIn: new SignInService(auth, limiter),
    sessions: new SessionService(sql),
    ...billing,
    intel: intel.intel,
    intelRefresher: intel.intelRefresher,
    names: intel.names,
    tokens: new TokenService(sql),
    quota,
    idempotency,
    reports: reports.reports,
    reportOutcomes: reports.outcomes,
    history: reports.history,
    analysisQueue: reports.analysisQueue,
    worker: reports.worker,
    limiter,
    policy,
    queue,
    metrics,
    monitoring,
    portfolio: portfolio.portfolio,
    branding: portfolio.branding,
    clientReports: portfolio.clientReports,
    async close() {
      // The queue's workers may hang on a connection the database dropped (platform/deadline.ts).
      await withinDeadline(monitoring.close(), QUEUE_STOP_DEADLINE_MS, "stopping monitoring's workers", logger);
      await withinDeadline(
        queue.stop({ graceful: false, timeoutMs: 1_000 }),
        QUEUE_STOP_DEADLINE_MS,
        "stopping the job queue",
        logger,
      );
      await portfolio.close();
      await limiter.close();
      await reports.close();
    },
  };
}
