/**
 * Wiring: builds every service from the configuration and a database, once per process.
 * Routes receive what they need from here; nothing reaches for globals.
 */
import { availableParallelism } from "node:os";
import type Stripe from "stripe";
import { AccountAuthService, AccountService } from "./accounts/account.service.ts";
import { SignInService } from "./accounts/sign-in.service.ts";
import { enumerationPlan, MAX_CANDIDATES } from "./analyzer/enumeration/plan.ts";
import { DEFAULT_CLIENT_LIMITS } from "./analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "./analyzer/fetch/target-policy.ts";
import { AnalysisThreads, poolSize } from "./analyzer/threads/analysis-threads.ts";
import { ANALYZER_USER_AGENT } from "./analyzer/user-agent.ts";
import { DisabledBillingProvider } from "./billing/disabled.provider.ts";
import type { BillingProvider } from "./billing/provider.ts";
import { createStripeClient, PriceBook } from "./billing/stripe.client.ts";
import { StripeBillingProvider } from "./billing/stripe.provider.ts";
import { SubscriptionService } from "./billing/subscriptions.ts";
import { TestModeBillingProvider } from "./billing/test-mode.provider.ts";
import { StripeWebhookService } from "./billing/webhooks.service.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import { IdempotencyService } from "./idempotency/idempotency.service.ts";
import { DirectoryStore } from "./intel/directory/directory.store.ts";
import { DirectoryRefresher } from "./intel/directory/directory-refresh.ts";
import { importIntelFile } from "./intel/importer.ts";
import { IntelService } from "./intel/intel.service.ts";
import { IntelStore } from "./intel/intel.store.ts";
import { createIntelRefreshQueue } from "./intel/intel-jobs.ts";
import { LatestVersions } from "./intel/latest-versions.ts";
import { IntelRefresher } from "./intel/refresh.ts";
import { WporgClient } from "./intel/wporg.ts";
import { WpvulnerabilityClient } from "./intel/wpvulnerability.ts";
import { WpvulnerabilityLookups } from "./intel/wpvulnerability-lookups.ts";
import type { Logger } from "./logging/logger.ts";
import { createMonitoring, type Monitoring } from "./monitoring/monitoring.ts";
import { BrandingService } from "./portfolio/branding.service.ts";
import { ClientReportService } from "./portfolio/client-report.service.ts";
import { PdfRenderer } from "./portfolio/pdf-renderer.ts";
import { PortfolioService } from "./portfolio/portfolio.service.ts";
import { PortfolioStore } from "./portfolio/portfolio.store.ts";
import { AnalysisWorker, TICK_MS } from "./queue/analysis-worker.ts";
import { Slots } from "./queue/host-slots.ts";
import { type JobQueue, jobExpirySeconds, openJobQueue } from "./queue/job-queue.ts";
import { createMetrics, type QueueMetrics } from "./queue/metrics.ts";
import { TargetLimits } from "./queue/target-limits.ts";
import { QuotaService, RESERVATION_GRACE_MS } from "./quota/quota.service.ts";
import { createRateLimiter, type RateLimiter } from "./ratelimit/limiter.ts";
import { ReportHistoryService } from "./reports/report-history.service.ts";
import { type AnalyzeFn, ReportService } from "./reports/reports.service.ts";
import { SiteAuthVault } from "./reports/site-auth-vault.ts";
import { TokenService } from "./tokens/token.service.ts";
import { SERVICE_USER_AGENT } from "./version.ts";
import { SessionService } from "./web/session.service.ts";

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
  history: ReportHistoryService;
  limiter: RateLimiter;
  policy: TargetPolicy;
  queue: JobQueue;
  /** The worker role's job runner; started by runtime.ts when the role includes it. */
  worker: AnalysisWorker;
  metrics: QueueMetrics;
  /** Issue 25: the events outbox, webhooks, email alerts (server/monitoring/). */
  monitoring: Monitoring;
  /** Portfolio and client reports (issue 25): sites, components, branding, HTML/PDF reports. */
  portfolio: PortfolioService;
  branding: BrandingService;
  clientReports: ClientReportService;
  close(): Promise<void>;
}

/** How long a host slot outlives its worker's last renewal (every TICK_MS). */
const HOST_SLOT_LEASE_MS = TICK_MS * 8;

/** The one Stripe SDK client and price book of the process, when Stripe is configured. */
interface StripeParts {
  client: Stripe;
  prices: PriceBook;
}

