/**
 * The events wpreport tells its users about (webhooks, email alerts): their types and the
 * schema of each one's `data`, written once. The service validates what it emits against
 * them, the OpenAPI document and docs/monitoring.md describe them, and receivers written in
 * TypeScript can type their handlers with `EventEnvelope<"monitor.regressed">`.
 *
 * The envelope is the Standard Webhooks one (https://www.standardwebhooks.com/):
 *   { "type": "report.completed", "timestamp": "2026-11-03T07:12:09.123Z", "data": { … } }
 * and a delivery's `webhook-id` header is the event's id (evt_…), the same for every retry and
 * redelivery, so a receiver can drop duplicates by it.
 *
 * Compatibility (as the report's): within v1 changes are additive — a new event type, a new
 * field in `data` — so receivers must ignore what they do not know.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { CheckChangeSchema, VerdictSchema } from "./diff-schema.ts";
import { GradeSchema, SeveritySchema, VULNERABILITY_DATA_STATUSES } from "./report.ts";
import { Count, Nullable, named, Percent, StringEnum } from "./schema.ts";

/** Event types a webhook or an email alert can subscribe to. */
export const SUBSCRIBABLE_EVENT_TYPES = [
  "report.completed",
  "report.failed",
  "monitor.regressed",
  "monitor.skipped",
  "vulnerability.found",
] as const;
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

