/**
 * The words of alert emails, in plain text: one event, the daily digest, and the notice that
 * a webhook was disabled. Built from describeEvent, like the Slack body, so every channel
 * says the same thing.
 */
import type { EventData, EventType } from "../../../shared/events.ts";
import { oneLine } from "../../../shared/untrusted-text.ts";
import { describeEvent } from "../events/event-text.ts";
import { ALERT_MAILS_PER_HOUR, CONFIRMATION_TTL_HOURS } from "./alert-settings.service.ts";
import type { MailMessage } from "./mailer.ts";

export interface MailEvent {
  type: EventType;
  data: EventData<EventType>;
  createdAt: Date;
}

/** Most events written out in one digest; the rest are counted (the web and the API have them all). */
export const DIGEST_MAX_EVENTS = 200;

const footer = (baseUrl: string) =>
  ["", "--", "wpreport alerts. Change who gets them and which events:", `${baseUrl}/alerts`].join("\n");

function eventBlock(event: MailEvent): string {
  const { title, lines, link } = describeEvent(event.type, event.data);
  return [title, ...lines.map((line) => `  - ${line}`), ...(link ? [`  ${link}`] : [])].join("\n");
}

export function eventMail(
  to: string[],
  event: MailEvent,
  baseUrl: string,
  options: { lastThisHour?: boolean } = {},
): MailMessage {
  const { title } = describeEvent(event.type, event.data);
  const last = options.lastThisHour
    ? [
        "",
        `This is the last alert email this account gets this hour (at most ${ALERT_MAILS_PER_HOUR} an hour). Further events are in the event log, the webhooks and the digest:`,
        `${baseUrl}/alerts`,
      ]
    : [];
  return {
    to,
    subject: `[wpreport] ${title}`,
    text: [eventBlock(event), "", `At ${event.createdAt.toISOString()}`, ...last, footer(baseUrl)].join("\n"),
  };
}

/**
 * The email a new recipient confirms by. It says who added the address, and that nothing is
 * sent to it unless it confirms; it carries no text from analysed sites.
 */
export function confirmationMail(to: string, accountEmail: string, link: string): MailMessage {
  return {
    to: [to],
    subject: "[wpreport] Confirm that you want alert emails",
    text: [
      `${oneLine(accountEmail, 254) || "A wpreport account"} added ${to} to the recipients of its wpreport alerts (monitor regressions, vulnerabilities found, failed reports).`,
      "",
      "No alert is sent to this address unless you confirm. To confirm, open this link and press Confirm:",
      link,
      "",
      `The link works for ${CONFIRMATION_TTL_HOURS / 24} days. If you did not expect this, ignore this email: you will get nothing more.`,
    ].join("\n"),
  };
}

export function digestMail(
  to: string[],
  events: MailEvent[],
  total: number,
  window: { from: Date; to: Date },
  baseUrl: string,
): MailMessage {
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
  const summary = [...counts].map(([type, count]) => `${count} ${type}`).join(", ");
  return {
    to,
    subject: `[wpreport] Daily digest: ${total} event${total === 1 ? "" : "s"} (${summary})`,
    text: [
      `What happened between ${window.from.toISOString()} and ${window.to.toISOString()}:`,
      "",
      ...events.map((event) => `${eventBlock(event)}\n  (${event.createdAt.toISOString()})\n`),
      ...(total > events.length ? [`…and ${total - events.length} more events.`] : []),
      footer(baseUrl),
    ].join("\n"),
  };
}

export function webhookDisabledMail(
  to: string[],
  webhook: { id: string; url: string; reason: string | null },
  baseUrl: string,
): MailMessage {
  return {
    to,
    subject: `[wpreport] Webhook disabled: ${oneLine(webhook.url, 120)}`,
    text: [
      `Your webhook ${webhook.id} to ${oneLine(webhook.url, 500)} was disabled and receives no more events.`,
      "",
      oneLine(webhook.reason ?? "Every delivery failed for 3 days.", 600),
      "",
      "Fix the endpoint, send a test, then enable the webhook again:",
      `${baseUrl}/alerts/webhooks/${webhook.id}`,
      footer(baseUrl),
    ].join("\n"),
  };
}
