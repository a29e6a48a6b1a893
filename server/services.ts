/**
 * Wiring: builds every service from the configuration and a database, once per process.
 * Routes receive what they need from here; nothing reaches for globals.
 */
import type { Agent } from "undici/index.js";
import { AccountService } from "./accounts/account.service.ts";
import { analyze } from "./analyzer/analyze.ts";
import { createSafeAgent } from "./analyzer/fetch/safe-agent.ts";
import { TargetPolicy } from "./analyzer/fetch/target-policy.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import { IdempotencyService } from "./idempotency/idempotency.service.ts";
import type { Logger } from "./logging/logger.ts";
import { QuotaService, RESERVATION_GRACE_MS } from "./quota/quota.service.ts";
import { createRateLimiter, type RateLimiter } from "./ratelimit/limiter.ts";
import { type AnalyzeFn, ReportService } from "./reports/reports.service.ts";
import { TokenService } from "./tokens/token.service.ts";

export const USER_AGENT = "wpreport/0.1 (WordPress site analyzer; +https://github.com/wpreport/wpreport)";

export interface Services {
  config: Config;
  logger: Logger;
  db: Database;
  accounts: AccountService;
  tokens: TokenService;
  quota: QuotaService;
  idempotency: IdempotencyService;
  reports: ReportService;
  limiter: RateLimiter;
  policy: TargetPolicy;
  agent: Agent;
  close(): Promise<void>;
}

export function createServices(
  config: Config,
  logger: Logger,
  db: Database,
  overrides: { analyze?: AnalyzeFn; limiter?: RateLimiter } = {},
): Services {
  const { sql } = db;
  const policy = new TargetPolicy(config.targetAllowlist);
  const agent = createSafeAgent(policy);
  const quota = new QuotaService(sql, config.analysisTimeoutMs);
  const idempotency = new IdempotencyService(sql, config.analysisTimeoutMs + RESERVATION_GRACE_MS);
  const limiter = overrides.limiter ?? createRateLimiter(config.redisUrl, logger);
  const analyzeSite: AnalyzeFn =
    overrides.analyze ?? ((url, signal) => analyze(url, { agent, policy, userAgent: USER_AGENT }, signal));
  const reports = new ReportService({
    sql,
    quota,
    idempotency,
    analyze: analyzeSite,
    policy,
    analysisTimeoutMs: config.analysisTimeoutMs,
    logger,
  });
  return {
    config,
    logger,
    db,
    accounts: new AccountService(sql),
    tokens: new TokenService(sql),
    quota,
    idempotency,
    reports,
    limiter,
    policy,
    agent,
    async close() {
      await limiter.close();
      await agent.close();
    },
  };
}
