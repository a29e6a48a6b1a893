/**
 * Validates reports against the published JSON Schema — the document /api/schema/report.json
 * serves — with Ajv in strict mode, as a user's own validator would.
 */
import { expect } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { reportJsonSchema } from "../../server/reports/report-json-schema.ts";

/** A strict draft 2020-12 validator with the standard formats (date-time…), as users run one. */
export function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const validate = strictAjv().compile(reportJsonSchema());

export function expectValidReport(report: unknown): void {
  validate(report);
  const errors = (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath}: ${error.message}`);
  expect(errors).toEqual([]);
}
