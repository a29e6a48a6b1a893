/**
 * Query strings read against the operation's declared schema (the one the OpenAPI document
 * publishes): numbers and booleans are converted from their text, then checked, so a route
 * gets typed values and a caller gets one clear 400 naming the parameter.
 */
import type { Static, TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ApiProblem } from "./problem.ts";
import { issueDetail } from "./validation-messages.ts";

export function parseQuery<T extends TObject>(schema: T, query: Record<string, string | undefined>): Static<T> {
  const known = Object.fromEntries(
    Object.keys(schema.properties)
      .filter((name) => query[name] !== undefined)
      .map((name) => [name, query[name]]),
  );
  const value = Value.Convert(schema, known);
  if (Value.Check(schema, value)) return value as Static<T>;
  const errors: { location: "query"; pointer: string; detail: string }[] = [];
  const seen = new Set<string>();
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
