/**
 * Scores and grade from the checks (method documented in docs/scoring.md).
 *
 * A category starts at 100 and every problem multiplies it down by a factor for its
 * severity (a warning by half as much): the score measures the problems found, not the
 * share of checks passed, so adding passing checks never dilutes a finding, and many small
 * problems add up without one of them zeroing a category. A failed critical check also caps
 * its category at 30, a failed high one at 60 — one exposed database dump is never averaged
 * away. The overall score is the mean of the categories that had at least one check that
 * passed, warned or failed; the grade follows from it. Skipped checks — those that could not
 * run because of what the site answered among them (`not_checked`) — and errors count neither
 * way: a check that did not run never counts as a pass.
 *
 * The grade then follows the worst finding, as SSL Labs and Mozilla Observatory cap theirs:
 * a failed critical check (an exposed wp-config backup, .env, database dump…) caps it at F,
 * a failed high one at C. The score is left as measured — the diff compares scores, and a
 * cap that moved the score would hide every other change — and the caps are listed with
 * their reasons in `summary.grade_caps`.
 */
import {
  CHECK_CATEGORIES,
  type Check,
  type CheckCategory,
  type GradeCap,
  SEVERITIES,
  type Severity,
  type Summary,
} from "../../shared/report.ts";
import { notCheckedOf } from "./audit/obstacles.ts";

/** What is left of a category after one failed check of this severity. */
export const FAIL_FACTOR: Record<Severity, number> = { critical: 0.5, high: 0.75, medium: 0.9, low: 0.96, info: 1 };
/** The highest a category can score while a check of this severity fails. */
export const SEVERITY_CAP: Partial<Record<Severity, number>> = { critical: 30, high: 60 };

export const GRADE_FLOORS: readonly [Summary["grade"], number][] = [
  ["A", 90],
  ["B", 80],
  ["C", 70],
  ["D", 60],
  ["E", 50],
  ["F", 0],
];

type Grade = Summary["grade"];

/** The best grade a report can have while a check of this severity fails. */
export const GRADE_CAP: Partial<Record<Severity, Grade>> = { critical: "F", high: "C" };

const GRADE_ORDER: readonly Grade[] = ["A", "B", "C", "D", "E", "F"];
const worse = (a: Grade, b: Grade): Grade => (GRADE_ORDER.indexOf(a) >= GRADE_ORDER.indexOf(b) ? a : b);

/** The caps that failed checks put on the grade, worst first. */
export function gradeCaps(checks: readonly Check[]): GradeCap[] {
  const caps: GradeCap[] = [];
  for (const severity of SEVERITIES) {
    const grade = GRADE_CAP[severity];
    if (!grade) continue;
    const failing = checks.filter((check) => check.status === "fail" && check.severity === severity);
    if (failing.length === 0) continue;
    const first = failing[0] as Check;
    const more = failing.length > 1 ? ` and ${failing.length - 1} more` : "";
    caps.push({
      grade,
      severity,
      checks: failing.map((check) => check.id),
      reason: `${severity === "critical" ? "A critical" : "A high"} finding fails (${first.id}${more}): the grade is at most ${grade}.`,
    });
  }
  return caps;
}

export function summarise(checks: readonly Check[]): Summary {
  const state = new Map<CheckCategory, { factor: number; cap: number }>();
  const failed = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const check of checks) {
    if (check.status === "skip" || check.status === "error") continue;
    const category = state.get(check.category) ?? { factor: 1, cap: 100 };
    if (check.status === "fail" || check.status === "warn") {
      failed[check.severity] += 1;
      const loss = 1 - FAIL_FACTOR[check.severity];
      category.factor *= 1 - (check.status === "warn" ? loss / 2 : loss);
      if (check.status === "fail") category.cap = Math.min(category.cap, SEVERITY_CAP[check.severity] ?? 100);
    }
    state.set(check.category, category);
  }
  const categories = Object.fromEntries(
    CHECK_CATEGORIES.map((category) => {
      const total = state.get(category);
      return [category, total ? Math.min(total.cap, Math.round(100 * total.factor)) : null];
    }),
  ) as Record<CheckCategory, number | null>;
  const scored = Object.values(categories).filter((value): value is number => value !== null);
  const score = scored.length === 0 ? 100 : Math.round(scored.reduce((a, b) => a + b, 0) / scored.length);
  const caps = gradeCaps(checks);
  const measured = GRADE_FLOORS.find(([, floor]) => score >= floor)?.[0] ?? "F";
  const grade = caps.reduce<Grade>((best, cap) => worse(best, cap.grade), measured);
  // Only the caps that lowered the grade explain it; a C site with a high finding is just C.
  const binding = caps.filter((cap) => worse(measured, cap.grade) !== measured);
  return { score, grade, categories, failed, grade_caps: binding, not_checked: notCheckedOf(checks).length };
}
