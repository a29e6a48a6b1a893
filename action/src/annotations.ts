/**
 * Annotations on the workflow run, through @actions/core (which escapes what it writes —
 * site text never reaches a `::` workflow command raw). GitHub shows at most 10 error, 10
 * warning and 10 notice annotations per step and drops the rest, so the most severe come
 * first, whatever does not fit is grouped into one last annotation of that level, and one
 * slot is kept free for what the step writes after them: the verdict (`core.setFailed` is an
 * error annotation, the last thing a failing step prints) and the run's own warning (the site
 * is not WordPress, or did not answer in time).
 */
import {
  type CheckChange,
  componentLabel,
  type Diff,
  describeBudget,
  describeVulnerabilityChange,
  type VulnerabilityChange,
} from "../../shared/diff.ts";
import type { Severity } from "../../shared/report.ts";
import { oneLine } from "../../shared/untrusted-text.ts";
import { type ActionCore, actionsCore } from "./action-core.ts";

type Level = "error" | "warning" | "notice";
const LEVEL: Record<Severity, Level> = {
  critical: "error",
  high: "error",
  medium: "warning",
  low: "notice",
  info: "notice",
};
/** GitHub shows this many annotations of each level per step. */
export const GITHUB_ANNOTATIONS_PER_LEVEL = 10;
/** Slots per level kept for annotations written after these: the verdict, the run's own warning. */
export const RESERVED: Record<Level, number> = { error: 1, warning: 1, notice: 0 };

export interface Annotation {
  level: Level;
  title: string;
  message: string;
}

function clean(text: string, max: number): string {
  return oneLine(text, max);
}

function fromRegression(change: CheckChange): Annotation {
  return {
    level: LEVEL[change.severity],
    title: clean(`wpreport: ${change.title}`, 120),
    message: clean(
      `${change.id} (${change.severity}): ${change.before ?? "absent"} → ${change.after ?? "absent"}. ${change.message} Fix: ${change.remediation}`,
      1_000,
    ),
  };
}

/** One per new vulnerability, the kind (`new_vulnerability` / `component_changed`) named literally, the fix in the message. */
function fromVulnerability(change: VulnerabilityChange): Annotation {
  const component = `${componentLabel(change.component_type, change.slug)} ${change.version ?? "(version unknown)"}`;
  return {
    level: LEVEL[change.vulnerability.severity] ?? "warning",
    title: clean(
      change.kind === "new_vulnerability"
        ? `wpreport: new_vulnerability in unchanged ${component}`
        : `wpreport: vulnerability came with ${component} (component_changed)`,
      120,
    ),
    message: clean(
      `${change.kind}: ${describeVulnerabilityChange(change)}.${
        change.kind === "new_vulnerability"
          ? " Newly published for a version that did not change since the baseline."
          : ` The component was ${change.component_change ?? "changed"} since the baseline.`
      } Fix: ${change.fix}.`,
      1_000,
    ),
  };
}

/** The annotations for a diff: regressions, new vulnerabilities and exceeded budgets, capped and grouped. */
export function annotationsFor(diff: Diff): Annotation[] {
  const all: Annotation[] = [
    ...diff.regressions.map(fromRegression),
    ...diff.new_vulnerabilities.map(fromVulnerability),
    ...diff.budgets
      .filter((budget) => budget.exceeded)
      .map((budget) => ({
        level: "error" as const,
        title: `wpreport: ${budget.label} over budget`,
        message: `${describeBudget(budget)}.`,
      })),
  ];
  const out: Annotation[] = [];
  for (const level of ["error", "warning", "notice"] as const) {
    const ofLevel = all.filter((annotation) => annotation.level === level);
    const room = GITHUB_ANNOTATIONS_PER_LEVEL - RESERVED[level];
    // All of them when they fit; otherwise room − 1 of them and one that names the rest.
    const shown = ofLevel.length <= room ? ofLevel.length : room - 1;
    out.push(...ofLevel.slice(0, shown));
    const rest = ofLevel.slice(shown);
    if (rest.length > 0) {
      out.push({
        level,
        title: `wpreport: ${rest.length} more`,
        message: clean(
          `${rest.length} more: ${rest.map((annotation) => annotation.title.replace(/^wpreport: /, "")).join("; ")}. See the job summary.`,
          2_000,
        ),
      });
    }
  }
  return out;
}

/** Writes the diff's annotations (through @actions/core, which escapes them). */
export function annotate(diff: Diff, runner: Pick<ActionCore, Level> = actionsCore): void {
  for (const annotation of annotationsFor(diff)) {
    runner[annotation.level](annotation.message, { title: annotation.title });
  }
}
