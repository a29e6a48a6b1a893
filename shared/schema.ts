/**
 * Small helpers for the schemas in shared/ (TypeBox): the report and the API's shapes are
 * written once as schemas, and their TypeScript types, the published JSON Schema and the
 * OpenAPI components are all derived from them.
 *
 * Plain TypeBox (not Elysia's `t`, whose numbers also accept numeric strings), so that a
 * schema says exactly what the JSON holds.
 */
import { type SchemaOptions, type TLiteral, type TNull, type TSchema, type TUnion, Type } from "@sinclair/typebox";

/**
 * Marks a schema as a named definition (a `$defs` / `components.schemas` entry that uses refer
 * to by name). The mark is a symbol, so it never reaches JSON; it is enumerable, so a copy such
 * as `Type.Optional(X)` or `{ ...X, description }` still refers to X's definition.
 */
const DEFINITION = Symbol.for("wpreport.definition");

export interface Definition {
  name: string;
  schema: TSchema;
}

/** Gives a schema the name it is published under; every place that uses it refers to that name. */
export function named<T extends TSchema>(name: string, schema: T): T {
  Object.defineProperty(schema, DEFINITION, { value: { name, schema }, enumerable: true });
  return schema;
}

/** The named definition a schema is (or is a copy of), if any. */
export function definitionOf(schema: unknown): Definition | undefined {
  return typeof schema === "object" && schema !== null
    ? ((schema as Record<symbol, Definition | undefined>)[DEFINITION] ?? undefined)
    : undefined;
}

/** `T | null`. */
export const Nullable = <T extends TSchema>(schema: T, options?: SchemaOptions): TUnion<[T, TNull]> =>
  Type.Union([schema, Type.Null()], options);

/**
 * One of a fixed list of strings. Published as `{ "type": "string", "enum": [...] }` (the JSON
 * Schema writer folds the union of literals into an enum); typed as the union of the strings.
 */
export function StringEnum<const Values extends readonly [string, ...string[]]>(
  values: Values,
  options?: SchemaOptions,
): TUnion<TLiteral<Values[number]>[]> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  );
}

/** A whole number 0–100 (scores and confidences). */
export const Percent = (options?: SchemaOptions) => Type.Integer({ minimum: 0, maximum: 100, ...options });

/** A count: a whole number ≥ 0. */
export const Count = (options?: SchemaOptions) => Type.Integer({ minimum: 0, ...options });
