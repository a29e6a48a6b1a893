/**
 * Messages between the analysis thread pool (main thread) and its threads. Everything here
 * crosses a structured clone, so it is plain data: a report part, or an error taken apart
 * into its name, message and kind and put back together on the other side.
 */
import type { AnalysisResult, AnalysisRun } from "../analyze.ts";
import type { DirectoryAnswer, NameQuery } from "../detect/finders/directory.ts";
import type { ClientLimits } from "../fetch/safe-client.ts";
import type { Intel, IntelQuery } from "../intel/index.ts";

/** What a thread needs to build its own agent and policy (workerData). */
export interface ThreadSetup {
  allowlist: readonly string[];
  dnsServers: readonly string[];
  userAgent: string;
  limits: ClientLimits;
}

/**
 * The component intelligence and the names index live in the database, which only the main
 * thread holds (PGlite has one owner): a thread asks with `intel` / `names` and gets
 * `intel-answer` / `names-answer` back.
 */
export type ToThread =
  | { type: "analyze"; id: number; url: string; run: AnalysisRun }
  | { type: "abort"; id: number }
  | { type: "intel-answer"; id: number; intel: Intel | null; error?: string }
  | { type: "names-answer"; id: number; names: DirectoryAnswer | null; error?: string };

export interface ThreadError {
  name: string;
  message: string;
  /** SiteUnreachableError's reason (dns, refused, timeout…). */
  kind?: string;
  stack?: string;
}

export type FromThread =
  | { type: "done"; id: number; result: AnalysisResult }
  | { type: "failed"; id: number; error: ThreadError }
  | { type: "intel"; id: number; query: IntelQuery }
  | { type: "names"; id: number; query: NameQuery };