/**
 * Stripe when its keys are configured; the clearly labelled test mode where it is allowed
 * (see BillingMode: `local` narrows it to browsers on this machine in the web routes);
 * otherwise no self-service plan changes at all.
 */
function billingProvider(
  config: Config,
  stripe: StripeParts | undefined,
  subscriptions: SubscriptionService,
  logger: Logger,
): BillingProvider {
  switch (config.billingMode) {
    case "stripe":
      if (!stripe) throw new Error("BILLING_MODE=stripe without Stripe settings");
      return new StripeBillingProvider(stripe.client, stripe.prices, logger);
    case "test":
      return new TestModeBillingProvider(subscriptions);
    case "off":
      return new DisabledBillingProvider();
  }
}

/**
 * How long the pieces of one report may take, derived from the configuration:
 * - a job must start (or restart after a crashed worker) within `startWithinMs` of its creation;
 * - its credit and its report are given up after `holdMs` (the sweeper then returns the credit
 *   and fails the report), which covers waiting, one retry and the analysis itself.
 */
export function reportDeadlines(config: Pick<Config, "analysisTimeoutMs" | "queueWaitMs">) {
  const expireInSeconds = jobExpirySeconds(config.analysisTimeoutMs);
  const startWithinMs = config.queueWaitMs + expireInSeconds * 1000;
  return { startWithinMs, holdMs: startWithinMs + config.analysisTimeoutMs + RESERVATION_GRACE_MS };
}

