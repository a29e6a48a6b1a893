/**
 * The words of alert emails, in plain text: one event, the daily digest, and the notice that
 * a webhook was disabled. Built from describeEvent, like the Slack body, so every channel
 * says the same thing.
 */
import type { EventData, EventType } from "../../../shared/events.ts";
import { oneLine } from "../../../shared/untrusted-text.ts";
import { describeEvent } from "../events/event-text.ts";
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

export function eventMail(to: string[], event: MailEvent, baseUrl: string): MailMessage {
  const { title } = describeEvent(event.type, event.data);
  return {
    to,
    subject: `[wpreport] ${title}`,
    text: [eventBlock(event), "", `At ${event.createdAt.toISOString()}`, footer(baseUrl)].join("\n"),
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
