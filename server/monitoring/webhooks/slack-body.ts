/**
 * The Slack-compatible body (format `slack`): `{ "text": "…" }`, what Slack's incoming
 * webhooks take — and Mattermost's, and Discord's `/slack` endpoints. A plain summary with a
 * link; the signed standard headers are sent all the same.
 *
 * Slack reads `&`, `<` and `>` as markup (`<!channel>` pings everyone, `<url|text>` is a
 * link): they are escaped as Slack documents, so text from a site cannot ping or disguise a
 * link. The one link is ours, written in Slack's link form.
 */
import type { EventData, EventType } from "../../../shared/events.ts";
import { describeEvent } from "../events/event-text.ts";

export function escapeSlack(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function slackBody(type: EventType, data: EventData<EventType>): string {
  const { title, lines, link } = describeEvent(type, data);
  const text = [
    `*${escapeSlack(title)}*`,
    ...lines.map((line) => `• ${escapeSlack(line)}`),
    ...(link ? [`<${escapeSlack(link).replace(/\|/g, "%7C")}|Open in wpreport>`] : []),
  ].join("\n");
  return JSON.stringify({ text });
}
