/**
 * How a worker analyses a site: on an analysis thread (so that parsing a big page never
 * stalls the event loop). The report's options become the analyzer's AnalysisRun here: for
 * aggressive mode, the enumeration's plan is made where the intel database is, and the thread
 * gets it as plain data.
 */
import { enumerationPlan, MAX_CANDIDATES } from "../analyzer/enumeration/plan.ts";
import type { AnalysisThreads } from "../analyzer/threads/analysis-threads.ts";
import type { IntelService } from "../intel/intel.service.ts";
import type { Config } from "../platform/config.ts";
import type { AnalyzeFn } from "./reports.service.ts";

export function analyzeOnThreads(
  threads: AnalysisThreads,
  intel: Pick<IntelService, "vulnerableSlugs">,
  config: Pick<Config, "enumeration">,
): AnalyzeFn {
  return async (url, signal, request) => {
    const run = {
      requestsPerSecond: request.requestsPerSecond,
      siteAuth: request.siteAuth,
      quickCheckMs: request.quickCheckMs,
    };
    if (request.mode !== "aggressive") return threads.analyze(url, signal, run);
    // The target's hourly aggressive budget (target-limits.ts) may grant less than configured.
    const budget = {
      ...config.enumeration,
      maxRequests: Math.min(config.enumeration.maxRequests, request.aggressiveRequests ?? Number.POSITIVE_INFINITY),
    };
    const plan = enumerationPlan(await intel.vulnerableSlugs(MAX_CANDIDATES), budget);
    return threads.analyze(url, signal, { ...run, enumerate: plan });
  };
}
