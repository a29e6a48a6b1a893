/**
 * Messages between the analysis thread pool (main thread) and its threads. Everything here
 * crosses a structured clone, so it is plain data: a report part, or an error taken apart
 * into its name, message and kind and put back together on the other side.
 */
import type { AnalysisResult } from "../analyze.ts";
import type { ClientLimits } from "../fetch/safe-client.ts";

/** What a thread needs to build its own agent, policy and intel (workerData). */
export interface ThreadSetup {
  allowlist: readonly string[];
  dnsServers: readonly string[];
  userAgent: string;
  limits: ClientLimits;
  intelFile: string | undefined;
}

export type ToThread = { type: "analyze"; id: number; url: string } | { type: "abort"; id: number };

export interface ThreadError {
  name: string;
  message: string;
  /** SiteUnreachableError's reason (dns, refused, timeout…). */
  kind?: string;
  stack?: string;
}

export type FromThread =
  | { type: "done"; id: number; result: AnalysisResult }
  | { type: "failed"; id: number; error: ThreadError };
