/**
 * The pg-boss queue of webhook delivery attempts. One job is one attempt of one delivery; a
 * retry is a new job with a start time, queued in the transaction that records the failed
 * attempt, so a crash never loses or doubles the schedule. pg-boss's own retry only covers a
 * worker that died mid-attempt (the job expires and another worker takes it).
 *
 * Fair per account (issue 30: 280 tests of one account to a slow endpoint delayed another
 * account's delivery from 0.1 s to 68 s): each job is in its account's pg-boss group, and the
 * worker fetches at most DELIVERY_ATTEMPTS_PER_ACCOUNT of one group's attempts at once across
 * the service; and in each worker process one account's attempts hold at most half of its
 * slots (delivery.worker.ts) — one account's backlog, however slow its endpoint, leaves the
 * other slots to everyone else.
 */
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../platform/db/database.ts";
import { inTransaction } from "../../platform/queue.ts";

export const WEBHOOK_DELIVERY_QUEUE = "webhook-delivery";

export interface DeliveryJob {
  deliveryId: string;
  /** 1-based number of the attempt this job makes; a job for an attempt already made is dropped. */
  attempt: number;
  /** The webhook's account: whose share of the delivery slots the attempt takes (absent in older jobs). */
  accountId?: string;
}

/**
 * Attempts of one account made at once, across every worker (pg-boss group concurrency,
 * counted in the database). As many as one fetch takes (DELIVERY_BATCH), so one account's
 * backlog of fast deliveries still goes out back to back.
 */
export const DELIVERY_ATTEMPTS_PER_ACCOUNT = 10;

/** A delivery attempt takes at most 10 s of HTTP and a few statements. */
const ATTEMPT_EXPIRY_SECONDS = 60;

export async function createDeliveryQueue(boss: PgBoss, notify: boolean): Promise<void> {
  await boss.createQueue(WEBHOOK_DELIVERY_QUEUE, {
    // A job whose worker died is offered again after its expiry and this delay: longer than the
    // claim's staleness (delivery.worker.ts), so the new attempt may take the claim over.
    retryLimit: 2,
    retryDelay: 60,
    notify,
    expireInSeconds: ATTEMPT_EXPIRY_SECONDS,
    deleteAfterSeconds: 7 * 24 * 3600,
  });
}

export class DeliveryQueue {
  /** Set by this process's delivery worker: fetch now instead of at the next poll. */
  wakeLocal: (() => void) | undefined;

  constructor(private readonly boss: PgBoss) {}

  /** Queues an attempt of the account's delivery inside `tx`: it exists exactly when the transaction commits. */
  async enqueue(
    tx: Queryable,
    accountId: string,
    job: DeliveryJob,
    startAfterSeconds = 0,
    /** Below 0 for an attempt put back because its account had its share: it goes behind the others. */
    priority = 0,
  ): Promise<void> {
    await this.boss.send(WEBHOOK_DELIVERY_QUEUE, { ...job, accountId } as unknown as object, {
      ...(startAfterSeconds > 0 ? { startAfter: startAfterSeconds } : {}),
      ...(priority !== 0 ? { priority } : {}),
      group: { id: accountId },
      db: inTransaction(tx),
    });
  }

  /** After a commit that queued attempts due now. */
  wake(): void {
    this.wakeLocal?.();
  }
}
