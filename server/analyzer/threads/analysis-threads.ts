/**
 * Runs analyses on a small pool of worker threads instead of the main thread.
 *
 * Why: parsing and auditing a large hostile page is CPU work measured in tens to hundreds of
 * milliseconds, and a worker process still answers /healthz and /metrics, and keeps its
 * queue leases alive; in the one-process default (`npm start`) the same event loop also
 * answers the API. With the analysis on a thread, that loop only waits for a message.
 *
 * Sizing: an analysis mostly waits on the site, so a thread runs several at once; more
 * threads than CPU cores would only add memory (each has its own heap, ~40 MB). The queue
 * worker caps analyses at WORKER_CONCURRENCY, which is `threads × perThread`, so nothing
 * waits here in practice. Threads start on first use (an API-only process never starts one)
 * and are kept: starting one costs ~100 ms, and terminating Bun workers is the least proven
 * part of their API.
 *
 * A thread that does not stop within `abortGraceMs` of an analysis being aborted (stuck in
 * CPU work) is terminated and replaced, failing the analyses it was running (uncharged): a
 * wedged analysis can no longer hold a worker slot for ever, which one on the main thread
 * could.
 */
import { Worker } from "node:worker_threads";
import type { AnalysisResult, AnalysisRun } from "../analyze.ts";
import { EMPTY_DIRECTORY, type NameLookup, type NameQuery } from "../detect/finders/directory.ts";
import { SiteUnreachableError, TargetNotAllowedError } from "../errors.ts";
import { emptyIntel, type IntelLookup, type IntelQuery } from "../intel/index.ts";
import type { FromThread, ThreadError, ThreadSetup, ToThread } from "./protocol.ts";

const ENTRY = new URL("./analysis-thread.ts", import.meta.url);

interface Job {
  id: number;
  url: string;
  /** Its site credentials, if any, are handed to the thread in memory, never written anywhere. */
  run: AnalysisRun;
  signal: AbortSignal;
  resolve(result: AnalysisResult): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
  /** Set once the slot's thread is being replaced; its late messages are ignored. */
  retired: boolean;
}

/** Puts an error from a thread back together as the class the callers test for. */
export function rebuildError(error: ThreadError): Error {
  let rebuilt: Error;
  if (error.name === "TargetNotAllowedError") rebuilt = new TargetNotAllowedError(error.message);
  else if (error.name === "SiteUnreachableError")
    rebuilt = new SiteUnreachableError(error.kind ?? "other", error.message);
  else {
    rebuilt = new Error(error.message);
    rebuilt.name = error.name;
  }
  if (error.stack) rebuilt.stack = error.stack;
  return rebuilt;
}

export interface PoolSize {
  /** Threads at most (≈ CPU cores). */
  threads: number;
  /** Analyses at once on one thread. */
  perThread: number;
}

/** Threads and analyses per thread for `concurrency` analyses at once on `cores` cores. */
export function poolSize(concurrency: number, cores: number): PoolSize {
  const threads = Math.max(1, Math.min(concurrency, cores));
  return { threads, perThread: Math.ceil(concurrency / threads) };
}

