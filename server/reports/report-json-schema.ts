/**
 * The report's JSON Schema as served at /api/schema/report.json: draft 2020-12, every named
 * part of the report (Check, Vulnerability, Component…) under `$defs`. Written from the one
 * report schema in shared/report.ts; compiles in Ajv's strict mode (test/api/schemas.test.ts).
 */
import { ReportSchema } from "../../shared/report.ts";
import { type JsonSchema, JsonSchemaWriter } from "../platform/http/json-schema.ts";

export const REPORT_SCHEMA_ID = "https://wpreport.dev/schema/report-v1.json";

export function reportJsonSchema(): JsonSchema {
  const writer = new JsonSchemaWriter("#/$defs/");
  const root = writer.inline(ReportSchema);
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: REPORT_SCHEMA_ID,
    ...root,
    $defs: writer.collect(),
  };
}
