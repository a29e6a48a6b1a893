/**
 * Query strings read against the operation's declared schema (the one the OpenAPI document
 * publishes): numbers and booleans are converted from their text, then checked, so a route
 * gets typed values and a caller gets one clear 400 naming the parameter.
 *
 * Numbers are read strictly, as decimal digits: TypeBox's conversion takes what JavaScript's
 * Number() takes, so `1e9` and `1.5` became 1 and `0x10` became 16 for an integer (issue 30,
 * webhook rotation's `overlap_hours`). Such text is refused before it is converted.
 */
import type { Static, TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ApiProblem } from "./problem.ts";
import { issueDetail } from "./validation-messages.ts";

const NUMERAL = { integer: /^-?\d{1,15}$/, number: /^-?\d{1,15}(\.\d{1,15})?$/ } as const;

export function parseQuery<T extends TObject>(schema: T, query: Record<string, string | undefined>): Static<T> {
  const known = Object.fromEntries(
    Object.keys(schema.properties)
      .filter((name) => query[name] !== undefined)
      .map((name) => [name, query[name]]),
  );
  const errors: { location: "query"; pointer: string; detail: string }[] = [];
  for (const [name, text] of Object.entries(known)) {
    const type = (schema.properties[name] as { type?: unknown }).type;
    if ((type === "integer" || type === "number") && !NUMERAL[type].test(String(text)))
      errors.push({
        location: "query",
        pointer: `/${name}`,
        detail: type === "integer" ? "Expected an integer in decimal digits" : "Expected a number in decimal digits",
      });
  }
  const value = errors.length > 0 ? known : Value.Convert(schema, known);
  if (errors.length === 0 && Value.Check(schema, value)) return value as Static<T>;
  const seen = new Set<string>(errors.map((error) => error.pointer));
  for (const issue of Value.Errors(schema, value)) {
    if (seen.has(issue.path)) continue;
    seen.add(issue.path);
    errors.push({
      location: "query",
      pointer: issue.path,
      detail: issue.value === undefined ? "Required" : issueDetail(issue),
    });
  }
  const [first] = errors;
  const detail = first
    ? `Invalid query string field ${first.pointer.slice(1)}: ${first.detail}.`
    : "Invalid query string.";
  throw new ApiProblem("invalid_request", detail, { extensions: { errors } });
}
