/** Plain words for schema validation failures (TypeBox's own message, except where it says too little). */

interface Issue {
  message?: string;
  schema?: unknown;
}

/** "must be one of passive, aggressive" for a list of allowed strings; TypeBox's message otherwise. */
export function issueDetail(issue: Issue): string {
  const allowed = allowedStrings(issue.schema);
  if (allowed) return `must be one of ${allowed.join(", ")}`;
  return issue.message ?? "Invalid value";
}

function allowedStrings(schema: unknown): string[] | undefined {
  const options = (schema as { anyOf?: unknown } | undefined)?.anyOf;
  if (!Array.isArray(options) || options.length === 0) return undefined;
  const values = options.map((option) => (option as { const?: unknown }).const);
  return values.every((value) => typeof value === "string") ? (values as string[]) : undefined;
}
