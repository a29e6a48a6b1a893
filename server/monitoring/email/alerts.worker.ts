/**
 * Sends the alert emails, in the worker role: `alert-email` jobs (one event at once, or a
 * webhook's disabling), and the digest of the daily job (monitoring.ts). Only built when
 * SMTP_URL is set.
 */
import type { PgBoss } from "pg-boss";
import type { EventData, EventType } from "../../../shared/events.ts";
import type { Sql } from "../../platform/db/database.ts";
import type { Logger } from "../../platform/logger.ts";
import type { EventService } from "../events/event.service.ts";
import { ALERT_EMAIL_QUEUE, type AlertEmailJob, type AlertQueue } from "./alert-jobs.ts";
import { confirmationMail, DIGEST_MAX_EVENTS, digestMail, eventMail, webhookDisabledMail } from "./alert-mail.ts";
import type { AlertSettingsService } from "./alert-settings.service.ts";
import type { Mailer } from "./mailer.ts";

export interface AlertWorkerDeps {
  sql: Sql;
  boss: PgBoss;
  queue: AlertQueue;
  mailer: Mailer;
  settings: AlertSettingsService;
  events: EventService;
  /** PUBLIC_BASE_URL: links in the emails. */
  baseUrl: string;
  logger: Logger;
}

export class AlertWorker {
  private workerId: string | undefined;

  constructor(private readonly deps: AlertWorkerDeps) {}

  async start(): Promise<void> {
    const { boss, queue } = this.deps;
    const mail = await boss.work<AlertEmailJob>(
      ALERT_EMAIL_QUEUE,
      { localConcurrency: 2, batchSize: 1, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
      async ([job]) => {
        if (job) await this.send(job.data);
      },
    );
    this.workerId = mail;
    queue.wakeLocal = () => boss.notifyWorker(mail);
  }

  async stop(): Promise<void> {
    this.deps.queue.wakeLocal = undefined;
    if (this.workerId) await this.deps.boss.offWork(ALERT_EMAIL_QUEUE, { id: this.workerId, wait: true });
    this.workerId = undefined;
  }

  /** One alert email job. Public for tests; the queue calls it. A failure throws: pg-boss retries. */
  async send(job: AlertEmailJob): Promise<void> {
    const { sql, settings, mailer, baseUrl, events } = this.deps;
    if (job.kind === "confirm") {
      const token = await settings.issueToken(job.accountId, job.email);
      if (!token) return; // confirmed or removed meanwhile
      const allowance = await settings.takeMailAllowance(job.accountId);
      if (!allowance.allowed) return this.overAllowance(job);
      const [account] = await sql<{ email: string }[]>`select email from accounts where id = ${job.accountId}`;
      await mailer.send(confirmationMail(job.email, account?.email ?? "", `${baseUrl}/alerts/confirm?token=${token}`));
      return;
    }
    if (job.kind === "event") {
      const event = await events.get(job.eventId);
      if (!event || event.accountId !== job.accountId) return;
      // The settings as they are now: a recipient removed meanwhile gets nothing; only
      // recipients who confirmed get anything.
      const current = await settings.get(job.accountId);
      if (current.digest || !(current.events as string[]).includes(event.type)) return;
      if (current.confirmed.length === 0) return;
      const allowance = await settings.takeMailAllowance(job.accountId);
      if (!allowance.allowed) return this.overAllowance(job);
      await mailer.send(eventMail(current.confirmed, event, baseUrl, { lastThisHour: allowance.last }));
      return;
    }
    const [webhook] = await sql<{ id: string; url: string; disabled_reason: string | null; email: string }[]>`
      select w.id, w.url, w.disabled_reason, a.email from webhooks w join accounts a on a.id = w.account_id
      where w.id = ${job.webhookId} and w.account_id = ${job.accountId} and w.disabled_at is not null`;
    if (!webhook) return; // deleted or enabled again meanwhile
    const recipients = await settings.confirmedRecipients(job.accountId);
    const to = [...new Set([webhook.email.toLowerCase(), ...recipients])];
    await mailer.send(
      webhookDisabledMail(to, { id: webhook.id, url: webhook.url, reason: webhook.disabled_reason }, baseUrl),
    );
  }

  /** Past the account's hourly allowance: not sent (the event stays in the log, webhooks and the digest). */
  private overAllowance(job: AlertEmailJob): void {
    this.deps.logger.info("alert email not sent: the account's hourly allowance is used", {
      account_id: job.accountId,
      kind: job.kind,
    });
  }

  /**
   * The daily digest: each account that chose it gets one email with its subscribed events
   * since the previous digest (none when nothing happened). The window moves on only after
   * the email was accepted, so an SMTP failure puts those events in the retry (or tomorrow's).
   */
  async digest(now = new Date()): Promise<{ sent: number; failed: number }> {
    const { sql, mailer, baseUrl, logger } = this.deps;
    const accounts = await sql<
      { account_id: string; recipients: string[]; events: string[]; digest_sent_until: Date | null }[]
    >`
      select s.account_id, array_agg(r.email order by r.email) as recipients, s.events, s.digest_sent_until
      from alert_settings s
      join alert_recipients r on r.account_id = s.account_id and r.email = any(s.recipients) and r.confirmed_at is not null
      where s.digest group by s.account_id order by s.account_id`;
    let sent = 0;
    let failed = 0;
    for (const account of accounts) {
      const from = account.digest_sent_until ?? new Date(now.getTime() - 24 * 3_600_000);
      try {
        const rows = await sql<{ type: EventType; data: EventData<EventType>; created_at: Date }[]>`
          select type, data, created_at from events
          where account_id = ${account.account_id} and type = any(${account.events})
            and created_at > ${from} and created_at <= ${now}
          order by created_at, id limit ${DIGEST_MAX_EVENTS}`;
        if (rows.length > 0) {
          const [count] = await sql<{ n: number }[]>`
            select count(*)::int as n from events
            where account_id = ${account.account_id} and type = any(${account.events})
              and created_at > ${from} and created_at <= ${now}`;
          const list = rows.map((row) => ({ type: row.type, data: row.data, createdAt: row.created_at }));
          await mailer.send(digestMail(account.recipients, list, count?.n ?? rows.length, { from, to: now }, baseUrl));
          sent++;
        }
        // Moved on only if no other run did meanwhile (both values in milliseconds: see alert-settings.service.ts).
        const moved = await sql`
          update alert_settings set digest_sent_until = ${now}
          where account_id = ${account.account_id} and digest_sent_until is not distinct from ${account.digest_sent_until}
          returning account_id`;
        if (moved.length === 0)
          logger.warn("alert digest window moved by another run", { account_id: account.account_id });
      } catch (error) {
        failed++;
        logger.error("alert digest not sent", { account_id: account.account_id, error });
      }
    }
    // The accounts that failed are tried again with the job's retry (their window did not move).
    if (failed > 0) throw new Error(`the daily digest failed for ${failed} account(s)`);
    return { sent, failed };
  }
}
