/**
 * Configuration from environment variables, validated once at start-up.
 *
 * The names are part of the public contract (docs/api.md, "Configuration and scripting
 * contract") and are documented as a table in docs/configuration.md; a test keeps the two in
 * sync.
 * Every bad value is reported together, one clear line each, so an operator fixes them
 * in one go instead of one restart per mistake.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { DEFAULT_ENUMERATION_BUDGET, type EnumerationBudget } from "../analyzer/enumeration/plan.ts";
import { parseDnsServers } from "../analyzer/fetch/dns-servers.ts";
import { parseAllowlist } from "../analyzer/fetch/target-policy.ts";
import { isPlanId, PLAN_IDS, PLANS, type PlanId } from "../billing/plans.ts";
import { WORDFENCE_FEED_URL, WPORG_API_URL, WPVULNERABILITY_API_URL } from "../intel/source-ids.ts";
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from "../monitoring/webhooks/retry-schedule.ts";
import { parseSiteAuthKeys } from "../reports/site-auth-vault.ts";
import { cronProblem } from "../platform/cron.ts";

export interface Config {
  /** TCP port the HTTP server listens on. */
  port: number;
  /** Interface the HTTP server binds to. */
  host: string;
  /** PostgreSQL connection string; undefined → embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Folder for the embedded database (absolute). */
  dataDir: string;
  /** Redis connection string for the shared rate limiter; undefined → per-instance memory. */
  redisUrl: string | undefined;
  /** Public origin used in Location headers and links, without a trailing slash. */
  publicBaseUrl: string;
  /**
   * True when PUBLIC_BASE_URL was set. Unset, the web interface treats the origin each
   * request was sent to (its Host) as ours, so a local trial works at any address.
   */
  publicBaseUrlSet: boolean;
  /** Hosts, IPs or CIDRs the target policy lets through although private. */
  targetAllowlist: string[];
  /** DNS servers (`IP` or `IP:port`) the analyzer resolves site names with; empty → the system resolver. */
  dnsServers: string[];
  /** Hard deadline for one analysis, in milliseconds. */
  analysisTimeoutMs: number;
  /** Budgets of the opt-in aggressive enumeration (docs/enumeration.md). */
  enumeration: EnumerationBudget;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  /** Connections in the database pool. */
  dbPoolMax: number;
  /** How often stale credit reservations and idempotency keys are swept, in ms. */
  sweepIntervalMs: number;
  /** Length of a rate-limit window; a plan's per-minute limit is scaled to it. */
  rateLimitWindowSeconds: number;
  /** Minimum log level written to stdout. */
  logLevel: LogLevel;
  /** Component intelligence file in our format, imported at start-up when it changed; see docs/intel.md. */
  intelFile: string | undefined;
  /** Component intelligence sources and their refresh (docs/intel.md). */
  intel: IntelConfig;
  /**
   * Reverse proxies of ours in front of the service (0 = none). With N, the client address is
   * the N-th X-Forwarded-For entry from the right, and X-Forwarded-Host/-Proto are honoured.
   */
  trustProxy: number;
  /** Stripe billing; undefined → test mode or no billing, per billingMode. */
  stripe: StripeConfig | undefined;
  /** How plans change: see BillingMode. */
  billingMode: BillingMode;
  /** WPREPORT_ROLE: `all` (API and worker in one process), `api` or `worker`. */
  role: ServiceRole;
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
  /** Bearer token that opens GET /metrics; unset → /metrics is 404. */
  metricsToken: string | undefined;
  /**
   * SITE_AUTH_KEY: keys that seal site credentials on their way to a worker (the first seals,
   * all open). Unset → a key in memory on the embedded database; site credentials refused on
   * PostgreSQL. Secrets: never logged.
   */
  siteAuthKeys: Uint8Array[] | undefined;
  /** Chromium for client reports as PDF (CHROMIUM_PATH); undefined → no PDFs (HTML only). */
  chromiumPath: string | undefined;
  /**
   * Lab runs (docs/report.md, "Lab"): at most `concurrency` per worker process, on their own
   * queue (LAB_CONCURRENCY); the browser's hard deadline (LAB_TIMEOUT_MS, on top of the
   * analysis's) and memory cap (LAB_MAX_MEMORY_MB). They use CHROMIUM_PATH.
   */
  lab: { concurrency: number; timeoutMs: number; maxMemoryMb: number };
  /** Webhooks and email alerts (docs/monitoring.md). */
  monitoring: MonitoringConfig;
}

