/**
 * Turns the TypeBox schemas of shared/ into the JSON the service publishes: the report's JSON
 * Schema (draft 2020-12, `$defs`) and the OpenAPI document's `components.schemas`. One
 * writer for both, so that the two documents name the same things the same way.
 *
 * - A schema marked with `named()` becomes a definition, and every use of it a `$ref`
 *   (with the use's own `description` beside it when that differs).
 * - A union of string literals is written as `{ "type": "string", "enum": [...] }`.
 * - Only JSON Schema keywords leave: TypeBox's own markers are symbols and stay behind.
 */
import type { TSchema } from "@sinclair/typebox";
import { definitionOf } from "../../../shared/schema.ts";

export type JsonSchema = { [keyword: string]: unknown };

/** Writes schemas against one definitions section (`#/$defs/` or `#/components/schemas/`). */
export class JsonSchemaWriter {
  private readonly definitions = new Map<string, JsonSchema>();
  private readonly pending: { name: string; schema: TSchema }[] = [];

  constructor(private readonly refPrefix: "#/$defs/" | "#/components/schemas/") {}

  /** The schema as JSON; named schemas inside it (and the schema itself, if named) become `$ref`s. */
  ref(schema: TSchema): JsonSchema {
    return this.write(schema, undefined);
  }

  /** The schema itself written out (not a `$ref`, even when it is named), e.g. a document's root. */
  inline(schema: TSchema): JsonSchema {
    return this.write(schema, schema);
  }

  /** Every definition referred to so far (and those they refer to), sorted by name. */
  collect(): Record<string, JsonSchema> {
    for (let next = this.pending.shift(); next; next = this.pending.shift()) {
      this.definitions.set(next.name, this.write(next.schema, next.schema));
    }
    return Object.fromEntries([...this.definitions].sort(([a], [b]) => a.localeCompare(b)));
  }

  private write(schema: TSchema, root: TSchema | undefined): JsonSchema {
    const definition = definitionOf(schema);
    if (definition && definition.schema !== root) {
      this.need(definition.name, definition.schema);
      const use: JsonSchema = { $ref: `${this.refPrefix}${definition.name}` };
      if (typeof schema.description === "string" && schema.description !== definition.schema.description) {
        use.description = schema.description;
      }
      return use;
    }
    return enumOfLiterals(this.keywords(schema));
  }

  private need(name: string, schema: TSchema): void {
    if (this.definitions.has(name)) return;
    if (this.pending.some((entry) => entry.name === name)) return;
    // Reserve the name now, so that recursion and repeats don't queue it twice.
    this.definitions.set(name, {});
    this.pending.push({ name, schema });
  }

  private keywords(schema: TSchema): JsonSchema {
    const out: JsonSchema = {};
    for (const [keyword, value] of Object.entries(schema)) {
      out[keyword] = this.value(value);
    }
    return out;
  }

  /** Sub-schemas sit in keywords (items, not), arrays (anyOf) and maps (properties, $defs). */
  private value(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (value === null || typeof value !== "object") return value;
    if (isSchema(value)) return this.write(value, undefined);
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.value(item)]));
  }
}

const TYPEBOX_KIND = Symbol.for("TypeBox.Kind");
const isSchema = (value: object): value is TSchema => TYPEBOX_KIND in value;

/** `anyOf: [{const: "a", type: "string"}, …]` → `{type: "string", enum: ["a", …]}`, other keywords kept. */
function enumOfLiterals(schema: JsonSchema): JsonSchema {
  const options = schema.anyOf;
  if (!Array.isArray(options) || options.length === 0) return schema;
  const literals = options.every(
    (option) =>
      typeof option === "object" &&
      option !== null &&
      Object.keys(option).length === 2 &&
      typeof (option as JsonSchema).const === "string" &&
      (option as JsonSchema).type === "string",
  );
  if (!literals) return schema;
  const { anyOf: _, ...rest } = schema;
  return { type: "string", enum: options.map((option) => (option as JsonSchema).const), ...rest };
}
