/**
 * Annotations on the workflow run, through @actions/core (which escapes what it writes —
 * site text never reaches a `::` workflow command raw). GitHub shows at most 10 error, 10
 * warning and 10 notice annotations per step and drops the rest, so the most severe come
 * first, whatever does not fit is grouped into one last annotation of that level, and one
 * slot is kept free for what the step writes after them: the verdict (`core.setFailed` is an
 * error annotation, the last thing a failing step prints) and the run's own warnings (the site
 * is not WordPress, or did not answer in time; the report had no or incomplete vulnerability
 * data; on a first run, the findings already present that fail-on does not gate).
 */

import { assertionFor, VULNERABLE_CHECK } from "../../shared/diff.ts";
import type { AssertionResult, CheckChange, Diff, VulnerabilityChange } from "../../shared/diff-schema.ts";
import { componentLabel, describeBudget, describeVulnerabilityChange } from "../../shared/diff-text.ts";
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
/**
 * Slots per level kept for annotations written after these: the verdict, and the run's own
 * warnings (the site is not WordPress or did not answer in time; no vulnerability data; the
 * findings already present on a first run).
 */
export const RESERVED: Record<Level, number> = { error: 1, warning: 3, notice: 0 };

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

/** A check failing under an error or warn assertion: at the assertion's level, whatever the check's severity. */
function fromAssertion(result: AssertionResult): Annotation {
  return {
    level: result.level === "error" ? "error" : "warning",
    title: clean(`wpreport: ${result.title}`, 120),
    message: clean(
      `${result.id} (${result.severity}): ${result.status}, asserted ${result.level} by ${result.pattern}. ${result.message} Fix: ${result.remediation}`,
      1_000,
    ),
  };
}

const RANK: Record<Level, number> = { notice: 0, warning: 1, error: 2 };

/**
 * Every annotation of one diff, uncapped: regressions that fail-on decides (an assertion's
 * check is annotated by its assertion instead, or not at all when it is `off`), checks failing
 * under an assertion, new vulnerabilities (at most a warning under a `warn` assertion of their
 * check, none under `off`) and exceeded budgets — after the assertions that match no check, a
 * mistake in the workflow that must not drown among the findings. With `url`
 * (a step with several sites) each message starts with the site.
 */
function annotationsOf(diff: Diff, url?: string): Annotation[] {
  const rules = diff.assertions.rules;
  const all: Annotation[] = [
    // A mistake in the workflow first: the warnings after it may be many.
    ...diff.assertions.unmatched.map((pattern) => ({
      level: "warning" as const,
      title: "wpreport: assertion matches no check",
      message: clean(
        `assert: ${pattern} matches no check of this report — a typo, or a check this report does not have (docs/diff.md#assertions).`,
        1_000,
      ),
    })),
    ...diff.regressions.filter((change) => !assertionFor(change.id, rules)).map(fromRegression),
    ...diff.assertions.results.map(fromAssertion),
    ...diff.new_vulnerabilities.flatMap((change) => {
      const annotation = fromVulnerability(change);
      const level = assertionFor(VULNERABLE_CHECK[change.component_type], rules)?.level;
      if (level === "off") return [];
      if (level === "warn" && RANK[annotation.level] > RANK.warning) annotation.level = "warning";
      return [annotation];
    }),
    ...diff.budgets
      .filter((budget) => budget.exceeded)
      .map((budget) => ({
        level: "error" as const,
        title: `wpreport: ${budget.label} over budget`,
        message: `${describeBudget(budget)}.`,
      })),
  ];
  if (url === undefined) return all;
  const site = clean(url, 300);
  return all.map((annotation) => ({ ...annotation, message: clean(`${site}: ${annotation.message}`, 1_300) }));
}

/** The annotations for a diff: regressions, assertions, new vulnerabilities and exceeded budgets, capped and grouped. */
export function annotationsFor(diff: Diff): Annotation[] {
  return capped(annotationsOf(diff));
}

/** The annotations of a step with several sites, each message naming its site, capped together (the limit is per step). */
export function annotationsForSites(diffs: { url: string; diff: Diff }[]): Annotation[] {
  const all = diffs.flatMap(({ url, diff }) => annotationsOf(diff, url));
  // One line for an assertion that matches nothing at several sites.
  const seen = new Set<string>();
  return capped(
    all.filter((annotation) => {
      if (annotation.title !== "wpreport: assertion matches no check") return true;
      const key = annotation.message.slice(annotation.message.indexOf("assert: "));
      return !seen.has(key) && !!seen.add(key);
    }),
  );
}

function capped(all: Annotation[]): Annotation[] {
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

/** Writes annotations (through @actions/core, which escapes them). */
export function annotate(annotations: Annotation[], runner: Pick<ActionCore, Level> = actionsCore): void {
  for (const annotation of annotations) {
    runner[annotation.level](annotation.message, { title: annotation.title });
  }
}
