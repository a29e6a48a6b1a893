/**
 * The pg-boss queue of vulnerability fan-outs: one job per batch of advisories an intel import
 * added (intel/advisories-added.ts), queued in the transaction that serves the import — so the
 * import itself (a refresh job, the CLI, a request) never matches sites, and a served import
 * always gets its fan-out. pg-boss retries a failed job; vulnerability_notices makes a retry
 * tell nobody twice.
 */
import type { PgBoss } from "pg-boss";
import type { AddedAdvisory } from "../../intel/advisories-added.ts";
import type { Queryable } from "../../platform/db/database.ts";
import { inTransaction } from "../../platform/queue.ts";

export const VULNERABILITY_FAN_OUT_QUEUE = "vulnerability-fan-out";

/** Advisories per job: a job's data stays small, and a big import's fan-out is spread over jobs. */
export const ADVISORIES_PER_JOB = 50;

export interface FanOutJob {
  source: string;
  generation: string;
  advisories: AddedAdvisory[];
}

export async function createFanOutQueue(boss: PgBoss, notify: boolean): Promise<void> {
  await boss.createQueue(VULNERABILITY_FAN_OUT_QUEUE, {
    retryLimit: 5,
    retryDelay: 30,
    retryBackoff: true,
    notify,
    // Thousands of sites for one advisory take seconds (bench:fan-out); room to spare.
    expireInSeconds: 15 * 60,
    deleteAfterSeconds: 7 * 24 * 3600,
  });
}

export class FanOutQueue {
  /** Set by this process's fan-out worker: fetch now instead of at the next poll. */
  wakeLocal: (() => void) | undefined;

  constructor(private readonly boss: PgBoss) {}

  /** Queues the fan-out of `advisories` inside `tx`, in jobs of ADVISORIES_PER_JOB. */
  async enqueue(tx: Queryable, batch: FanOutJob): Promise<void> {
    for (let i = 0; i < batch.advisories.length; i += ADVISORIES_PER_JOB) {
      const job: FanOutJob = { ...batch, advisories: batch.advisories.slice(i, i + ADVISORIES_PER_JOB) };
      await this.boss.send(VULNERABILITY_FAN_OUT_QUEUE, job as unknown as object, { db: inTransaction(tx) });
    }
  }

  wake(): void {
    this.wakeLocal?.();
  }
}
