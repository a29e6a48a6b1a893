/**
 * The portfolio as CSV (RFC 4180): CRLF line ends, a header row, fields quoted when they hold
 * a comma, a quote or a line break, quotes doubled.
 *
 * Site text (titles, URLs, environments) is untrusted, and spreadsheets run a cell that starts
 * with = + - @ (or a tab or carriage return before one) as a formula: such a field is prefixed
 * with an apostrophe (OWASP, "CSV injection"), which spreadsheets show as text. Control and
 * bidi characters are removed first (shared/untrusted-text.ts), so a field cannot hide what it
 * starts with either. Numbers we write ourselves (scores, counts) are left as numbers.
 *
 * Spreadsheets of many locales split on `;` (or a tab) rather than `,`, and some readers ignore
 * quotes: a title `x;=1+2;y` becomes the cells `x`, `=1+2`, `y` (issue 30). So a formula start
 * after any common separator gets its apostrophe too (`x;'=1+2;y`), and a field holding a `;`
 * is quoted, so that a reader that honours quotes keeps it one cell.
 */
import type { SiteSummary } from "../../shared/portfolio-api.ts";
import { NOT_CHECKED_INCOMPLETE, NOT_CHECKED_NO_REPORT, vulnerabilityCountText } from "../../shared/report-coverage.ts";
import { oneLine } from "../../shared/untrusted-text.ts";

export const CSV_CONTENT_TYPE = "text/csv";

const FORMULA_START = /^[=+\-@\t\r]/;
/** A formula start after a separator a spreadsheet may split on. */
const FORMULA_AFTER_SEPARATOR = /(?<!^)([,;|\t])(\s*)(?=[=+\-@])/g;

/** A text field from a site or a caller: one line, no controls, formula starts defused. */
export function csvText(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  // Tabs and carriage returns are checked before they become spaces.
  // Before oneLine (a tab is still a tab) and after (a control removed may bring one forward).
  const line = oneLine(value.replace(FORMULA_AFTER_SEPARATOR, "$1$2'")).replace(FORMULA_AFTER_SEPARATOR, "$1$2'");
  return FORMULA_START.test(value) || FORMULA_START.test(line.trimStart()) ? `'${line}` : line;
}

/** One field, quoted when it must be. */
function field(value: string | number | null): string {
  const text = value === null ? "" : String(value);
  return /[",;\t\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRows(rows: (string | number | null)[][]): string {
  return rows.map((row) => `${row.map(field).join(",")}\r\n`).join("");
}

export const PORTFOLIO_CSV_COLUMNS = [
  "site_id",
  "site",
  "url",
  "environment",
  "title",
  "grade",
  "score",
  "score_change",
  "trend",
  "failed_checks",
  "vulnerabilities",
  "critical_vulnerabilities",
  "high_vulnerabilities",
  "reports",
  "last_report_id",
  "last_report_status",
  "last_report_at",
  "monitor_id",
  "monitor_schedule",
  "monitor_next_run_at",
  "vulnerability_data",
  "checks_not_run",
] as const;

/**
 * The vulnerability columns (total, critical, high): numbers when a source checked every
 * component; otherwise the words every view uses — "not checked: no vulnerability data", or
 * the count with "partly checked" — never a bare 0 that reads as "none" (shared/report-coverage.ts).
 */
function vulnerabilityFields(site: SiteSummary): [string | number, string | number, string | number] {
  const counts = site.vulnerabilities;
  if (!site.latest) {
    const words = site.last_report.incomplete ? NOT_CHECKED_INCOMPLETE : NOT_CHECKED_NO_REPORT;
    return [words, words, words];
  }
  if (site.vulnerability_data === "complete") return [counts.total, counts.critical, counts.high];
  const coverage = { status: site.vulnerability_data, unchecked: site.vulnerabilities_unchecked };
  const total = vulnerabilityCountText(counts.total, coverage);
  if (site.vulnerability_data === "none") return [total, total, total];
  return [total, `${counts.critical} (partly checked)`, `${counts.high} (partly checked)`];
}

/** The portfolio's sites as a CSV document (header row first). */
export function portfolioCsv(sites: SiteSummary[]): string {
  const rows = sites.map((site) => [
    site.id,
    csvText(site.site),
    csvText(site.url),
    csvText(site.environment),
    csvText(site.title),
    site.latest?.grade ?? null,
    site.latest?.score ?? null,
    site.score_change,
    site.trend.map((point) => point.score).join(" "),
    site.latest?.failed_checks.total ?? null,
    ...vulnerabilityFields(site),
    site.report_count,
    site.last_report.id,
    site.last_report.status,
    site.last_report.created_at,
    site.monitor?.id ?? null,
    csvText(site.monitor?.schedule),
    site.monitor?.next_run_at ?? null,
    site.vulnerability_data,
    site.latest ? site.latest.not_checked : null,
  ]);
  return csvRows([[...PORTFOLIO_CSV_COLUMNS], ...rows]);
}