export interface MonitoringConfig {
  /** SMTP_URL (smtp:// or smtps://, credentials inside): email alerts; undefined → off. A secret: never logged. */
  smtpUrl: string | undefined;
  /** SMTP_FROM: the From of alert emails (required with SMTP_URL). */
  smtpFrom: string | undefined;
  /**
   * WEBHOOK_SECRET_KEY: 32 bytes that encrypt webhook signing secrets at rest. Required on
   * PostgreSQL to create webhooks; the embedded database generates a key file in DATA_DIR.
   */
  webhookSecretKey: Buffer | undefined;
  /** WEBHOOK_RETRY_SCHEDULE: the delay before each retry of a failed delivery, in ms. */
  webhookRetryDelaysMs: number[];
}

export interface IntelConfig {
  /** WORDFENCE_API_KEY: turns the Wordfence Intelligence feed on. A secret: never logged. */
  wordfenceApiKey: string | undefined;
  /** The feed's URL (a local copy or a test stub may stand in). */
  wordfenceFeedUrl: string;
  /** WordPress.org API origin for latest versions; undefined when lookups are off (air-gapped). */
  wporgApiUrl: string | undefined;
  /** WPVulnerability's API origin for on-demand advisories; undefined when lookups are off (air-gapped). */
  wpvulnerabilityApiUrl: string | undefined;
  /** When the refresh job runs (cron, UTC); undefined = never on its own. */
  refreshCron: string | undefined;
  /** How long a report waits for WordPress.org answers it does not have cached. */
  lookupBudgetMs: number;
  /** A feed download's whole deadline, and the longest it may go without receiving a byte. */
  downloadTimeoutMs: number;
  stallTimeoutMs: number;
}

export type ServiceRole = "all" | "api" | "worker";
const ROLES: readonly ServiceRole[] = ["all", "api", "worker"];

/**
 * - `stripe`: Stripe keys are configured; plans are bought through Checkout.
 * - `test`: plans change at once, free of charge — only with an explicit BILLING_MODE=test.
 *   Never inferred from the request or PUBLIC_BASE_URL: behind a plain reverse proxy every
 *   client looks local (loopback peer, loopback Host), so any rule of that kind hands paid
 *   plans to strangers (docs/decisions.md, "Billing").
 * - `off`: no self-service plan changes; the operator sets plans with the admin CLI. The
 *   default without Stripe.
 */
export type BillingMode = "stripe" | "test" | "off";
const BILLING_MODES = ["stripe", "test", "off"] as const;

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** Plan id → Stripe price id. */
  prices: Partial<Record<string, string>>;
  /** Stripe API origin (only for tests against a local stub); unset → Stripe's own. */
  apiBase: string | undefined;
}

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

/** Where Debian's chromium package puts the browser. */
export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

