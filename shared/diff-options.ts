/**
 * The diff's options on the wire: how the Action and the CLI ask the service to compare
 * (GET /api/report/{id}/diff?base=…&fail_on=…&max_score_drop=…&budgets=…).
 */
import type { DiffOptions } from "./diff.ts";

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
