/**
 * Running the service: database, services, the roles (API: HTTP server; worker: analysis
 * jobs), background sweeper, and an orderly stop. Used by server/start/main.ts and by the tests
 * (which start real instances).
 *
 * Roles (WPREPORT_ROLE): `all` runs both in one process (`npm start`, the embedded default);
 * `api` serves HTTP and only enqueues analyses; `worker` only runs them, with a bare
 * /healthz for orchestrators. Every role runs the sweeper (its statements are idempotent).
 */

import type { RateLimiter } from "../access/rate-limiter.ts";
import { announceBillingMode } from "../billing/billing-mode.ts";
import { syncPlans } from "../billing/plans-sync.ts";
import { startIntelRefreshWorker } from "../intel/intel-jobs.ts";
import { type Database, openDatabase } from "../platform/db/database.ts";
import { startHttpServer } from "../platform/http/server.ts";
import type { Logger } from "../platform/logger.ts";
import { metricsResponse } from "../platform/prometheus.routes.ts";
import { BRANDING_MAX_BODY_BYTES, BRANDING_PATH } from "../portfolio/portfolio.web.tsx";
import type { AnalyzeFn } from "../reports/reports.service.ts";
import { createApp } from "./app.ts";
import type { Config } from "./config.ts";
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

/** What a worker-only process answers over HTTP: health, and metrics for the operator. */
async function workerEndpoints(request: Request, services: Services, stopping: boolean): Promise<Response> {
  const path = new URL(request.url).pathname;
  if (path === "/healthz") return Response.json({ status: stopping ? "stopping" : "ok", role: "worker" });
  if (path === "/metrics") return metricsResponse(request, services);
  return new Response("wpreport worker: no API here\n", { status: 404 });
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
  const db = options.db ?? (await openDatabase(config.platform, logger, { role: "server" }));
  await syncPlans(db.sql);
  const services = await createServices(config, logger, db, options);
  announceBillingMode(config, logger);
  let shuttingDown = false;
  const servesApi = config.platform.role !== "worker";
  const runsJobs = config.platform.role !== "api";
  const app = createApp(services, { isShuttingDown: () => shuttingDown });
  const http = startHttpServer({
    port: config.platform.port,
    host: config.platform.host,
    baseUrl: config.platform.publicBaseUrl,
    maxBodyBytes: config.platform.maxBodyBytes,
    // The client-report branding form carries a logo of up to 100 KB (issue 25).
    bodyLimits: { [BRANDING_PATH]: BRANDING_MAX_BODY_BYTES },
    logger,
    handle: servesApi
      ? (request) => app.handle(request)
      : (request) => workerEndpoints(request, services, shuttingDown),
    routes: servesApi ? (pathname) => app.routeTable().match(pathname) : undefined,
    // A synchronous report waits up to SYNC_WAIT_MS, then may ride out a database outage
    // while it delivers (ReportService): the connection must outlive both.
    waitingRequestSeconds: (method, pathname) =>
      method === "POST" && (pathname === "/api/generate-report" || pathname === "/analyze")
        ? Math.ceil(config.reports.syncWaitMs / 1000) + 20
        : undefined,
  });
  if (runsJobs) {
    await services.worker.start();
    await services.monitoring.start();
    await startIntelRefreshWorker(
      services.queue.boss,
      services.intelRefresher,
      services.intel.store,
      config.intel,
      logger,
    );
  }

  const sweep = async () => {
    const credits = await services.quota.sweepExpired();
    const reports = await services.reports.sweepStale();
    const keys = await services.idempotency.sweep();
    await services.sessions.sweepExpired();
    await services.reports.sweepLimits();
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
  const timer = setInterval(runSweep, config.platform.sweepIntervalMs);
  timer.unref?.();

  let stopping: Promise<void> | undefined;
  return {
    url: http.url,
    port: http.server.port ?? config.platform.port,
    services,
    sweep,
    stop() {
      stopping ??= (async () => {
        shuttingDown = true;
        clearInterval(timer);
        // In-flight requests finish first: a synchronous call waiting for its report gets it
        // (in `all`, this process's worker is still running) — or, past the analysis deadline,
        // a 202 with the report's Location while the report finishes elsewhere.
        const answerWaiting = setTimeout(() => services.reports.drain(), config.reports.analysisTimeoutMs);
        await http.stop();
        clearTimeout(answerWaiting);
        // No monitor starts a run while the rest winds down; running analyses finish (up to
        // their deadline); no new job is taken.
        if (runsJobs) await services.monitoring.scheduler.stop();
        if (runsJobs) await services.worker.stop(config.reports.analysisTimeoutMs + 2_000);
        await services.close();
        if (!options.db) await db.close();
      })();
      return stopping;
    },
  };
}
