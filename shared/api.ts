/**
 * The API's shapes besides the report (shared/report.ts), written once as schemas: the
 * server validates and documents with them (OpenAPI components), the Action and the CLI are
 * typed by them. A field added here appears in all three.
 */
import { type Static, Type } from "@sinclair/typebox";
import { GateVerdictSchema } from "./diff-schema.ts";
import { PROBLEM_CODES } from "./problems.ts";
import {
  AnalysisModeSchema,
  GradeSchema,
  LabDeviceSchema,
  LabThrottlingSchema,
  MAX_LAB_RUNS,
  REPORT_ID_PATTERN,
  ReportMetadataSchema,
  ReportStatusSchema,
} from "./report.ts";
import { Count, Nullable, named, Percent, StringEnum } from "./schema.ts";
import { SiteAuthSchema } from "./site-auth.ts";
import { TlsCaSchema, TlsModeSchema } from "./site-tls.ts";

/**
 * Semver of the v1 API contract (routes, parameters, answers): in the OpenAPI document, and the
 * version of the `wpreport` tool in SARIF output, whichever side (service or CLI) writes it.
 */
export const API_VERSION = "1.5.0";

export const GenerateReportRequestSchema = named(
  "GenerateReportRequest",
  Type.Object(
    {
      url: Type.String({ description: "The site to analyze (http or https)", examples: ["https://example.com/"] }),
      metadata: Type.Optional(ReportMetadataSchema),
      mode: Type.Optional(AnalysisModeSchema),
      site_auth: Type.Optional(SiteAuthSchema),
      tls: Type.Optional(TlsModeSchema),
      tls_ca: Type.Optional(TlsCaSchema),
      lab: Type.Optional(
        Type.Boolean({
          description:
            'Also load the page in a real browser (Chromium) and report its lab metrics, LCP, CLS and TBT, in performance.lab (docs/report.md, "Lab"). Default false.',
        }),
      ),
      lab_device: Type.Optional(LabDeviceSchema),
      lab_throttling: Type.Optional(LabThrottlingSchema),
      lab_runs: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_LAB_RUNS,
          description: "Loads of the page (1–5, default 1): the median is reported, with the spread",
        }),
      ),
    },
    { additionalProperties: false },
  ),
);
export type GenerateReportRequest = Static<typeof GenerateReportRequestSchema>;

export const ReportListItemSchema = named(
  "ReportListItem",
  Type.Object(
    {
      id: Type.String({ pattern: REPORT_ID_PATTERN }),
      url: Type.String(),
      site: Type.String({ description: "Normalised site: host without www., port, path" }),
      status: ReportStatusSchema,
      created_at: Type.String({ format: "date-time" }),
      completed_at: Nullable(Type.String({ format: "date-time" })),
      score: Nullable(Percent()),
      grade: Nullable(GradeSchema),
      metadata: ReportMetadataSchema,
      gate: Nullable(GateVerdictSchema, {
        description:
          "The report's gate verdict, recorded by its first judgement against a baseline (GET /api/report/{id}/diff); null when no gate judged it",
      }),
    },
    { description: "A report in a listing: enough to find it and see how it went" },
  ),
);
export type ReportListItem = Static<typeof ReportListItemSchema>;

export const ReportListSchema = named(
  "ReportList",
  Type.Object({
    data: Type.Array(ReportListItemSchema, { description: "Newest first" }),
    next_cursor: Nullable(Type.String(), {
      description: "Pass as before= for the next (older) page; null on the last page",
    }),
  }),
);
export type ReportList = Static<typeof ReportListSchema>;

export const UsageSchema = named(
  "Usage",
  Type.Object({
    plan: Type.Object({ id: Type.String(), name: Type.String() }),
    quota: Count({ description: "Reports per period" }),
    used: Count({ description: "Reports produced this period" }),
    in_progress: Count({ description: "Analyses running now; their credits are held" }),
    remaining: Count({
      description: "Reports you can still start this period: quota − used − in_progress, at least 0",
    }),
    period_start: Type.String({ format: "date-time" }),
    period_end: Type.String({ format: "date-time" }),
    resets_at: Type.String({ format: "date-time", description: "When the quota resets (00:00 UTC on the 1st)" }),
    rate_limit: Type.Object({
      limit: Count({ description: "Requests per window" }),
      window_seconds: Count(),
      remaining: Count(),
    }),
  }),
);
export type Usage = Static<typeof UsageSchema>;

export const ProblemSchema = named(
  "Problem",
  Type.Object(
    {
      type: Type.String({ description: "URI of a page explaining this kind of problem" }),
      title: Type.String(),
      status: Type.Integer({ minimum: 400, maximum: 599 }),
      detail: Type.String({ description: "What went wrong in this case, in plain words" }),
      code: StringEnum(PROBLEM_CODES, { description: "Stable machine-readable code (docs/errors.md)" }),
      request_id: Type.String({ description: "Also in the X-Request-Id header; quote it to support" }),
    },
    {
      additionalProperties: true,
      description:
        "RFC 9457 problem details. Some codes add members: errors (invalid_request: one entry per field), resets_at (quota_exhausted), retry_after (rate_limited).",
    },
  ),
);
/** A problem+json body as the client receives it: from a proxy in between, any member may be missing. */
export type Problem = Partial<Static<typeof ProblemSchema>> & { [member: string]: unknown };

export const HealthSchema = named(
  "Health",
  Type.Object({ status: Type.Literal("ok") }, { description: "The process answers" }),
);

export const ReadinessSchema = named(
  "Readiness",
  Type.Object(
    {
      status: StringEnum(["ready", "unavailable"]),
      reason: Type.Optional(Type.String({ description: "Why it is not ready: shutting down, database unreachable" })),
    },
    { description: "Whether this instance can serve traffic (its database answers)" },
  ),
);

/**
 * A report as SARIF 2.1.0 (GET /api/report/{id} with Accept: application/sarif+json), for
 * code-scanning uploads. Only the top level is described here; the format is OASIS's
 * (https://docs.oasis-open.org/sarif/sarif/v2.1.0/).
 */
export const SarifLogSchema = named(
  "SarifLog",
  Type.Object(
    {
      $schema: Type.String(),
      version: Type.Literal("2.1.0"),
      runs: Type.Array(Type.Object({}, { additionalProperties: true })),
    },
    { additionalProperties: true, description: "SARIF 2.1.0 log: failed and warned checks as results" },
  ),
);
