/**
 * Each account's email alerts: who gets them, which events, and whether at once (one email
 * per event) or as a daily digest. Without a row the account gets no alert emails (but the
 * owner still hears about a disabled webhook: see alerts.worker.ts).
 *
 * A recipient gets alerts only once it confirmed by the link of an email sent to it
 * (alert_recipients): anyone can type an address, and an account must not make the service
 * mail strangers (issue 30: 10 unconfirmed addresses × failing reports = a free spam relay).
 * And an account's alert emails, confirmations included, are capped per hour
 * (ALERT_MAILS_PER_HOUR): past it, events still reach the event log, webhooks and the digest.
 */
import { createHash, randomBytes } from "node:crypto";

import {
  isSubscribableEventType,
  SUBSCRIBABLE_EVENT_TYPES,
  type SubscribableEventType,
} from "../../../shared/events.ts";
import type { Queryable, Sql } from "../../platform/db/database.ts";
import type { AlertQueue } from "./alert-jobs.ts";

export const MAX_RECIPIENTS = 10;
/** Alert emails an account may be sent per hour (one email to all its recipients counts once; each confirmation counts). */
export const ALERT_MAILS_PER_HOUR = 20;
/** How long a confirmation link is good for, and how long before an unconfirmed address may be asked again. */
export const CONFIRMATION_TTL_HOURS = 7 * 24;
export const CONFIRMATION_RESEND_HOURS = 24;
/** What a new account's settings subscribe to: what needs a person's attention, not every report. */
export const DEFAULT_ALERT_EVENTS: SubscribableEventType[] = [
  "monitor.regressed",
  "monitor.skipped",
  "vulnerability.found",
  "report.failed",
];

export interface AlertSettings {
  recipients: string[];
  digest: boolean;
  events: SubscribableEventType[];
}

/** The settings as the page shows them: which recipients confirmed. */
export interface AlertSettingsView extends AlertSettings {
  confirmed: string[];
}

/** An hour's allowance of alert email: `last` when this email is the last of the hour. */
export type MailAllowance = { allowed: false } | { allowed: true; last: boolean };

const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

/** A setting a person can fix; the message says how. */
export class AlertSettingsError extends Error {
  constructor(
    message: string,
    readonly field: "recipients" | "events",
  ) {
    super(message);
    this.name = "AlertSettingsError";
  }
}

