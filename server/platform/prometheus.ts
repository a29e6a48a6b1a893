/**
 * Operational metrics in the Prometheus text format (prom-client), on GET /metrics behind
 * METRICS_TOKEN: queue depth and running analyses (read from the database at scrape time, so
 * every process reports the service-wide figure), analysis durations, outcomes by error code,
 * and rate-limit rejections. Each process has its own registry; scrape every process.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Sql } from "./db/database.ts";

/** The service's Prometheus metrics (not a report's metrics: shared/report-metrics.ts). */
export interface ServiceMetrics {
  registry: Registry;
  /** Call when an analysis starts; call the result with its outcome when it ends. */
  startRun(): (outcome: string) => void;
  rateLimited(): void;
  overloaded(): void;
}

export function createServiceMetrics(sql: Sql): ServiceMetrics {
  const registry = new Registry();
  const outcomes = new Counter({
    name: "wpreport_analyses_total",
    help: "Analyses finished by this process, by outcome (completed, or the error code).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: "wpreport_analysis_duration_seconds",
    help: "Time from a worker starting an analysis to its end.",
    buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
    registers: [registry],
  });
  const running = new Gauge({
    name: "wpreport_analyses_running_local",
    help: "Analyses running in this process now.",
    registers: [registry],
  });
  const rejections = new Counter({
    name: "wpreport_rejections_total",
    help: "Requests refused before any work: rate_limited (429) or overloaded (503).",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "wpreport_queue_reports",
    help: "Reports across the service by state (queued: waiting for a worker; running).",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const rows = await sql<{ status: string; n: number }[]>`
        select status, count(*)::int as n from reports where status in ('queued', 'running') group by status`;
      this.reset();
      for (const state of ["queued", "running"]) {
        this.set({ state }, rows.find((row) => row.status === state)?.n ?? 0);
      }
    },
  });
  return {
    registry,
    startRun() {
      running.inc();
      const end = durations.startTimer();
      return (outcome) => {
        running.dec();
        end();
        outcomes.inc({ outcome });
      };
    },
    rateLimited: () => rejections.inc({ reason: "rate_limited" }),
    overloaded: () => rejections.inc({ reason: "overloaded" }),
  };
}