export async function createServices(
  config: Config,
  logger: Logger,
  db: Database,
  overrides: { analyze?: AnalyzeFn; limiter?: RateLimiter; billing?: BillingProvider } = {},
): Promise<Services> {
  const { sql } = db;
  const policy = new TargetPolicy(config.targetAllowlist);
  // Kept for compatibility, but "127.0.0.1" also exposes that host's PostgreSQL and Redis.
  for (const entry of policy.allPortEntries) {
    logger.warn("TARGET_ALLOWLIST entry has no port: the analyzer may reach every port of it; name one (host:port)", {
      entry,
    });
  }
  const limits = { ...DEFAULT_CLIENT_LIMITS, maxTotalBytes: config.analysisMaxBytes };
  const deadlines = reportDeadlines(config);
  const quota = new QuotaService(sql, deadlines.holdMs);
  // Keys are bound to their report in the report's own transaction (idempotency.service.ts).
  const idempotency = new IdempotencyService(sql);
  const limiter = overrides.limiter ?? createRateLimiter(config.redisUrl, logger);
  const intelStore = new IntelStore(sql, undefined, db.kind === "embedded");
  // A bad intel file stops the start-up with its reason, rather than reports without data;
  // an unchanged one is not imported again.
  if (config.intelFile) await importIntelFile(intelStore, config.intelFile);
  const wporg = config.intel.wporgApiUrl ? new WporgClient(config.intel.wporgApiUrl, SERVICE_USER_AGENT) : null;
  const latestVersions = new LatestVersions(intelStore, wporg, logger);
  const wpvulnerability = new WpvulnerabilityLookups(
    intelStore,
    config.intel.wpvulnerabilityApiUrl
      ? new WpvulnerabilityClient(config.intel.wpvulnerabilityApiUrl, SERVICE_USER_AGENT)
      : null,
    logger,
  );
  const intel = new IntelService(intelStore, latestVersions, config.intel.lookupBudgetMs, wpvulnerability);
  const names = new DirectoryStore(sql);
  const namesRefresher = new DirectoryRefresher(names, config.intel.wporgApiUrl ?? null, SERVICE_USER_AGENT, logger);
  const intelRefresher = new IntelRefresher(
    intelStore,
    latestVersions,
    config.intel,
    SERVICE_USER_AGENT,
    logger,
    namesRefresher,
  );
  // Analyses run on threads, so that parsing a big page never stalls this event loop.
  const threads = new AnalysisThreads(
    { allowlist: config.targetAllowlist, dnsServers: config.dnsServers, userAgent: ANALYZER_USER_AGENT, limits },
    poolSize(config.workerConcurrency, availableParallelism()),
    intel.lookup,
    undefined,
    (query) => names.lookup(query),
  );
  // Aggressive mode: the enumeration's plan (vulnerable slugs first) is made here, where the
  // intel database is; the thread gets it as plain data.
  const analyzeSite: AnalyzeFn =
    overrides.analyze ??
    (async (url, signal, request) => {
      const pace = request?.requestsPerSecond;
      if (request?.mode !== "aggressive") return threads.analyze(url, signal, undefined, pace, request?.siteAuth);
      const budget = {
        ...config.enumeration,
        maxRequests: Math.min(config.enumeration.maxRequests, request.aggressiveRequests ?? Number.POSITIVE_INFINITY),
      };
      const plan = enumerationPlan(await intel.vulnerableSlugs(MAX_CANDIDATES), budget);
      return threads.analyze(url, signal, plan, pace, request.siteAuth);
    });
  const subscriptions = new SubscriptionService(sql);
  // Built once: the billing provider (Checkout, Portal) and the webhook service share it.
  const stripe: StripeParts | undefined = config.stripe
    ? { client: createStripeClient(config.stripe), prices: new PriceBook(config.stripe.prices) }
    : undefined;
  const metrics = createMetrics(sql);
  const targets = new TargetLimits(sql, {
    hostConcurrency: config.hostConcurrency,
    targetMaxRps: config.targetMaxRps,
    aggressivePerHour: config.targetAggressivePerHour,
    dnsServers: config.dnsServers,
  });
  const queue = await openJobQueue(config, db, logger);
  await createIntelRefreshQueue(queue.boss, config.intel);
  // Site credentials reach the worker sealed (reports/site-auth-vault.ts): with SITE_AUTH_KEY, or
  // on the embedded database (one process queues and analyses) with a key made now, in memory.
  const siteAuth = config.siteAuthKeys
    ? new SiteAuthVault(sql, config.siteAuthKeys)
    : db.kind === "embedded"
      ? SiteAuthVault.ephemeral(sql)
      : undefined;
  const reports = new ReportService({
    sql,
    siteAuth,
    quota,
    idempotency,
    queue,
    policy,
    staleAfterMs: deadlines.holdMs,
    queueMaxDepth: config.queueMaxDepth,
    syncWaitMs: config.syncWaitMs,
    logger,
    metrics,
  });
  const worker = new AnalysisWorker({
    sql,
    quota,
    queue,
    // A slot's lease is renewed every TICK_MS while its analysis runs: a dead worker's slots
    // free themselves within HOST_SLOT_LEASE_MS.
    slots: new Slots(sql, HOST_SLOT_LEASE_MS),
    targets,
    aggressiveMaxRequests: config.enumeration.maxRequests,
    analyze: analyzeSite,
    siteAuth,
    config,
    startWithinMs: deadlines.startWithinMs,
    logger,
    metrics,
  });
  const auth = new AccountAuthService(sql);
  const monitoring = await createMonitoring({ config, db, queue, policy, logger });
  // Portfolio and client reports (issue 25). The monitors feature passes its SiteMonitorSource
  // as PortfolioService's second argument to fill `monitor` in GET /api/sites.
  const portfolioStore = new PortfolioStore(sql);
  const portfolio = new PortfolioService(portfolioStore);
  const branding = new BrandingService(sql);
  const pdf = config.chromiumPath ? new PdfRenderer(config.chromiumPath, logger) : undefined;
  const clientReports = new ClientReportService(portfolioStore, portfolio, branding, pdf);
  return {
    config,
    logger,
    db,
    accounts: new AccountService(sql),
    auth,
    signIn: new SignInService(auth, limiter),
    sessions: new SessionService(sql),
    subscriptions,
    billing: overrides.billing ?? billingProvider(config, stripe, subscriptions, logger),
    stripeWebhooks:
      stripe && config.stripe
        ? new StripeWebhookService({
            stripe: stripe.client,
            webhookSecret: config.stripe.webhookSecret,
            prices: stripe.prices,
            sql,
            logger,
          })
        : undefined,
    intel,
    intelRefresher,
    names,
    tokens: new TokenService(sql),
    quota,
    idempotency,
    reports,
    history: new ReportHistoryService(sql),
    limiter,
    policy,
    queue,
    worker,
    metrics,
    monitoring,
    portfolio,
    branding,
    clientReports,
    async close() {
      await monitoring.close();
      await queue.stop({ graceful: false, timeoutMs: 1_000 });
      await pdf?.close();
      await limiter.close();
      await threads.close();
    },
  };
}