const EMAIL = /^[^\s@<>,;"()[\]\\]+@[^\s@<>,;"()[\]\\]+\.[^\s@<>,;"()[\]\\]+$/;

/** Addresses from a form's text (one per line, or separated by commas or spaces), checked and deduplicated. */
export function parseRecipients(text: string): string[] {
  const addresses = [
    ...new Set(
      text
        .split(/[\s,;]+/)
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  const bad = addresses.find((address) => address.length > 254 || !EMAIL.test(address));
  if (bad !== undefined) throw new AlertSettingsError(`“${bad.slice(0, 80)}” is not an email address.`, "recipients");
  if (addresses.length > MAX_RECIPIENTS)
    throw new AlertSettingsError(`At most ${MAX_RECIPIENTS} recipients, please.`, "recipients");
  return addresses;
}

export class AlertSettingsService {
  constructor(
    private readonly sql: Sql,
    /** Undefined when email is off (SMTP_URL unset): nothing is sent, so nothing to confirm. */
    private readonly queue?: AlertQueue,
  ) {}

  async get(accountId: string): Promise<AlertSettingsView> {
    const [row] = await this.sql<{ recipients: string[]; digest: boolean; events: string[]; confirmed: string[] }[]>`
      select s.recipients, s.digest, s.events,
        coalesce((select array_agg(r.email order by r.email) from alert_recipients r
                  where r.account_id = s.account_id and r.confirmed_at is not null
                    and r.email = any(s.recipients)), '{}') as confirmed
      from alert_settings s where s.account_id = ${accountId}`;
    if (!row) return { recipients: [], digest: false, events: [...DEFAULT_ALERT_EVENTS], confirmed: [] };
    return {
      recipients: row.recipients,
      digest: row.digest,
      events: row.events.filter(isSubscribableEventType),
      confirmed: row.confirmed,
    };
  }

  async save(accountId: string, settings: AlertSettings): Promise<AlertSettingsView> {
    const recipients = parseRecipients(settings.recipients.join("\n"));
    const events = SUBSCRIBABLE_EVENT_TYPES.filter((type) => settings.events.includes(type));
    if (recipients.length > 0 && events.length === 0)
      throw new AlertSettingsError("Choose at least one event to be told about.", "events");
    await this.sql.begin(async (tx) => {
      // Turning the digest on starts its window now: the first digest covers what happens next.
      // In milliseconds, as JavaScript's dates hold it: the digest compares it as it read it.
      await tx`
        insert into alert_settings (account_id, recipients, digest, events, digest_sent_until, updated_at)
        values (${accountId}, ${recipients}, ${settings.digest}, ${events}, date_trunc('milliseconds', now()), now())
        on conflict (account_id) do update set
          recipients = excluded.recipients, digest = excluded.digest, events = excluded.events,
          digest_sent_until = case when alert_settings.digest and alert_settings.digest_sent_until is not null
                                   then alert_settings.digest_sent_until else excluded.digest_sent_until end,
          updated_at = now()`;
      await this.askConfirmation(tx, accountId, recipients);
    });
    this.queue?.wake();
    return this.get(accountId);
  }

  /**
   * Queues a confirmation email for each recipient that never confirmed and was not asked in
   * the last CONFIRMATION_RESEND_HOURS (an address removed and added again is not asked
   * again at once). The link's token is made when the email is sent (issueToken), so no
   * readable token waits in the job table.
   */
  private async askConfirmation(tx: Queryable, accountId: string, recipients: string[]): Promise<void> {
    if (!this.queue || recipients.length === 0) return;
    const fresh = await tx<{ email: string }[]>`
      insert into alert_recipients (account_id, email)
      select ${accountId}, email from unnest(${recipients}::text[]) as email
      on conflict (account_id, email) do update set requested_at = now()
        where alert_recipients.confirmed_at is null
          and alert_recipients.requested_at < now() - ${CONFIRMATION_RESEND_HOURS} * interval '1 hour'
      returning email`;
    // A brand-new row's requested_at is now() as well; both need an email.
    for (const { email } of fresh) await this.queue.enqueue(tx, { kind: "confirm", accountId, email });
  }

  /** A fresh confirmation token for an unconfirmed recipient still listed (its hash is kept); undefined otherwise. */
  async issueToken(accountId: string, email: string): Promise<string | undefined> {
    const token = randomBytes(24).toString("base64url");
    const rows = await this.sql`
      update alert_recipients r set token_hash = ${tokenHash(token)}
      from alert_settings s
      where r.account_id = ${accountId} and r.email = ${email} and r.confirmed_at is null
        and s.account_id = r.account_id and r.email = any(s.recipients)
      returning r.email`;
    return rows.length > 0 ? token : undefined;
  }

  /** The recipient a confirmation link names, if the link is good (unused, not expired); confirms it when `apply`. */
  async confirm(token: string, apply: boolean): Promise<string | undefined> {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return undefined;
    const hash = tokenHash(token);
    const rows = apply
      ? await this.sql<{ email: string }[]>`
          update alert_recipients set confirmed_at = now(), token_hash = null
          where token_hash = ${hash} and confirmed_at is null
            and requested_at > now() - ${CONFIRMATION_TTL_HOURS} * interval '1 hour'
          returning email`
      : await this.sql<{ email: string }[]>`
          select email from alert_recipients
          where token_hash = ${hash} and confirmed_at is null
            and requested_at > now() - ${CONFIRMATION_TTL_HOURS} * interval '1 hour'`;
    return rows[0]?.email;
  }

  /** The account's recipients that confirmed: the only addresses alert email goes to. */
  async confirmedRecipients(accountId: string): Promise<string[]> {
    return (await this.get(accountId)).confirmed;
  }

  /**
   * Takes one email from the account's hourly allowance (ALERT_MAILS_PER_HOUR); refused past
   * it. One statement, so concurrent senders never exceed it.
   */
  async takeMailAllowance(accountId: string): Promise<MailAllowance> {
    const [row] = await this.sql<{ sent: number }[]>`
      insert into alert_mail_counts (account_id, hour, sent)
      values (${accountId}, date_trunc('hour', now()), 1)
      on conflict (account_id, hour) do update set sent = alert_mail_counts.sent + 1
        where alert_mail_counts.sent < ${ALERT_MAILS_PER_HOUR}
      returning sent`;
    if (!row) return { allowed: false };
    return { allowed: true, last: row.sent >= ALERT_MAILS_PER_HOUR };
  }

  /** Drops the hourly counts no limit reads any more (the daily job). */
  async sweepMailCounts(): Promise<void> {
    await this.sql`delete from alert_mail_counts where hour < date_trunc('hour', now()) - interval '1 hour'`;
  }

  /**
   * How an event of this type reaches the account's mailboxes: at once (the caller queues the
   * email in its transaction), in the next digest (nothing to do now: the digest reads the
   * events table), or not at all — also when no recipient confirmed yet.
   */
  async routeOf(tx: Queryable, accountId: string, type: string): Promise<"immediate" | "digest" | "none"> {
    const [row] = await tx<{ digest: boolean }[]>`
      select digest from alert_settings s
      where s.account_id = ${accountId} and ${type} = any(s.events)
        and exists (select 1 from alert_recipients r
                    where r.account_id = s.account_id and r.confirmed_at is not null and r.email = any(s.recipients))`;
    if (!row) return "none";
    return row.digest ? "digest" : "immediate";
  }
}
