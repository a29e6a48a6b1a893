/**
 * The report as a TypeBox schema: used for the OpenAPI document, served as JSON Schema at
 * /api/schema/report.json, and used by tests to validate every report produced.
 * The type assertions at the bottom fail the type check if it drifts from shared/report.ts.
 */
import { type Static, type TSchema, t } from "elysia";
import type { Report } from "../../shared/report.ts";
import { REPORT_SCHEMA_VERSION } from "../../shared/report.ts";

const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);

export const SeveritySchema = t.UnionEnum(["critical", "high", "medium", "low", "info"]);
export const CategorySchema = t.UnionEnum(["performance", "seo", "security", "components"]);
export const StatusSchema = t.UnionEnum(["queued", "running", "completed", "failed"]);

export const MetadataSchema = t.Object(
  {
    git_sha: t.Optional(t.String({ maxLength: 64, description: "Commit that was deployed" })),
    git_ref: t.Optional(t.String({ maxLength: 255, description: "Branch or tag, e.g. refs/heads/main" })),
    environment: t.Optional(t.String({ maxLength: 64, description: "e.g. production, staging, pr-42" })),
    ci_run_url: t.Optional(t.String({ maxLength: 2048, description: "Link to the CI run that asked" })),
  },
  { additionalProperties: false, description: "Caller context, stored and returned as given" },
);

const EvidenceSchema = t.Object({
  source: t.String(),
  value: t.String(),
  url: t.Optional(t.String()),
});

export const CheckSchema = t.Object({
  id: t.String({ description: "Stable check id, e.g. security.https" }),
  category: CategorySchema,
  severity: SeveritySchema,
  status: t.UnionEnum(["pass", "fail", "warn", "skip", "error"]),
  title: t.String(),
  message: t.String(),
  evidence: t.Array(t.String()),
  remediation: t.String(),
});

const TimingRowSchema = t.Object({
  url: t.String(),
  method: t.String(),
  status: Nullable(t.Integer()),
  bytes: t.Integer(),
  transfer_bytes: Nullable(t.Integer()),
  ttfb_ms: Nullable(t.Number()),
  ms: t.Number(),
  error: t.Optional(t.String()),
});

const categoryScores = t.Object({
  performance: Nullable(t.Integer({ minimum: 0, maximum: 100 })),
  seo: Nullable(t.Integer({ minimum: 0, maximum: 100 })),
  security: Nullable(t.Integer({ minimum: 0, maximum: 100 })),
  components: Nullable(t.Integer({ minimum: 0, maximum: 100 })),
});

export const SummarySchema = t.Object({
  score: t.Integer({ minimum: 0, maximum: 100 }),
  grade: t.UnionEnum(["A", "B", "C", "D", "E", "F"]),
  categories: categoryScores,
  failed: t.Object({
    critical: t.Integer(),
    high: t.Integer(),
    medium: t.Integer(),
    low: t.Integer(),
    info: t.Integer(),
  }),
});

export const WordPressSchema = t.Object({
  detected: t.Boolean(),
  confidence: t.Integer({ minimum: 0, maximum: 100 }),
  version: Nullable(t.String()),
  version_confidence: t.Integer({ minimum: 0, maximum: 100 }),
  evidence: t.Array(EvidenceSchema),
  rest_api_url: Nullable(t.String()),
});

export const PerformanceSchema = t.Object({
  ttfb_ms: Nullable(t.Number()),
  ttfb_samples_ms: t.Array(t.Number()),
  html_download_ms: Nullable(t.Number()),
  html_bytes: Nullable(t.Integer()),
  html_transfer_bytes: Nullable(t.Integer()),
  compression: Nullable(t.String()),
  requests: t.Array(TimingRowSchema),
});

export const ReportSchema = t.Object(
  {
    id: t.String({ pattern: "^rep_[0-9a-z]{26}$", description: "Report id (unguessable)" }),
    schema_version: t.String({ description: `Semver of the report format; currently ${REPORT_SCHEMA_VERSION}` }),
    status: StatusSchema,
    url: t.String({ description: "The URL as asked" }),
    final_url: Nullable(t.String({ description: "Homepage URL after redirects" })),
    redirects: t.Array(t.Object({ url: t.String(), status: t.Integer() })),
    created_at: t.String({ format: "date-time" }),
    completed_at: Nullable(t.String({ format: "date-time" })),
    duration_ms: Nullable(t.Integer()),
    metadata: MetadataSchema,
    summary: Nullable(SummarySchema),
    wordpress: Nullable(WordPressSchema),
    performance: Nullable(PerformanceSchema),
    checks: t.Array(CheckSchema),
    errors: t.Array(
      t.Object({
        stage: t.String(),
        url: t.Optional(t.String()),
        kind: t.String(),
        message: t.String(),
      }),
    ),
  },
  {
    $id: "https://wpreport.dev/schema/report-v1.json",
    title: "wpreport report",
    description: "One analysis of one site (schema v1)",
  },
);

// Compile-time guarantee that schema and shared types agree in both directions.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type SchemaReport = Static<typeof ReportSchema>;
const assignableOneWay: Report = {} as SchemaReport;
const assignableOtherWay: SchemaReport = {} as Report;
void assignableOneWay;
void assignableOtherWay;
export type _ReportSchemaMatches = Equal<keyof SchemaReport, keyof Report>;