export class AnalysisThreads {
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly setup: ThreadSetup,
    private readonly size: PoolSize,
    /** Answers the threads' intel questions (the service's database); none → no data. */
    private readonly intel: IntelLookup | undefined = undefined,
    private readonly abortGraceMs = 5_000,
    /** Answers the threads' names questions (the names index); none → no index. */
    private readonly names: NameLookup | undefined = undefined,
  ) {}

  /** Same contract as analyze(url, options, signal), run on a thread. */
  analyze = (url: string, signal: AbortSignal, run: AnalysisRun = {}): Promise<AnalysisResult> =>
    new Promise<AnalysisResult>((resolve, reject) => {
      if (this.closed) return reject(new Error("The analysis threads are closed"));
      const job: Job = { id: this.nextId++, url, run, signal, resolve, reject };
      this.waiting.push(job);
      this.dispatch();
    });

  /** Threads running now (for tests and metrics). */
  get threads(): number {
    return this.slots.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(new Error("The analysis threads are closed"));
    await Promise.all(
      this.slots.splice(0).map((slot) => this.retire(slot, new Error("The analysis threads are closed"))),
    );
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      // The least busy thread with room; a new one (up to the limit) rather than doubling up,
      // so that analyses spread over the cores first.
      const open = this.slots.filter((candidate) => candidate.jobs.size < this.size.perThread);
      let slot = open.sort((a, b) => a.jobs.size - b.jobs.size)[0];
      if ((!slot || slot.jobs.size > 0) && this.slots.length < this.size.threads) slot = this.spawn();
      if (!slot) return;
      this.start(slot, this.waiting.shift() as Job);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(ENTRY, { workerData: this.setup });
    worker.unref(); // idle threads never keep the process alive
    const slot: Slot = { worker, jobs: new Map(), retired: false };
    worker.on("message", (message: FromThread) => this.settle(slot, message));
    worker.on("error", (error) => this.lost(slot, error instanceof Error ? error : new Error(String(error))));
    worker.on("exit", (code) => this.lost(slot, new Error(`The analysis thread exited (code ${code})`)));
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    slot.jobs.set(job.id, job);
    slot.worker.postMessage({
      type: "analyze",
      id: job.id,
      url: job.url,
      run: job.run,
    } satisfies ToThread);
    if (job.signal.aborted) this.abort(slot, job);
    else job.signal.addEventListener("abort", () => this.abort(slot, job), { once: true });
  }

  private abort(slot: Slot, job: Job): void {
    if (slot.jobs.get(job.id) !== job) return;
    slot.worker.postMessage({ type: "abort", id: job.id });
    // The analysis normally ends within a few ms (its requests are cancelled) with a partial
    // report or an error; a thread busy in CPU work cannot hear us, so it is replaced.
    const timer = setTimeout(() => {
      if (slot.jobs.get(job.id) !== job) return;
      const stuck = new SiteUnreachableError("aborted", "the analysis deadline passed, and the analysis was stopped");
      void this.retire(slot, stuck).then(() => this.dispatch());
    }, this.abortGraceMs);
    timer.unref();
  }

  private settle(slot: Slot, message: FromThread): void {
    const job = slot.jobs.get(message.id);
    if (slot.retired || !job) return;
    if (message.type === "intel") {
      void this.answerIntel(slot, message.id, message.query);
      return;
    }
    if (message.type === "names") {
      void this.answerNames(slot, message.id, message.query);
      return;
    }
    slot.jobs.delete(message.id);
    if (message.type === "done") job.resolve(message.result);
    else job.reject(rebuildError(message.error));
    this.dispatch();
  }

  private async answerIntel(slot: Slot, id: number, query: IntelQuery): Promise<void> {
    let reply: ToThread;
    try {
      reply = { type: "intel-answer", id, intel: this.intel ? await this.intel(query) : emptyIntel() };
    } catch (error) {
      reply = { type: "intel-answer", id, intel: null, error: (error as Error).message };
    }
    if (!slot.retired && slot.jobs.has(id)) slot.worker.postMessage(reply);
  }

  private async answerNames(slot: Slot, id: number, query: NameQuery): Promise<void> {
    let reply: ToThread;
    try {
      reply = { type: "names-answer", id, names: this.names ? await this.names(query) : EMPTY_DIRECTORY };
    } catch (error) {
      reply = { type: "names-answer", id, names: null, error: (error as Error).message };
    }
    if (!slot.retired && slot.jobs.has(id)) slot.worker.postMessage(reply);
  }

  /** The thread died (an uncaught error, or out of memory): fail its jobs, start afresh. */
  private lost(slot: Slot, error: Error): void {
    if (slot.retired) return;
    void this.retire(slot, error).then(() => this.dispatch());
  }

  private async retire(slot: Slot, error: Error): Promise<void> {
    slot.retired = true;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    const jobs = [...slot.jobs.values()];
    slot.jobs.clear();
    for (const job of jobs) job.reject(error);
    await slot.worker.terminate().catch(() => 0);
  }
}
