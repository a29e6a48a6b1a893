/**
 * Entry point of an analysis thread (node:worker_threads). It runs whole analyses — the
 * requests to the site, the HTML parse and the audits — so that a 5 MB page being parsed
 * never holds up the event loop that answers the API, /healthz and the queue. Each thread
 * builds its own connection agent and target policy from ThreadSetup; they are the same
 * objects the main thread would have built, from the same configuration. The component
 * intelligence is asked of the main thread, which holds the database.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type AnalysisRun, analyze } from "../analyze.ts";
import type { DirectoryAnswer, NameQuery } from "../detect/finders/directory.ts";
import { SiteUnreachableError } from "../errors.ts";
import { createSafeAgent } from "../fetch/safe-agent.ts";
import { TargetPolicy } from "../fetch/target-policy.ts";
import type { Intel, IntelQuery } from "../intel/index.ts";
import type { FromThread, ThreadError, ThreadSetup, ToThread } from "./protocol.ts";

const port = parentPort;
if (!port) throw new Error("analysis-thread.ts runs as a worker thread only");
const setup = workerData as ThreadSetup;
const policy = new TargetPolicy(setup.allowlist);
const agent = createSafeAgent(policy, undefined, setup.dnsServers);
const running = new Map<number, AbortController>();
const intelAnswers = new Map<number, { resolve(intel: Intel): void; reject(error: Error): void }>();
const namesAnswers = new Map<number, { resolve(names: DirectoryAnswer): void; reject(error: Error): void }>();

/** Asks the main thread for the intel of one analysis's components (its id is the analysis's). */
function lookupIntel(id: number): (query: IntelQuery) => Promise<Intel> {
  return (query) =>
    new Promise<Intel>((resolve, reject) => {
      intelAnswers.set(id, { resolve, reject });
      port?.postMessage({ type: "intel", id, query } satisfies FromThread);
    });
}

/** Asks the main thread what the names index says about the names one analysis saw (names-question.ts). */
function lookupNames(id: number): (query: NameQuery) => Promise<DirectoryAnswer> {
  return (query) =>
    new Promise<DirectoryAnswer>((resolve, reject) => {
      namesAnswers.set(id, { resolve, reject });
      port?.postMessage({ type: "names", id, query } satisfies FromThread);
    });
}

function describe(error: unknown): ThreadError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const kind = error instanceof SiteUnreachableError ? error.kind : undefined;
  return { name: error.name, message: error.message, kind, stack: error.stack };
}

async function run(
  id: number,
  url: string,
  { enumerate, requestsPerSecond, siteAuth, siteTls, lab, quickCheckMs }: AnalysisRun,
): Promise<void> {
  const controller = new AbortController();
  running.set(id, controller);
  // A staging site's relaxed certificate rule gets an agent of its own, closed with the
  // analysis: the thread's shared pool never holds a connection made without verification.
  const own = siteTls ? createSafeAgent(policy, undefined, setup.dnsServers, { siteTls: { url, tls: siteTls } }) : null;
  let reply: FromThread;
  try {
    const result = await analyze(
      url,
      {
        agent: own ?? agent,
        siteTls,
        policy,
        userAgent: setup.userAgent,
        intel: lookupIntel(id),
        names: lookupNames(id),
        limits: { ...setup.limits, requestsPerSecond },
        enumerate,
        siteAuth,
        lab,
        quickCheckMs,
      },
      controller.signal,
    );
    reply = { type: "done", id, result };
  } catch (error) {
    reply = { type: "failed", id, error: describe(error) };
  } finally {
    await own?.destroy().catch(() => {});
    running.delete(id);
    intelAnswers.delete(id);
    namesAnswers.delete(id);
  }
  port?.postMessage(reply);
  // A thread's heap is only collected when it feels pressure, and threads that kept their
  // last 5 MB pages and parse lists grew a worker to 1.1 GB in the flood test. A full
  // collection after each analysis (tens of ms, on this thread) keeps it near 350 MB.
  Bun.gc(true);
}

port.on("message", (message: ToThread) => {
  if (message.type === "analyze") void run(message.id, message.url, message.run);
  else if (message.type === "intel-answer") {
    const waiting = intelAnswers.get(message.id);
    intelAnswers.delete(message.id);
    if (message.intel) waiting?.resolve(message.intel);
    else waiting?.reject(new Error(message.error ?? "no intel"));
  } else if (message.type === "names-answer") {
    const waiting = namesAnswers.get(message.id);
    namesAnswers.delete(message.id);
    if (message.names) waiting?.resolve(message.names);
    else waiting?.reject(new Error(message.error ?? "no answer"));
  } else running.get(message.id)?.abort(new DOMException("The analysis was stopped", "TimeoutError"));
});
