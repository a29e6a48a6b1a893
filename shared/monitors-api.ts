/**
 * The shapes of the monitor routes (/api/monitors…): scheduled audits of a site, each run a
 * report made through the same queue, limits and quota as any other, judged against the
 * site's baseline by the Action's rule (docs/monitoring.md#monitors).
 */

import { type Static, Type } from "@sinclair/typebox";
import {
  AnalysisModeSchema,
  GradeSchema,
  LabDeviceSchema,
  LabThrottlingSchema,
  MAX_LAB_RUNS,
  ReportStatusSchema,
  SEVERITIES,
  VULNERABILITY_DATA_STATUSES,
} from "./report.ts";
import { Count, Nullable, named, StringEnum } from "./schema.ts";
import { TlsCaSchema, TlsModeSchema } from "./site-tls.ts";

/** The schedule keywords; anything else must be a 5-field cron expression (UTC). */
export const SCHEDULE_KEYWORDS = ["hourly", "daily", "weekly"] as const;
export const MAX_MONITOR_URL_LENGTH = 2048;

const Schedule = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    "hourly, daily, weekly, or a 5-field cron expression in UTC (minute hour day-of-month month day-of-week), e.g. 30 6 * * 1-5",
  examples: ["daily", "*/15 * * * *"],
});
const Environment = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "The reports' metadata.environment (e.g. production): the baseline is looked up within it",
});
const FailOn = StringEnum([...SEVERITIES, "none"] as [string, ...string[]], {
  description:
    "The lowest severity of a check that regresses (passed in the baseline, fails now) that fails the gate; none: no severity does (the Action's fail-on)",
});
const Assert = Type.String({
  maxLength: 4000,
  description:
    "Assertions, as the Action's assert input: `check: level` pairs separated by commas or newlines (security.*: error, seo.meta_description: warn); empty for none",
  examples: ["security.*: error"],
});

/** A lab run with each report, as generate-report asks for one (docs/report.md, "Lab"). Since API 1.5.0. */
const LabFields = {
  lab: Type.Optional(
    Type.Boolean({
      description:
        "Each run also loads the page in a real browser: Core Web Vitals in performance.lab and the lab checks, so the monitor regresses on them (false turns it off)",
    }),
  ),
  lab_device: Type.Optional(LabDeviceSchema),
  lab_throttling: Type.Optional(LabThrottlingSchema),
  lab_runs: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LAB_RUNS })),
};

export const CreateMonitorRequestSchema = named(
  "CreateMonitorRequest",
  Type.Object(
    {
      url: Type.String({
        maxLength: MAX_MONITOR_URL_LENGTH,
        description: "The site to audit (http or https); the target policy of analyses applies",
        examples: ["https://example.com/"],
      }),
      schedule: Schedule,
      environment: Type.Optional(Environment),
      mode: Type.Optional(AnalysisModeSchema),
      fail_on: Type.Optional({ ...FailOn, default: "high" }),
      assert: Type.Optional(Assert),
      tls: Type.Optional(TlsModeSchema),
      tls_ca: Type.Optional(TlsCaSchema),
      ...LabFields,
    },
    { additionalProperties: false },
  ),
);
export type CreateMonitorRequest = Static<typeof CreateMonitorRequestSchema>;

