/**
 * The job summary's lab section: the head report's Core Web Vitals with their levels (web.dev's
 * thresholds, shared/lab.ts), or why there are none. Site text (the reason) is escaped.
 */
import { LAB_LEVEL_WORDS, labRows } from "../../shared/lab.ts";
import type { Report } from "../../shared/report.ts";

const ICON = { good: "🟢", needs_improvement: "🟠", poor: "🔴" } as const;

export function labSummaryLines(report: Report, escapeText: (text: string) => string): string[] {
  const lab = report.performance?.lab;
  if (!lab) return [];
  const heading = `#### Lab (${lab.device}, ${lab.throttling === "none" ? "no throttling" : "throttled"}, ${lab.completed_runs} of ${lab.runs} load${lab.runs === 1 ? "" : "s"})`;
  if (lab.status !== "complete" || !lab.metrics)
    return [
      heading,
      "",
      `The lab run ${lab.status === "failed" ? "failed" : "was unavailable"}: ${escapeText(lab.reason ?? lab.status)}. Its checks were skipped.`,
      "",
    ];
  const lines = [heading, "", "| Metric | Value | |", "|---|---|---|"];
  for (const row of labRows(lab.metrics))
    lines.push(
      `| ${row.label} | ${row.value} | ${row.level ? `${ICON[row.level]} ${LAB_LEVEL_WORDS[row.level]}` : ""} |`,
    );
  lines.push("");
  return lines;
}
