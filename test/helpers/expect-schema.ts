/** Expects `value` to match a TypeBox schema of the API (shared/*-api.ts), naming the first five mismatches when it does not. */
import { expect } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export function expectSchema(schema: TSchema, value: unknown): void {
  const errors = [...Value.Errors(schema, value)].slice(0, 5).map((error) => `${error.path}: ${error.message}`);
  expect(errors).toEqual([]);
}