export const UpdateMonitorRequestSchema = named(
  "UpdateMonitorRequest",
  Type.Object(
    {
      url: Type.Optional(Type.String({ maxLength: MAX_MONITOR_URL_LENGTH })),
      schedule: Type.Optional(Schedule),
      environment: Type.Optional(Nullable(Environment)),
      mode: Type.Optional(AnalysisModeSchema),
      fail_on: Type.Optional(FailOn),
      assert: Type.Optional(Assert),
      tls: Type.Optional(TlsModeSchema),
      tls_ca: Type.Optional(
        Nullable(TlsCaSchema, { description: "The private CA's PEM; null removes it. Since 1.5.0." }),
      ),
      ...LabFields,
      enabled: Type.Optional(
        Type.Boolean({ description: "false pauses the monitor (no scheduled runs); true resumes it" }),
      ),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);
export type UpdateMonitorRequest = Static<typeof UpdateMonitorRequestSchema>;

export const MonitorLastRunSchema = named(
  "MonitorLastRun",
  Type.Object({
    report_id: Type.String({ description: "rep_…" }),
    trigger: StringEnum(["schedule", "manual"]),
    scheduled_for: Type.String({ format: "date-time", description: "The schedule's slot (a manual run: when asked)" }),
    status: ReportStatusSchema,
    grade: Nullable(GradeSchema),
    gate: Nullable(StringEnum(["pass", "fail"]), {
      description: "The run's verdict against its baseline; null until the report completed",
    }),
    incomplete: Type.Boolean({
      description:
        "True when the report completed incomplete (the homepage asked for credentials, most probes got no answer…): no grade, nothing of it was checked",
    }),
    vulnerability_data: Nullable(StringEnum(VULNERABILITY_DATA_STATUSES), {
      description:
        "How far the report's vulnerabilities were checked: complete, partial (see vulnerabilities_unchecked) or none (no source answered, or the report is incomplete); null until the report completed",
    }),
    vulnerabilities_unchecked: Type.Array(
      Type.Object({ type: StringEnum(["core", "theme", "plugin"]), slug: Type.String() }),
      { description: "The components no vulnerability source checked (vulnerability_data partial)" },
    ),
    not_checked: Nullable(Count(), {
      description:
        "How many of the report's checks could not run (summary.not_checked): neither passed nor failed; null until the report completed",
    }),
  }),
);

export const MonitorLastSkipSchema = named(
  "MonitorLastSkip",
  Type.Object({
    scheduled_for: Type.String({ format: "date-time" }),
    reason: Type.String({ description: "The problem code that refused the run (quota_exhausted, rate_limited…)" }),
    detail: Type.String(),
  }),
);

export const MonitorSchema = named(
  "Monitor",
  Type.Object({
    id: Type.String({ description: "mon_…" }),
    url: Type.String(),
    environment: Nullable(Type.String()),
    schedule: Type.String({ description: "As given: hourly, daily, weekly or a cron expression (UTC)" }),
    mode: AnalysisModeSchema,
    lab: Nullable(Type.Object({ device: LabDeviceSchema, throttling: LabThrottlingSchema, runs: Type.Integer() }), {
      description: "The lab run each report asks for; null for none. Since API 1.5.0.",
    }),
    fail_on: FailOn,
    assert: Type.String({ description: "The assertions in their canonical form (pattern:level,…); empty for none" }),
    tls: Type.Optional(TlsModeSchema),
    tls_ca: Type.Optional(
      Nullable(Type.String(), { description: "The private CA's PEM the runs trust; null when none. Since 1.5.0." }),
    ),
    enabled: Type.Boolean(),
    status: StringEnum(["active", "paused"]),
    next_run_at: Nullable(Type.String({ format: "date-time" }), {
      description: "When the next scheduled run starts, its per-monitor jitter included; null while paused",
    }),
    last_run: Nullable(MonitorLastRunSchema, {
      description: "The newest run that made a report; null before the first",
    }),
    last_skip: Nullable(MonitorLastSkipSchema, {
      description: "The newest skipped run, when it is newer than the last run; null otherwise",
    }),
    created_at: Type.String({ format: "date-time" }),
    updated_at: Type.String({ format: "date-time" }),
  }),
);
export type Monitor = Static<typeof MonitorSchema>;

export const MonitorListSchema = named(
  "MonitorList",
  Type.Object({
    data: Type.Array(MonitorSchema, { description: "Newest first" }),
    next_cursor: Nullable(Type.String(), {
      description: "Pass as before= for the next (older) page; null on the last page",
    }),
  }),
);
export type MonitorList = Static<typeof MonitorListSchema>;