/** Reads and validates the configuration; throws ConfigError listing every bad value. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const raw = env[name];
    return raw === undefined || raw.trim() === "" ? undefined : raw.trim();
  };

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw)) {
      problems.push(`${name} must be a whole number between ${min} and ${max}, got "${raw}"`);
      return fallback;
    }
    const value = Number(raw);
    if (value < min || value > max) {
      problems.push(`${name} must be between ${min} and ${max}, got ${value}`);
      return fallback;
    }
    return value;
  };

  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      problems.push(`${name} is not a valid URL (expected ${protocols.join(" or ")}…)`);
      return undefined;
    }
    if (!protocols.includes(parsed.protocol)) {
      problems.push(`${name} must start with ${protocols.join(" or ")}, got "${parsed.protocol}"`);
      return undefined;
    }
    return raw;
  };

  const port = int("PORT", 3000, 0, 65535);
  const host = read("HOST") ?? "0.0.0.0";
  const databaseUrl = url("DATABASE_URL", ["postgres:", "postgresql:"]);
  const redisUrl = url("REDIS_URL", ["redis:", "rediss:"]);
  const dataDir = path.resolve(cwd, read("DATA_DIR") ?? "./data");

  let publicBaseUrl = `http://localhost:${port}`;
  const base = url("PUBLIC_BASE_URL", ["http:", "https:"]);
  const publicBaseUrlSet = read("PUBLIC_BASE_URL") !== undefined;
  if (base !== undefined) {
    const parsed = new URL(base);
    if (parsed.search || parsed.hash) {
      problems.push("PUBLIC_BASE_URL must not contain a query string or fragment");
    }
    publicBaseUrl = `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, "");
  }

  const targetAllowlist = (read("TARGET_ALLOWLIST") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  problems.push(...parseAllowlist(targetAllowlist).problems);
  const dns = parseDnsServers((read("DNS_SERVERS") ?? "").split(","));
  problems.push(...dns.problems);

  const stripeConfig = (): StripeConfig | undefined => {
    const secretKey = read("STRIPE_SECRET_KEY");
    const webhookSecret = read("STRIPE_WEBHOOK_SECRET");
    const pricesRaw = read("STRIPE_PRICES");
    if (!secretKey && !webhookSecret && !pricesRaw) return undefined;
    if (!secretKey || !webhookSecret || !pricesRaw) {
      problems.push(
        "Stripe billing needs STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICES together (or none of them for test mode)",
      );
      return undefined;
    }
    const prices: Record<string, string> = {};
    const pairs = pricesRaw.split(",").map((item) => item.trim());
    for (const pair of pairs.filter(Boolean)) {
      const [plan, price] = pair.split("=").map((part) => part.trim());
      if (!plan || !price || !/^[a-z]+$/.test(plan) || !/^price_[A-Za-z0-9]+$/.test(price)) {
        problems.push(`STRIPE_PRICES entry "${pair}" must look like starter=price_123`);
        continue;
      }
      if (!isPlanId(plan) || plan === "free") {
        const paid = PLAN_IDS.filter((id) => id !== "free").join(", ");
        problems.push(`STRIPE_PRICES names "${plan}", which is not a paid plan (${paid})`);
        continue;
      }
      if (prices[plan] || Object.values(prices).includes(price)) {
        problems.push(`STRIPE_PRICES lists plan "${plan}" or price ${price} twice`);
        continue;
      }
      prices[plan] = price;
    }
    return { secretKey, webhookSecret, prices, apiBase: url("STRIPE_API_BASE", ["http:", "https:"]) };
  };

  const trustProxy = (): number => {
    const raw = (read("TRUST_PROXY") ?? "false").toLowerCase();
    if (["0", "false", "no"].includes(raw)) return 0;
    if (["true", "yes"].includes(raw)) return 1;
    if (/^\d+$/.test(raw) && Number(raw) <= 10) return Number(raw);
    problems.push(`TRUST_PROXY must be true, false or the number of proxies in front (0-10), got "${raw}"`);
    return 0;
  };

  const billingMode = (stripe: StripeConfig | undefined): BillingMode => {
    const raw = read("BILLING_MODE")?.toLowerCase();
    if (raw !== undefined && !(BILLING_MODES as readonly string[]).includes(raw)) {
      problems.push(`BILLING_MODE must be one of ${BILLING_MODES.join(", ")}, got "${raw}"`);
      return "off";
    }
    if (raw === "stripe" && !stripe) problems.push("BILLING_MODE=stripe needs the STRIPE_* settings");
    if (raw === "test" && stripe) problems.push("BILLING_MODE=test cannot be used with the STRIPE_* settings");
    if (raw) return raw as BillingMode;
    return stripe ? "stripe" : "off";
  };

  const roleRaw = (read("WPREPORT_ROLE") ?? "all").toLowerCase();
  if (!ROLES.includes(roleRaw as ServiceRole))
    problems.push(`WPREPORT_ROLE must be one of ${ROLES.join(", ")}, got "${roleRaw}"`);
  else if (roleRaw !== "all" && !databaseUrl)
    problems.push(`WPREPORT_ROLE=${roleRaw} needs DATABASE_URL: the embedded database has one owner process (use all)`);

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

  const logLevelRaw = (read("LOG_LEVEL") ?? "info").toLowerCase();
  if (!LOG_LEVELS.includes(logLevelRaw as LogLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevelRaw}"`);
  }

  const intelConfig = (): IntelConfig => {
    const wporgRaw = read("WPORG_API_URL");
    const wpvulnerabilityRaw = read("WPVULNERABILITY_API_URL");
    const cronRaw = read("INTEL_REFRESH_CRON") ?? "0 */6 * * *";
    const cronOff = cronRaw.toLowerCase() === "off";
    const cronError = cronOff ? undefined : cronProblem(cronRaw);
    if (cronError) {
      problems.push(
        `INTEL_REFRESH_CRON must be a cron expression in UTC such as "0 */6 * * *", or off; "${cronRaw}" is not: ${cronError}`,
      );
    }
    return {
      wordfenceApiKey: read("WORDFENCE_API_KEY"),
      wordfenceFeedUrl: url("WORDFENCE_FEED_URL", ["http:", "https:"]) ?? WORDFENCE_FEED_URL,
      wporgApiUrl:
        wporgRaw?.toLowerCase() === "off" ? undefined : (url("WPORG_API_URL", ["http:", "https:"]) ?? WPORG_API_URL),
      wpvulnerabilityApiUrl:
        wpvulnerabilityRaw?.toLowerCase() === "off"
          ? undefined
          : (url("WPVULNERABILITY_API_URL", ["http:", "https:"]) ?? WPVULNERABILITY_API_URL),
      refreshCron: cronOff ? undefined : cronRaw,
      lookupBudgetMs: int("INTEL_LOOKUP_BUDGET_MS", 1_500, 0, 30_000),
      downloadTimeoutMs: int("INTEL_DOWNLOAD_TIMEOUT_MS", 15 * 60_000, 1_000, 3_600_000),
      stallTimeoutMs: int("INTEL_STALL_TIMEOUT_MS", 60_000, 100, 600_000),
    };
  };

  /** CHROMIUM_PATH: a path, or off; unset → Debian's /usr/bin/chromium when it is there. */
  const chromiumPath = (): string | undefined => {
    const raw = read("CHROMIUM_PATH");
    if (raw === undefined) return existsSync(DEFAULT_CHROMIUM) ? DEFAULT_CHROMIUM : undefined;
    if (raw.toLowerCase() === "off") return undefined;
    const resolved = path.resolve(cwd, raw);
    if (!existsSync(resolved) || !statSync(resolved).isFile()) {
      problems.push(`CHROMIUM_PATH must name the Chromium executable (or be off), got "${raw}": no such file`);
      return undefined;
    }
    return resolved;
  };

  // Issue 25: webhooks and email alerts.
  const monitoringConfig = (): MonitoringConfig => {
    const smtpUrl = url("SMTP_URL", ["smtp:", "smtps:"]);
    const smtpFrom = read("SMTP_FROM");
    if (smtpFrom !== undefined && !/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(smtpFrom))
      problems.push(`SMTP_FROM must be an address such as alerts@example.com or "wpreport <alerts@example.com>"`);
    if (smtpUrl && !smtpFrom) problems.push("SMTP_URL needs SMTP_FROM, the address alert emails come from");
    const keyText = read("WEBHOOK_SECRET_KEY");
    let webhookSecretKey: Buffer | undefined;
    if (keyText !== undefined) {
      webhookSecretKey = /^[A-Za-z0-9+/_-]{43}=?$/.test(keyText) ? Buffer.from(keyText, "base64") : undefined;
      if (webhookSecretKey?.length !== 32)
        problems.push(
          "WEBHOOK_SECRET_KEY must be 32 random bytes in base64, e.g. the output of: openssl rand -base64 32",
        );
    }
    const schedule = parseRetrySchedule(read("WEBHOOK_RETRY_SCHEDULE") ?? DEFAULT_RETRY_SCHEDULE);
    if (schedule.problem) problems.push(`WEBHOOK_RETRY_SCHEDULE ${schedule.problem}`);
    return { smtpUrl, smtpFrom, webhookSecretKey, webhookRetryDelaysMs: schedule.delaysMs };
  };

  const stripe = stripeConfig();
  const siteAuth = parseSiteAuthKeys(read("SITE_AUTH_KEY"));
  problems.push(...siteAuth.problems);
  const config: Config = {
    port,
    host,
    databaseUrl,
    dataDir,
    redisUrl,
    publicBaseUrl,
    publicBaseUrlSet,
    targetAllowlist,
    dnsServers: dns.servers,
    analysisTimeoutMs: int("ANALYSIS_TIMEOUT_MS", 30_000, 1_000, 300_000),
    maxBodyBytes: int("MAX_BODY_BYTES", 64 * 1024, 1_024, 10 * 1024 * 1024),
    dbPoolMax: int("DB_POOL_MAX", databaseUrl ? 10 : 4, 1, 100),
    sweepIntervalMs: int("SWEEP_INTERVAL_MS", 60_000, 100, 3_600_000),
    rateLimitWindowSeconds: int("RATE_LIMIT_WINDOW_SECONDS", 60, 1, 3_600),
    logLevel: LOG_LEVELS.includes(logLevelRaw as LogLevel) ? (logLevelRaw as LogLevel) : "info",
    intelFile: read("INTEL_FILE") ? path.resolve(cwd, read("INTEL_FILE") as string) : undefined,
    intel: intelConfig(),
    trustProxy: trustProxy(),
    stripe,
    billingMode: billingMode(stripe),
    role: ROLES.includes(roleRaw as ServiceRole) ? (roleRaw as ServiceRole) : "all",
    workerConcurrency: int("WORKER_CONCURRENCY", 4, 1, 64),
    hostConcurrency: int("HOST_CONCURRENCY", 2, 1, 50),
    targetAddressConcurrency: int("TARGET_ADDRESS_CONCURRENCY", 4, 1, 200),
    targetMaxRps: int("TARGET_MAX_RPS", 60, 0, 10_000),
    targetAggressivePerHour: int("TARGET_AGGRESSIVE_PER_HOUR", 1_000, 0, 1_000_000),
    deadTargetWindowMs: int("DEAD_TARGET_WINDOW_MS", 60_000, 0, 3_600_000),
    deadTargetCheckMs: int("DEAD_TARGET_CHECK_MS", 5_000, 500, 30_000),
    accountConcurrency: accountConcurrency(),
    queueMaxDepth: int("QUEUE_MAX_DEPTH", 200, 1, 100_000),
    queueWaitMs: int("QUEUE_WAIT_MS", 120_000, 1_000, 3_600_000),
    syncWaitMs: 0,
    analysisMaxBytes: int("ANALYSIS_MAX_BYTES", 32 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024),
    metricsToken: read("METRICS_TOKEN"),
    chromiumPath: chromiumPath(),
    lab: {
      concurrency: int("LAB_CONCURRENCY", 1, 1, 16),
      timeoutMs: int("LAB_TIMEOUT_MS", 60_000, 5_000, 300_000),
      maxMemoryMb: int("LAB_MAX_MEMORY_MB", 1_536, 256, 65_536),
    },
    monitoring: monitoringConfig(),
    siteAuthKeys: siteAuth.keys,
    enumeration: {
      maxRequests: int("AGGRESSIVE_MAX_REQUESTS", DEFAULT_ENUMERATION_BUDGET.maxRequests, 10, 5_000),
      timeBudgetMs: 0,
    },
  };
  config.syncWaitMs = int("SYNC_WAIT_MS", config.analysisTimeoutMs + 15_000, 1_000, 600_000);
  // The enumeration runs after the passive requests, inside the report's deadline: by default
  // 12 s or half the deadline, whichever is less; set higher than half, it is refused.
  const halfDeadline = Math.floor(config.analysisTimeoutMs / 2);
  config.enumeration.timeBudgetMs = int(
    "AGGRESSIVE_TIME_BUDGET_MS",
    Math.min(DEFAULT_ENUMERATION_BUDGET.timeBudgetMs, halfDeadline),
    500,
    240_000,
  );
  if (config.enumeration.timeBudgetMs > halfDeadline) {
    problems.push(
      `AGGRESSIVE_TIME_BUDGET_MS (${config.enumeration.timeBudgetMs}) must be at most half of ANALYSIS_TIMEOUT_MS (${config.analysisTimeoutMs}): the passive analysis needs the rest`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
