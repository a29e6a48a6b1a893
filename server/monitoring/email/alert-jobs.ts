/**
 * The pg-boss queues of monitoring's email and upkeep: `alert-email` sends one message (an
 * event at once, a recipient's confirmation link, or the notice that a webhook was disabled), retried when the SMTP server
 * fails; `monitoring-daily` runs once a day (a pg-boss schedule: one job per day however many
 * workers), sends each account that chose the digest its day's events, and drops events past
 * their retention.
 */
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../platform/db/database.ts";
import { inTransaction } from "../../platform/queue.ts";

export const ALERT_EMAIL_QUEUE = "alert-email";
export const MONITORING_DAILY_QUEUE = "monitoring-daily";
/** The daily job runs at 07:00 UTC: the digest covers everything since the previous one. */
export const DAILY_CRON = "0 7 * * *";

export type AlertEmailJob =
  | { kind: "event"; accountId: string; eventId: string }
  /** The email with the link a new recipient confirms by (the token is made when it is sent). */
  | { kind: "confirm"; accountId: string; email: string }
  | { kind: "webhook_disabled"; accountId: string; webhookId: string };

export async function createAlertQueues(boss: PgBoss, notify: boolean): Promise<void> {
  await boss.createQueue(ALERT_EMAIL_QUEUE, {
    // An SMTP server that is down for a while: 30 s, 1 min, 2 min… up to an hour, 8 times.
    retryLimit: 8,
    retryDelay: 30,
    retryBackoff: true,
    retryDelayMax: 3600,
    notify,
    expireInSeconds: 120,
    deleteAfterSeconds: 7 * 24 * 3600,
  });
  await boss.createQueue(MONITORING_DAILY_QUEUE, {
    policy: "stately",
    retryLimit: 3,
    retryDelay: 300,
    expireInSeconds: 1800,
    deleteAfterSeconds: 7 * 24 * 3600,
  });
  await boss.schedule(MONITORING_DAILY_QUEUE, DAILY_CRON, {}, { tz: "UTC" });
}

export class AlertQueue {
  wakeLocal: (() => void) | undefined;

  constructor(private readonly boss: PgBoss) {}

  async enqueue(tx: Queryable, job: AlertEmailJob): Promise<void> {
    await this.boss.send(ALERT_EMAIL_QUEUE, job as unknown as object, { db: inTransaction(tx) });
  }

  wake(): void {
    this.wakeLocal?.();
  }
}
