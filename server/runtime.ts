/**
 * Running the service: database, services, HTTP server, background sweeper, and an
 * orderly stop. Used by server/main.ts and by the tests (which start real instances).
 */
import { createApp } from "./app.ts";
import { announceBillingMode } from "./billing/billing-mode.ts";
import type { Config } from "./config.ts";
import { type Database, openDatabase } from "./db/database.ts";
import { startHttpServer } from "./http/server.ts";
import type { Logger } from "./logging/logger.ts";
import { syncPlans } from "./plans/sync.ts";
import type { RateLimiter } from "./ratelimit/limiter.ts";
import type { AnalyzeFn } from "./reports/reports.service.ts";
import { createServices, type Services } from "./services.ts";

export interface RunningService {
  url: string;
  port: number;
  services: Services;
  /** Runs the sweeper once now (tests; the timer runs it every SWEEP_INTERVAL_MS). */
  sweep(): Promise<{ credits: number; reports: number; keys: number }>;
  /** Graceful stop: refuse new work, finish in-flight requests, close pools. */
  stop(): Promise<void>;
}

export interface StartOptions {
  analyze?: AnalyzeFn;
  limiter?: RateLimiter;
  /** Use this database instead of opening one from the config (tests). */
  db?: Database;
}

export async function startService(
  config: Config,
  logger: Logger,
  options: StartOptions = {},
): Promise<RunningService> {
  const db = options.db ?? (await openDatabase(config, logger, { role: "server" }));
  await syncPlans(db.sql);
  const services = createServices(config, logger, db, options);
  announceBillingMode(config, logger);
  let shuttingDown = false;
  const app = createApp(services, { isShuttingDown: () => shuttingDown });
  const http = startHttpServer({
    port: config.port,
    host: config.host,
    baseUrl: config.publicBaseUrl,
    maxBodyBytes: config.maxBodyBytes,
    logger,
    handle: (request) => app.handle(request),
  });

  const sweep = async () => {
    const credits = await services.quota.sweepExpired();
    const reports = await services.reports.sweepStale();
    const keys = await services.idempotency.sweep();
    await services.sessions.sweepExpired();
    const downgraded = await services.subscriptions.expireCancelled();
    if (downgraded > 0) logger.info("cancelled plans ended", { accounts: downgraded });
    if (credits + reports > 0)
      logger.warn("swept abandoned work", { credits_released: credits, reports_failed: reports });
    return { credits, reports, keys };
  };
  const runSweep = () => {
    sweep().catch((error) => logger.error("sweeper failed", { error }));
  };
  runSweep();
  const timer = setInterval(runSweep, config.sweepIntervalMs);
  timer.unref?.();

  let stopping: Promise<void> | undefined;
  return {
    url: http.url,
    port: http.server.port ?? config.port,
    services,
    sweep,
    stop() {
      stopping ??= (async () => {
        shuttingDown = true;
        clearInterval(timer);
        await http.stop();
        await services.reports.drain(config.analysisTimeoutMs);
        await services.close();
        if (!options.db) await db.close();
      })();
      return stopping;
    },
  };
}
