/**
 * How a worker analyses a site: on an analysis thread (so that parsing a big page never
 * stalls the event loop). The report's options become the analyzer's AnalysisRun here: for
 * aggressive mode, the enumeration's plan is made where the intel database is, and the thread
 * gets it as plain data. A lab report's browser run happens first, here in the worker process
 * (Chromium and its policy proxy are processes and sockets, not thread work), and its capture
 * goes to the thread as data like the rest.
 */
import type dns from "node:dns";
import type { SiteAuth } from "../../shared/site-auth.ts";
import type { SiteTls } from "../../shared/site-tls.ts";
import { enumerationPlan, MAX_CANDIDATES } from "../analyzer/enumeration/plan.ts";
import { resolverLookup } from "../analyzer/fetch/dns-servers.ts";
import { TargetPolicy } from "../analyzer/fetch/target-policy.ts";
import type { LabCapture } from "../analyzer/lab/capture.ts";
import { runLab } from "../analyzer/lab/lab-run.ts";
import type { AnalysisThreads } from "../analyzer/threads/analysis-threads.ts";
import type { IntelService } from "../intel/intel.service.ts";
import type { PlatformSettings } from "../platform/settings.ts";
import type { LabOptions } from "./report-options.ts";
import type { AnalyzeFn } from "./reports.service.ts";
import type { ReportsSettings } from "./settings.ts";

/** Bytes one lab run's browser may move in all: ANALYSIS_MAX_BYTES per load. */
const labBytes = (config: Pick<ReportsSettings, "analysisMaxBytes">, runs: number) => config.analysisMaxBytes * runs;

/** The settings a lab run reads: the reports feature's, and where the platform's Chromium is. */
export interface LabConfig {
  reports: Pick<ReportsSettings, "targetAllowlist" | "dnsServers" | "lab" | "analysisMaxBytes" | "enumeration">;
  platform: Pick<PlatformSettings, "chromiumPath">;
}

/** The lab run of one report (lab/lab-run.ts), with the service's target policy and resolver. */
export function labRunner({ reports: config, platform }: LabConfig) {
  const policy = new TargetPolicy(config.targetAllowlist);
  const resolve =
    config.dnsServers.length > 0 ? (resolverLookup(config.dnsServers) as unknown as typeof dns.lookup) : undefined;
  return (
    url: string,
    lab: LabOptions,
    site: { siteAuth?: SiteAuth; siteTls?: SiteTls },
    signal: AbortSignal,
  ): Promise<LabCapture> =>
    runLab(
      url,
      {
        executablePath: platform.chromiumPath,
        policy,
        resolve,
        device: lab.device,
        throttling: lab.throttling,
        runs: lab.runs,
        timeoutMs: config.lab.timeoutMs,
        maxMemoryMb: config.lab.maxMemoryMb,
        maxBytes: labBytes(config, lab.runs),
        userAgentName: "wpreport-lab (+https://github.com/wpreport/wpreport)",
        siteAuth: site.siteAuth,
        siteTls: site.siteTls,
      },
      signal,
    );
}

export function analyzeOnThreads(
  threads: AnalysisThreads,
  intel: Pick<IntelService, "vulnerableSlugs">,
  config: LabConfig,
): AnalyzeFn {
  const runLabFor = labRunner(config);
  return async (url, signal, request) => {
    const lab = request.lab ? await runLabFor(url, request.lab, request, signal) : undefined;
    const run = {
      requestsPerSecond: request.requestsPerSecond,
      siteAuth: request.siteAuth,
      siteTls: request.siteTls,
      ...(lab ? { lab } : {}),
      quickCheckMs: request.quickCheckMs,
    };
    if (request.mode !== "aggressive") return threads.analyze(url, signal, run);
    // The target's hourly aggressive budget (target-limits.ts) may grant less than configured.
    const budget = {
      ...config.reports.enumeration,
      maxRequests: Math.min(
        config.reports.enumeration.maxRequests,
        request.aggressiveRequests ?? Number.POSITIVE_INFINITY,
      ),
    };
    const plan = enumerationPlan(await intel.vulnerableSlugs(MAX_CANDIDATES), budget);
    return threads.analyze(url, signal, { ...run, enumerate: plan });
  };
}
