/** Validates reports against the published schema (the one /api/schema/report.json serves). */
import { expect } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import "elysia"; // registers the string formats (date-time, …) the schema uses
import { ReportSchema } from "../../server/reports/report.schema.ts";

const checker = TypeCompiler.Compile(ReportSchema);

export function expectValidReport(report: unknown): void {
  const errors = [...checker.Errors(report)].slice(0, 5).map((error) => `${error.path}: ${error.message}`);
  expect(errors).toEqual([]);
}
