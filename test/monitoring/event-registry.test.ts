/**
 * Adding an event touches several files; this fails until every one of them knows it: its data
 * schema, its words (event-text.ts, for Slack bodies, e-mails and the delivery log), its row in
 * docs/monitoring.md's event table and, for a subscribable event, its label on the alerts page.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describeEvent } from "../../server/monitoring/events/event-text.ts";
import { EVENT_LABELS } from "../../server/monitoring/pages/alerts.tsx";
import { EVENT_DATA_SCHEMAS, EVENT_TYPES, type EventData, SUBSCRIBABLE_EVENT_TYPES } from "../../shared/events.ts";

/** The smallest value a JSON schema allows (TypeBox's Value.Create refuses formatted strings without defaults). */
function sample(schema: Record<string, unknown>): unknown {
  if (Array.isArray(schema.anyOf)) return sample(schema.anyOf.find((item) => item.type !== "null") ?? schema.anyOf[0]);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case "string":
      return schema.format === "date-time" ? "2026-12-01T00:00:00.000Z" : "x";
    case "number":
    case "integer":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean":
      return false;
    case "null":
      return null;
    case "array":
      return [];
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = new Set((schema.required ?? []) as string[]);
      return Object.fromEntries(
        Object.entries(properties)
          .filter(([name]) => required.has(name))
          .map(([name, property]) => [name, sample(property)]),
      );
    }
    default:
      return null;
  }
}

const docs = readFileSync(path.join(import.meta.dir, "..", "..", "docs", "monitoring.md"), "utf8");
/** The first column of the table under "## Events". */
const documented = (() => {
  const section = docs.slice(docs.indexOf("## Events"), docs.indexOf("\n## ", docs.indexOf("## Events") + 1));
  return [...section.matchAll(/^\| `([a-z]+\.[a-z_]+)` \|/gm)].map((match) => match[1]);
})();

describe("every event type is known everywhere it is shown", () => {
  test.each([...EVENT_TYPES])("%s: a schema, its own words, a row in docs/monitoring.md", (type) => {
    const schema = EVENT_DATA_SCHEMAS[type];
    expect(schema).toBeDefined();
    // The smallest data its schema allows: the words must come from the type's own branch.
    const data = sample(schema as unknown as Record<string, unknown>) as EventData<typeof type>;
    const text = describeEvent(type, data);
    expect(text.title.length).toBeGreaterThan(0);
    expect(text.title).not.toBe(type);
    expect(documented).toContain(type);
  });

  test("a subscribable event has a label on the alerts page; the doc's table lists no type that does not exist", () => {
    for (const type of SUBSCRIBABLE_EVENT_TYPES)
      expect({ type, label: EVENT_LABELS[type]?.length > 0 }).toEqual({ type, label: true });
    expect(documented.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type as string))).toEqual([]);
    expect(documented.length).toBe(EVENT_TYPES.length);
  });
});
