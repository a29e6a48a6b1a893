/**
 * The stack table as data: stack-rules.json, read and checked once at load — its shape, each
 * pattern compiled, names unique — so that a bad row stops the service at start-up (and the
 * tests) with its path, instead of matching nothing. detect/stack.ts holds the matcher.
 *
 * A pattern is written as text: `{V}` stands for the version capture (group 1: digits and
 * dots), and it is matched without regard to case unless the signal says `match_case`.
 */
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { STACK_CATEGORIES, type StackCategory } from "../../../shared/report.ts";
import table from "./stack-rules.json" with { type: "json" };

/** One signal as matched: what it looks at, and the weight of that signal alone. */
export type Signal =
  /** A response header; `value` may capture the version in group 1. No `value` = present at all. */
  | { header: string; value?: RegExp; weight: number }
  /** A cookie the homepage sets, by name. Only the name is reported, never the value (a session id). */
  | { cookie: RegExp; weight: number }
  /** <meta name="generator"> or the X-Generator header; group 1 = version. */
  | { generator: RegExp; weight: number }
  /** Another <meta> by name, content matching. */
  | { meta: string; content: RegExp; weight: number }
  /** A <script>: its src contains `src`, its id is `id`, an attribute is set, or its inline text starts with `inline`. */
  | { script: { src?: string; id?: string; attr?: [string, string]; inline?: string }; weight: number }
  /** A <link> whose href contains the text. */
  | { link: string; weight: number }
  /** An HTML comment containing the text. */
  | { comment: string; weight: number };

export interface StackRule {
  name: string;
  category: StackCategory;
  signals: readonly Signal[];
}

const Text = Type.String({ minLength: 1, maxLength: 200 });
const Common = {
  weight: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
  match_case: Type.Optional(Type.Boolean()),
  note: Type.Optional(Type.String()),
};
const strict = { additionalProperties: false } as const;
const SignalRow = Type.Union([
  Type.Object({ header: Text, value: Type.Optional(Text), ...Common }, strict),
  Type.Object({ cookie: Text, ...Common }, strict),
  Type.Object({ generator: Text, ...Common }, strict),
  Type.Object({ meta: Text, content: Text, ...Common }, strict),
  Type.Object(
    {
      script: Type.Object(
        {
          src: Type.Optional(Text),
          id: Type.Optional(Text),
          attr: Type.Optional(Type.Tuple([Text, Text])),
          inline: Type.Optional(Text),
        },
        { ...strict, minProperties: 1 },
      ),
      ...Common,
    },
    strict,
  ),
  Type.Object({ link: Text, ...Common }, strict),
  Type.Object({ comment: Text, ...Common }, strict),
]);
const RulesFile = Type.Object(
  {
    $comment: Type.Optional(Type.String()),
    rules: Type.Array(
      Type.Object(
        {
          name: Text,
          category: Type.Union(STACK_CATEGORIES.map((category) => Type.Literal(category))),
          signals: Type.Array(SignalRow, { minItems: 1 }),
        },
        strict,
      ),
      { minItems: 1 },
    ),
  },
  strict,
);
type SignalRow = Static<typeof SignalRow>;

/** The version capture `{V}` stands for: digits and dots. */
const VERSION = "(\\d{1,4}(?:\\.\\d{1,5}){0,3})";

export class StackRulesError extends Error {
  override name = "StackRulesError";
}

/** Reads and checks a stack table (the shape of stack-rules.json); throws StackRulesError naming the bad value. */
export function loadStackRules(data: unknown, source = "stack-rules.json"): StackRule[] {
  if (!Value.Check(RulesFile, data)) {
    const [first] = Value.Errors(RulesFile, data);
    throw new StackRulesError(`${source}: ${first?.path || "/"}: ${first?.message ?? "not a stack table"}`);
  }
  const seen = new Set<string>();
  return data.rules.map((rule, index) => {
    const at = `${source}: /rules/${index}`;
    if (seen.has(rule.name)) throw new StackRulesError(`${at}/name: "${rule.name}" is in the table twice`);
    seen.add(rule.name);
    return {
      name: rule.name,
      category: rule.category,
      signals: rule.signals.map((row, signal) => compile(row, `${at}/signals/${signal}`)),
    };
  });
}

function compile(row: SignalRow, at: string): Signal {
  const pattern = (source: string, field: string): RegExp => {
    try {
      return new RegExp(source.replaceAll("{V}", VERSION), row.match_case ? "" : "i");
    } catch (error) {
      throw new StackRulesError(`${at}/${field}: not a regular expression (${(error as Error).message})`);
    }
  };
  const { weight } = row;
  if ("header" in row)
    return row.value === undefined
      ? { header: row.header.toLowerCase(), weight }
      : { header: row.header.toLowerCase(), value: pattern(row.value, "value"), weight };
  if ("cookie" in row) return { cookie: pattern(row.cookie, "cookie"), weight };
  if ("generator" in row) return { generator: pattern(row.generator, "generator"), weight };
  if ("meta" in row) return { meta: row.meta.toLowerCase(), content: pattern(row.content, "content"), weight };
  if ("script" in row) {
    const { src, id, attr, inline } = row.script;
    return { script: { src, id, attr: attr ? [attr[0], attr[1]] : undefined, inline }, weight };
  }
  if ("link" in row) return { link: row.link, weight };
  return { comment: row.comment, weight };
}

/** The table the analyzer matches: stack-rules.json, checked. */
export const STACK_RULES: readonly StackRule[] = loadStackRules(table);
