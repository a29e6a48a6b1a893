/**
 * Each account's email alerts: who gets them, which events, and whether at once (one email
 * per event) or as a daily digest. Without a row the account gets no alert emails (but the
 * owner still hears about a disabled webhook: see alerts.worker.ts).
 */

import {
  isSubscribableEventType,
  SUBSCRIBABLE_EVENT_TYPES,
  type SubscribableEventType,
} from "../../../shared/events.ts";
import type { Queryable, Sql } from "../../platform/db/database.ts";

export const MAX_RECIPIENTS = 10;
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
  constructor(private readonly sql: Sql) {}

  async get(accountId: string): Promise<AlertSettings> {
    const [row] = await this.sql<{ recipients: string[]; digest: boolean; events: string[] }[]>`
      select recipients, digest, events from alert_settings where account_id = ${accountId}`;
    if (!row) return { recipients: [], digest: false, events: [...DEFAULT_ALERT_EVENTS] };
    return { recipients: row.recipients, digest: row.digest, events: row.events.filter(isSubscribableEventType) };
  }

  async save(accountId: string, settings: AlertSettings): Promise<AlertSettings> {
    const recipients = parseRecipients(settings.recipients.join("\n"));
    const events = SUBSCRIBABLE_EVENT_TYPES.filter((type) => settings.events.includes(type));
    if (recipients.length > 0 && events.length === 0)
      throw new AlertSettingsError("Choose at least one event to be told about.", "events");
    // Turning the digest on starts its window now: the first digest covers what happens next.
    // In milliseconds, as JavaScript's dates hold it: the digest compares it as it read it.
    await this.sql`
      insert into alert_settings (account_id, recipients, digest, events, digest_sent_until, updated_at)
      values (${accountId}, ${recipients}, ${settings.digest}, ${events}, date_trunc('milliseconds', now()), now())
      on conflict (account_id) do update set
        recipients = excluded.recipients, digest = excluded.digest, events = excluded.events,
        digest_sent_until = case when alert_settings.digest and alert_settings.digest_sent_until is not null
                                 then alert_settings.digest_sent_until else excluded.digest_sent_until end,
        updated_at = now()`;
    return { recipients, digest: settings.digest, events };
  }

  /**
   * How an event of this type reaches the account's mailboxes: at once (the caller queues the
   * email in its transaction), in the next digest (nothing to do now: the digest reads the
   * events table), or not at all.
   */
  async routeOf(tx: Queryable, accountId: string, type: string): Promise<"immediate" | "digest" | "none"> {
    const [row] = await tx<{ digest: boolean }[]>`
      select digest from alert_settings
      where account_id = ${accountId} and cardinality(recipients) > 0 and ${type} = any(events)`;
    if (!row) return "none";
    return row.digest ? "digest" : "immediate";
  }
}
