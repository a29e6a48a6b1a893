/**
 * The diff's options, read once for everyone: the Action's inputs, the CLI's flags, the API's
 * query parameters (GET /api/report/{id}/diff) and the web compare page all turn their text into
 * DiffOptions here, so they accept and refuse the same values with the same plain words — each
 * naming the option as its caller spells it (`Input fail-on`, `--fail-on`, `fail_on`). And the
 * way back: the options as the query the Action and the CLI send to the service.
 */
import type { DiffOptions } from "./diff.ts";
import { ASSERTION_LEVELS, type Assertion, type AssertionLevel } from "./diff-schema.ts";
import { REPORT_ID_PATTERN, SEVERITIES, type Severity } from "./report.ts";
import { BUDGET_UNITS, METRICS, type MetricDefinition, metricByKey } from "./report-metrics.ts";

/** The options as text, as a caller has them; empty or absent takes the default. */
export interface RawDiffOptions {
  /** A severity or `none`; default `high`. */
  failOn?: string;
  /** Points from 0 to 100; default none (no limit). */
  maxScoreDrop?: string | number;
  /** `metric=value` pairs (parseBudgets); default none. */
  budgets?: string;
  /** `pattern: level` pairs (parseAssertions), e.g. `security.*: error, seo.meta_description: warn`; default none. */
  assert?: string;
}

/** What a caller calls each option in its messages. */
export type DiffOptionNames = Record<keyof RawDiffOptions | "baseline", string>;

/** The API's query parameters: the names GET /api/report/{id}/diff and the web compare page use. */
export const QUERY_NAMES: DiffOptionNames = {
  failOn: "fail_on",
  maxScoreDrop: "max_score_drop",
  budgets: "budgets",
  assert: "assert",
  baseline: "base",
};

/** A value a caller cannot use; `option` says which, the message says why in plain words. */
export class DiffOptionsError extends Error {
  constructor(
    readonly option: keyof DiffOptionNames,
    message: string,
  ) {
    super(message);
    this.name = "DiffOptionsError";
  }
}

/** DiffOptions with every option decided (defaults filled in). */
export interface ParsedDiffOptions extends DiffOptions {
  failOn: Severity | "none";
  maxScoreDrop: number | null;
  budgets: Record<string, number>;
  assertions: Assertion[];
}

/** The value as it was given, short, for a message. */
const given = (value: string) => `"${value.length > 100 ? `${value.slice(0, 100)}…` : value}"`;

export function parseDiffOptions(raw: RawDiffOptions, names: DiffOptionNames = QUERY_NAMES): ParsedDiffOptions {
  const failOn = raw.failOn?.trim() || "high";
  if (failOn !== "none" && !isSeverity(failOn)) {
    throw new DiffOptionsError(
      "failOn",
      `${names.failOn} must be one of ${[...SEVERITIES, "none"].join(", ")}, got ${given(failOn)}.`,
    );
  }
  const drop = String(raw.maxScoreDrop ?? "").trim();
  const maxScoreDrop = drop === "" ? null : Number(drop);
  if (maxScoreDrop !== null && !(Number.isFinite(maxScoreDrop) && maxScoreDrop >= 0 && maxScoreDrop <= 100)) {
    throw new DiffOptionsError(
      "maxScoreDrop",
      `${names.maxScoreDrop} must be a number from 0 to 100, got ${given(drop)}.`,
    );
  }
  let budgets: Record<string, number>;
  try {
    budgets = parseBudgets(raw.budgets ?? "");
  } catch (error) {
    throw new DiffOptionsError("budgets", `${names.budgets}: ${(error as Error).message}.`);
  }
  let assertions: Assertion[];
  try {
    assertions = parseAssertions(raw.assert ?? "");
  } catch (error) {
    throw new DiffOptionsError("assert", `${names.assert}: ${(error as Error).message}.`);
  }
  return { failOn, maxScoreDrop, budgets, assertions };
}

/** At most this many assertions (a pattern per check of the catalogue is far fewer). */
export const MAX_ASSERTIONS = 100;
/** A check id (`<category>.<name>`), or a glob over them where `*` stands for any characters; `*` alone is every check. */
const ASSERTION_PATTERN = /^(?:\*|[a-z0-9_*]+\.[a-z0-9_*]+)$/;

/**
 * Parses assertions — `security.*: error, seo.meta_description: warn`, entries separated by
 * commas or newlines, `:` or `=` between pattern and level (YAML's block scalar reads as
 * written; a quoted pattern and `#` comment lines are fine) — into their list. Patterns are
 * check ids or globs (`*` for any characters), compared in lower case; levels are error, warn
 * and off. Throws, saying what would do, on anything else or a pattern given twice.
 */
