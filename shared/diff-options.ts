/**
 * The diff's options, read once for everyone: the Action's inputs, the CLI's flags, the API's
 * query parameters (GET /api/report/{id}/diff) and the web compare page all turn their text into
 * DiffOptions here, so they accept and refuse the same values with the same plain words — each
 * naming the option as its caller spells it (`Input fail-on`, `--fail-on`, `fail_on`). And the
 * way back: the options as the query the Action and the CLI send to the service.
 */
import { type DiffOptions, isSeverity, parseBudgets } from "./diff.ts";
import { REPORT_ID_PATTERN, SEVERITIES, type Severity } from "./report.ts";

/** The options as text, as a caller has them; empty or absent takes the default. */
export interface RawDiffOptions {
  /** A severity or `none`; default `high`. */
  failOn?: string;
  /** Points from 0 to 100; default none (no limit). */
  maxScoreDrop?: string | number;
  /** `metric=value` pairs (parseBudgets); default none. */
  budgets?: string;
}

/** What a caller calls each option in its messages. */
export type DiffOptionNames = Record<keyof RawDiffOptions | "baseline", string>;

/** The API's query parameters: the names GET /api/report/{id}/diff and the web compare page use. */
export const QUERY_NAMES: DiffOptionNames = {
  failOn: "fail_on",
  maxScoreDrop: "max_score_drop",
  budgets: "budgets",
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
  return { failOn, maxScoreDrop, budgets };
}

/** Which report to compare with: `latest` (the service's rule), `none`, or a report id. */
export type Baseline = "latest" | "none" | (string & {});

const REPORT_ID = new RegExp(REPORT_ID_PATTERN);

/** The Action's `baseline` and the CLI's `--baseline`, checked before a report is paid for; default `latest`. */
export function parseBaseline(raw: string | undefined, name: string): Baseline {
  const baseline = raw?.trim() || "latest";
  if (baseline === "latest" || baseline === "none" || REPORT_ID.test(baseline)) return baseline;
  throw new DiffOptionsError(
    "baseline",
    `${name} must be "latest", "none" or a report id (rep_…), got ${given(baseline)}.`,
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
  return query;
}
