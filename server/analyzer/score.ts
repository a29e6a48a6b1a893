/**
 * Scores and grade from the checks (method documented in docs/scoring.md).
 *
 * Each category starts at 100 and loses a penalty per failed check by severity (half for
 * a warning), floored at 0. The overall score is the mean of the categories that had at
 * least one check; the grade follows from it.
 */
import {
  CHECK_CATEGORIES,
  type Check,
  type CheckCategory,
  SEVERITIES,
  type Severity,
  type Summary,
} from "../../shared/report.ts";

export const SEVERITY_PENALTY: Record<Severity, number> = {
  critical: 40,
  high: 25,
  medium: 10,
  low: 5,
  info: 0,
};

export const GRADE_FLOORS: readonly [Summary["grade"], number][] = [
  ["A", 90],
  ["B", 80],
  ["C", 70],
  ["D", 60],
  ["E", 50],
  ["F", 0],
];

export function summarise(checks: readonly Check[]): Summary {
  const categories = Object.fromEntries(CHECK_CATEGORIES.map((c) => [c, null])) as Record<CheckCategory, number | null>;
  const failed = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const check of checks) {
    if (check.status === "skip" || check.status === "error") continue;
    let score = categories[check.category] ?? 100;
    if (check.status === "fail" || check.status === "warn") {
      failed[check.severity] += 1;
      const penalty = SEVERITY_PENALTY[check.severity] * (check.status === "warn" ? 0.5 : 1);
      score = Math.max(0, score - penalty);
    }
    categories[check.category] = score;
  }
  const scored = Object.values(categories).filter((value): value is number => value !== null);
  const score = scored.length === 0 ? 100 : Math.round(scored.reduce((a, b) => a + b, 0) / scored.length);
  const grade = GRADE_FLOORS.find(([, floor]) => score >= floor)?.[0] ?? "F";
  return { score, grade, categories, failed };
}