export function parseAssertions(text: string): Assertion[] {
  const assertions: Assertion[] = [];
  for (const part of text
    .split("\n")
    .filter((line) => !line.trim().startsWith("#"))
    .flatMap((line) => line.split(","))
    .map((item) => item.trim())
    .filter((item) => item !== "")) {
    const match = /^(["']?)([^"'=:\s]+)\1\s*[:=]\s*([A-Za-z]+)$/.exec(part);
    if (!match)
      throw new Error(
        `"${part.length > 100 ? `${part.slice(0, 100)}…` : part}" is not of the form check: level, e.g. security.*: error, seo.meta_description: warn`,
      );
    const pattern = (match[2] ?? "").toLowerCase();
    const level = (match[3] ?? "").toLowerCase();
    if (!ASSERTION_PATTERN.test(pattern))
      throw new Error(
        !/^[a-z0-9_]+$/.test(pattern)
          ? `"${pattern}" is neither a check id (category.name, e.g. seo.meta_description) nor a glob of them (security.*, *)`
          : `"${pattern}" is not a check id; a check id is category.name (seo.meta_description), and ${pattern}.* is every check of a category`,
      );
    if (!(ASSERTION_LEVELS as readonly string[]).includes(level))
      throw new Error(`"${part}": the level must be error, warn or off, got "${match[3]}"`);
    if (assertions.some((assertion) => assertion.pattern === pattern)) throw new Error(`"${pattern}" is given twice`);
    assertions.push({ pattern, level: level as AssertionLevel });
  }
  if (assertions.length > MAX_ASSERTIONS) throw new Error(`at most ${MAX_ASSERTIONS} assertions`);
  return assertions;
}

/** Assertions as the query parameter: `pattern:level` pairs separated by commas. */
export function formatAssertions(assertions: readonly Assertion[]): string {
  return assertions.map(({ pattern, level }) => `${pattern}:${level}`).join(",");
}

/**
 * Which report to compare with: `last-passing` (the default: the service's rule, the newest
 * earlier report of the site and environment that passed the gate), `latest` (the newest
 * earlier completed one, passed or not), `none`, or a report id.
 */
export type Baseline = "last-passing" | "latest" | "none" | (string & {});

export const BASELINE_KEYWORDS = ["last-passing", "latest", "none"] as const;
export const DEFAULT_BASELINE = "last-passing";

const REPORT_ID = new RegExp(REPORT_ID_PATTERN);

/**
 * The Action's `baseline`, the CLI's `--baseline` and the endpoint's `base`, checked before a
 * report is paid for; default `last-passing`.
 */
export function parseBaseline(raw: string | undefined, name: string): Baseline {
  const baseline = raw?.trim() || DEFAULT_BASELINE;
  if ((BASELINE_KEYWORDS as readonly string[]).includes(baseline) || REPORT_ID.test(baseline)) return baseline;
  throw new DiffOptionsError(
    "baseline",
    `${name} must be "last-passing", "latest", "none" or a report id (rep_…), got ${given(baseline)}.`,
  );
}

/**
 * Budgets as the query parameter, in each metric's base unit (`ttfb_ms=800,html_bytes=250000`):
 * plain numbers, which every version of the service reads the same way (units came later).
 */
export function formatBudgets(budgets: Record<string, number>): string {
  return Object.entries(budgets)
    .map(([key, value]) => `${key}=${value.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 })}`)
    .join(",");
}

/** The query parameters for `options` (besides `base`); a parameter left out takes the service's default. */
export function diffQuery(options: DiffOptions): Record<string, string> {
  const query: Record<string, string> = {};
  if (options.failOn !== undefined) query.fail_on = options.failOn;
  if (options.maxScoreDrop !== undefined && options.maxScoreDrop !== null)
    query.max_score_drop = String(options.maxScoreDrop);
  if (options.budgets && Object.keys(options.budgets).length > 0) query.budgets = formatBudgets(options.budgets);
  if (options.assertions && options.assertions.length > 0) query.assert = formatAssertions(options.assertions);
  return query;
}

/** The units a metric's budget may be written in, for messages: "ms, s". */
function unitNames(metric: MetricDefinition): string {
  return Object.keys(BUDGET_UNITS[metric.unit]).join(", ");
}

/**
 * Parses budgets — "ttfb_ms=800ms, html_bytes=250kB\nscore=80", comma- or newline-separated —
 * into limits in each metric's base unit ({ ttfb_ms: 800, html_bytes: 250000, score: 80 }).
 * Times take ms or s, sizes B, kB, MB, KiB or MiB (BUDGET_UNITS); a plain number is in the
 * base unit (ms, bytes), as before units were accepted. Scores (0–100 points) and counts
 * (whole numbers) take plain numbers. Anything else throws with a message that says what
 * would be accepted; the Action, the CLI and GET /api/report/{id}/diff all parse here.
 */
export function parseBudgets(text: string): Record<string, number> {
  const budgets: Record<string, number> = {};
  for (const part of text
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter(Boolean)) {
    const match = /^([a-z_]+)\s*[=:]\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(part);
    if (!match)
      throw new Error(
        `budget "${part}" is not of the form metric=value (a number ≥ 0 and, for times and sizes, a unit), e.g. ttfb_ms=800ms, html_bytes=250kB, score=80`,
      );
    const [, key = "", number = "0", unit = ""] = match;
    const metric = metricByKey(key);
    if (!metric) throw new Error(`unknown budget metric "${key}"; known: ${METRICS.map((m) => m.key).join(", ")}`);
    if (key in budgets) throw new Error(`budget "${key}" is given twice`);
    let value = Number(number);
    if (unit !== "") {
      const units = BUDGET_UNITS[metric.unit];
      const name = Object.keys(units).find((candidate) => candidate.toLowerCase() === unit.toLowerCase());
      if (name === undefined) {
        throw new Error(
          Object.keys(units).length === 0
            ? `budget "${part}": ${key} is ${metric.unit === "points" ? "a score in points (0–100)" : metric.unit === "ratio" ? "a plain number such as 0.1" : "a count"} and takes a plain number, without a unit`
            : `budget "${part}": "${unit}" is not a unit of ${key}, which is ${metric.unit === "ms" ? "a time" : "a size"}; use ${unitNames(metric)}`,
        );
      }
      value *= units[name] as number;
    }
    if (metric.unit === "points" && value > 100) throw new Error(`budget "${part}": ${key} is a score from 0 to 100`);
    if (metric.unit === "count" && !Number.isInteger(value))
      throw new Error(`budget "${part}": ${key} is a count, a whole number`);
    // Sizes are whole bytes (1.5 KiB = 1536); times may keep a fraction of a millisecond.
    budgets[key] = metric.unit === "bytes" ? Math.round(value) : value;
  }
  return budgets;
}

export function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}
