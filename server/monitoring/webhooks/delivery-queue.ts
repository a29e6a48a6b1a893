/**
 * The pg-boss queue of webhook delivery attempts. One job is one attempt of one delivery; a
 * retry is a new job with a start time, queued in the transaction that records the failed
 * attempt, so a crash never loses or doubles the schedule. pg-boss's own retry only covers a
 * worker that died mid-attempt (the job expires and another worker takes it).
 */
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../platform/db/database.ts";
import { inTransaction } from "../../platform/queue.ts";

export const WEBHOOK_DELIVERY_QUEUE = "webhook-delivery";

export interface DeliveryJob {
  deliveryId: string;
  /** 1-based number of the attempt this job makes; a job for an attempt already made is dropped. */
  attempt: number;
}

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

  /** Queues an attempt inside `tx`: it exists exactly when the transaction commits. */
  async enqueue(tx: Queryable, job: DeliveryJob, startAfterSeconds = 0): Promise<void> {
    await this.boss.send(WEBHOOK_DELIVERY_QUEUE, job as unknown as object, {
      ...(startAfterSeconds > 0 ? { startAfter: startAfterSeconds } : {}),
      db: inTransaction(tx),
    });
  }

  /** After a commit that queued attempts due now. */
  wake(): void {
    this.wakeLocal?.();
  }
}
