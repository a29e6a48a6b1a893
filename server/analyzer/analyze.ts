/**
 * The analyzer's interface: analyze(url, options, signal) → the analysis part of a Report.
 *
 * Pipeline: gather (network → artifacts) → detect (artifacts → facts) → audit
 * (artifacts + facts → checks) → score (checks → summary). Only gather touches the
 * network; everything after it is pure and tested on saved artifacts.
 *
 * Throws TargetNotAllowedError or SiteUnreachableError when there is nothing to report;
 * any other trouble ends up in the report's errors[].
 */
import type { Agent } from "undici/index.js";
import type { Report } from "../../shared/report.ts";
import { runAudits } from "./audit/index.ts";
import { detectWordPress } from "./detect/wordpress.ts";
import { type ClientLimits, DEFAULT_CLIENT_LIMITS, SafeClient } from "./fetch/safe-client.ts";
import type { TargetPolicy } from "./fetch/target-policy.ts";
import { gather } from "./gather/gather.ts";
import { summarise } from "./score.ts";

export type AnalysisResult = Pick<
  Report,
  "final_url" | "redirects" | "summary" | "wordpress" | "performance" | "checks" | "errors"
>;

export interface AnalyzeOptions {
  agent: Agent;
  policy: TargetPolicy;
  userAgent: string;
  limits?: ClientLimits;
}

export async function analyze(url: string, options: AnalyzeOptions, signal: AbortSignal): Promise<AnalysisResult> {
  const client = new SafeClient(
    options.agent,
    options.policy,
    signal,
    options.userAgent,
    options.limits ?? DEFAULT_CLIENT_LIMITS,
  );
  const artifacts = await gather(url, client);
  return buildResult(artifacts);
}

/** Everything after gathering: pure, so saved artifacts reproduce a report exactly. */
export function buildResult(artifacts: Awaited<ReturnType<typeof gather>>): AnalysisResult {
  const wordpress = detectWordPress(artifacts);
  const checks = runAudits({ artifacts, wordpress });
  const { homepage } = artifacts;
  return {
    final_url: homepage.url,
    redirects: homepage.redirects,
    summary: summarise(checks),
    wordpress,
    performance: {
      ttfb_ms: homepage.ttfb_ms,
      ttfb_samples_ms: [homepage.ttfb_ms],
      html_download_ms: homepage.download_ms,
      html_bytes: homepage.body_bytes,
      html_transfer_bytes: homepage.transfer_bytes,
      compression: homepage.encoding,
      requests: artifacts.requests.map((row) => ({ ...row })),
    },
    checks,
    errors: artifacts.errors,
  };
}