/** Every event type; `webhook.test` is sent only by POST /api/webhooks/{id}/test, to that webhook. */
export const EVENT_TYPES = [...SUBSCRIBABLE_EVENT_TYPES, "webhook.test"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EventTypeSchema = named(
  "EventType",
  StringEnum(SUBSCRIBABLE_EVENT_TYPES, { description: "An event a webhook or an email alert can subscribe to" }),
);

export function isSubscribableEventType(value: string): value is SubscribableEventType {
  return (SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(value);
}

const Timestamp = (description?: string) =>
  Type.String({ format: "date-time", ...(description ? { description } : {}) });

export const EventReportLinksSchema = named(
  "EventReportLinks",
  Type.Object({
    api: Type.String({ format: "uri", description: "GET this with your token for the full report (JSON or SARIF)" }),
    web: Type.String({ format: "uri", description: "The report's page in the web interface" }),
  }),
);

/** The report an event is about, as the report stores it (site text already cleaned). */
export const EventReportSchema = named(
  "EventReport",
  Type.Object({
    id: Type.String({ description: "rep_…" }),
    url: Type.String({ description: "The analyzed URL, as the report stores it" }),
    environment: Nullable(Type.String(), { description: "metadata.environment of the report; null when none" }),
    status: StringEnum(["completed", "failed"]),
    grade: Nullable(GradeSchema),
    score: Nullable(Percent()),
    created_at: Timestamp(),
    completed_at: Nullable(Timestamp()),
    incomplete: Type.Optional(
      Type.Boolean({
        description:
          "True when the report completed incomplete (the homepage asked for credentials, most probes got no answer…): no grade, nothing of it was checked. Absent in events emitted before it was added.",
      }),
    ),
    vulnerability_data: Type.Optional(
      StringEnum(VULNERABILITY_DATA_STATUSES, {
        description:
          'How far the report\'s vulnerabilities were checked (intel.vulnerability_data.status): complete; partial (see vulnerabilities_unchecked); none (no source answered, or the report is incomplete: "no known vulnerabilities" cannot be said). Absent in events emitted before it was added.',
      }),
    ),
    vulnerabilities_unchecked: Type.Optional(
      Type.Array(Type.Object({ type: StringEnum(["core", "theme", "plugin"]), slug: Type.String() }), {
        description: "The components no vulnerability source checked (vulnerability_data partial)",
      }),
    ),
    not_checked: Type.Optional(
      Count({
        description:
          "How many checks could not run (a firewall challenge, a persisting 429, a 5xx or a timeout met their probe): neither passed nor failed (summary.not_checked)",
      }),
    ),
    links: EventReportLinksSchema,
  }),
);
export type EventReport = Static<typeof EventReportSchema>;

export const EventFailedReportSchema = named(
  "EventFailedReport",
  Type.Object({
    id: Type.String({ description: "rep_…" }),
    url: Type.String(),
    environment: Nullable(Type.String()),
    status: Type.Literal("failed"),
    error: Type.Object({
      code: Type.String({ description: "The problem code of the failure (docs/errors.md), e.g. site_unreachable" }),
      detail: Type.String(),
    }),
    created_at: Timestamp(),
    links: EventReportLinksSchema,
  }),
);

export const EventMonitorSchema = named(
  "EventMonitor",
  Type.Object({
    id: Type.String({ description: "mon_…" }),
    url: Type.String(),
    environment: Nullable(Type.String()),
    schedule: Type.String({ description: "hourly, daily, weekly or a 5-field cron expression (UTC)" }),
  }),
);

const MonitorId = Nullable(Type.String(), {
  description:
    "The monitor whose run made the report (mon_…); null for reports asked for through the API, the web or the Action",
});

/** `data` of each event type. */
export const EVENT_DATA_SCHEMAS = {
  "report.completed": named(
    "ReportCompletedData",
    Type.Object({ report: EventReportSchema, monitor_id: MonitorId }, { description: "A report completed" }),
  ),
  "report.failed": named(
    "ReportFailedData",
    Type.Object(
      { report: EventFailedReportSchema, monitor_id: MonitorId },
      { description: "An analysis ended without a report (not charged)" },
    ),
  ),
  "monitor.regressed": named(
    "MonitorRegressedData",
    Type.Object(
      {
        monitor: EventMonitorSchema,
        report: EventReportSchema,
        baseline: Type.Object({
          id: Nullable(Type.String(), { description: "The baseline report; null when there was none" }),
          rule: Type.String({ description: "The baseline rule, e.g. last-passing (docs/diff.md#the-baseline)" }),
          reason: Type.String({ description: "Why this baseline, in plain words" }),
        }),
        verdict: VerdictSchema,
        regressions: Type.Array(CheckChangeSchema, { description: "The diff's regressions" }),
      },
      { description: "A monitor's run failed the gate against its baseline, by the same rule as the Action" },
    ),
  ),
  "monitor.skipped": named(
    "MonitorSkippedData",
    Type.Object(
      {
        monitor: EventMonitorSchema,
        scheduled_for: Timestamp("The run that was skipped"),
        reason: Type.String({
          description:
            "Why: quota_exhausted, rate_limited, overloaded, url_not_allowed… (a problem code of docs/errors.md)",
        }),
        detail: Type.String(),
      },
      { description: "A monitor's scheduled run did not happen" },
    ),
  ),
  "vulnerability.found": named(
    "VulnerabilityFoundData",
    Type.Object(
      {
        site: Type.Object({
          id: Type.String({ description: "sit_…" }),
          url: Type.String(),
          environment: Nullable(Type.String()),
        }),
        report_id: Type.String({ description: "The site's latest report, whose components matched" }),
        monitor_id: MonitorId,
        component: Type.Object({
          type: StringEnum(["core", "plugin", "theme"]),
          slug: Type.String(),
          name: Nullable(Type.String()),
          version: Nullable(Type.String(), { description: "The installed version the advisory affects" }),
        }),
        advisory: Type.Object({
          id: Type.String(),
          title: Type.String(),
          cve: Type.Array(Type.String()),
          severity: SeveritySchema,
          cvss_score: Nullable(Type.Number({ minimum: 0, maximum: 10 })),
          fixed_in: Nullable(Type.String(), { description: "The version to update to; null when unfixed" }),
          references: Type.Array(Type.String()),
          source: Type.String({ description: "Which intel source published it" }),
        }),
      },
      { description: "A new advisory affects a component of the site's latest report (no new report, no credit)" },
    ),
  ),
  "webhook.test": named(
    "WebhookTestData",
    Type.Object(
      {
        webhook_id: Type.String({ description: "whk_…" }),
        message: Type.String(),
      },
      { description: "Sent by POST /api/webhooks/{id}/test, to that webhook only" },
    ),
  ),
} as const satisfies Record<EventType, TSchema>;

export type EventData<T extends EventType> = Static<(typeof EVENT_DATA_SCHEMAS)[T]>;

/** What a receiver gets: the body of every delivery in the standard format. */
export interface EventEnvelope<T extends EventType = EventType> {
  type: T;
  /** When the event happened (ISO 8601), the same in every retry. */
  timestamp: string;
  data: EventData<T>;
}

export const EventEnvelopeSchema = named(
  "EventEnvelope",
  Type.Object(
    {
      type: StringEnum(EVENT_TYPES),
      timestamp: Timestamp("When the event happened; the same in every retry"),
      data: Type.Union(
        EVENT_TYPES.map((type) => EVENT_DATA_SCHEMAS[type]),
        { description: "The event's data: its shape depends on `type`" },
      ),
    },
    {
      description:
        "The body of a webhook delivery (Standard Webhooks). Headers: webhook-id (the event id, evt_…), webhook-timestamp, webhook-signature",
    },
  ),
);
