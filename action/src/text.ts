/**
 * The CLI's plain-text output (`wpreport check --format text`): the verdict, regressions
 * (or, without a baseline, the checks failing now), new vulnerabilities by kind, component
 * changes and worse metrics. Site text is stripped
 * of control characters, so it cannot carry terminal escape sequences.
 */

import { failingChecks } from "../../shared/diff.ts";
import type { Diff, VulnerabilityChange } from "../../shared/diff-schema.ts";
import { describeVulnerabilityChange, metricChangeText } from "../../shared/diff-text.ts";
import type { Report } from "../../shared/report.ts";
import { unseenSite } from "../../shared/report-sight.ts";
import { withoutControls } from "../../shared/untrusted-text.ts";
import { vulnerabilityDataNotice } from "../../shared/vulnerability-data.ts";
import { alreadyPresent } from "./check.ts";
import { vulnerabilityStatus } from "./markdown.ts";

function vulnerabilityLines(title: string, changes: VulnerabilityChange[]): string[] {
  if (changes.length === 0) return [];
  return [
    "",
    `${title} (${changes.length}):`,
    ...changes.map(
      (change) =>
        `  [${change.vulnerability.severity}] ${change.kind}: ${describeVulnerabilityChange(change)}${change.component_change ? ` (component ${change.component_change})` : ""}`,
    ),
  ];
}

/** Without a baseline nothing is a regression: what fails now, so a first run is not silent about it. */
function failingLines(report: Report, result: Diff, failOn: string): string[] {
  const failing = failingChecks(report);
  if (failing.length === 0) return ["", "No baseline to compare with; no check fails."];
  const present = alreadyPresent(failing, failOn, result);
  const [first] = present;
  return [
    "",
    `Failing now (${failing.length}) — no baseline to compare with, so none of these is a regression or fails the build${result.assertions.rules.length > 0 ? " unless an error assertion matches it" : ""}:`,
    ...failing.map((check) => `  [${check.severity}] ${check.id}: ${check.status} — ${check.message}`),
    ...(present.length > 0
      ? [
          `  ! ${present.length} of them at ${failOn} or above, already present: fail-on judges changes, so they do not fail this run. To fail while they fail, assert them, e.g. --assert "${first?.id}=error".`,
        ]
      : []),
  ];
}

/** The score, never "null": what the report has, or why it has none. */
function scoreLine(result: Diff, unseen: boolean): string {
  const { before, after } = result.score;
  const missing = `no score (${unseen ? "the report could not see the site" : "no grade"})`;
  if (after === null) return before !== null ? `score ${before} → ${missing}` : missing;
  return `score ${before ?? "—"} → ${after}, grade ${result.grade.after ?? "—"}`;
}

export function renderText(report: Report, result: Diff, failOn: string, reportUrl?: string): string {
  const lines: string[] = [];
  const unseen = unseenSite(report);
  const verdict = unseen ? "COULD NOT CHECK" : result.verdict.result === "pass" ? "PASSED" : "FAILED";
  lines.push(`wpreport: ${verdict} — ${report.final_url ?? report.url}`);
  lines.push(
    `report ${report.id}, ${scoreLine(result, unseen !== null)}, baseline ${result.base_id ?? "none"}, fail-on ${failOn}`,
  );
  lines.push(`baseline (${result.baseline.rule}): ${result.baseline.reason}`);
  if (reportUrl) lines.push(`full report: ${reportUrl}`);
  if (unseen) {
    // Its checks graded a 401 or challenge page: the report's own error is the result.
    lines.push(`  ✗ the report could not see the site: ${unseen.message}`);
    for (const reason of result.verdict.reasons) lines.push(`  ✗ ${reason}`);
    return withoutControls(lines.join("\n"));
  }
  const vulnerabilityData = vulnerabilityDataNotice(report);
  if (vulnerabilityData) lines.push(`  ! ${vulnerabilityStatus(vulnerabilityData)}: ${vulnerabilityData.message}`);
  const notChecked = report.not_checked ?? [];
  const notCheckedCount = Math.max(notChecked.length, report.summary?.not_checked ?? 0);
  if (notCheckedCount > 0) {
    lines.push(`  ! ${notCheckedCount} check${notCheckedCount === 1 ? "" : "s"} could not run (skipped, not passed):`);
    for (const entry of notChecked) lines.push(`      ${entry.check}: ${entry.reason}`);
  }
  for (const reason of result.verdict.reasons) lines.push(`  ✗ ${reason}`);
  for (const warning of result.verdict.warnings) lines.push(`  ! ${warning}`);
  for (const pattern of result.assertions.unmatched)
    lines.push(`  ! assert: ${pattern} matches no check of this report (a typo, or a check it does not have)`);
  if (result.assertions.results.length > 0) {
    lines.push("", `Assertions (${result.assertions.results.length}):`);
    for (const asserted of result.assertions.results)
      lines.push(
        `  [${asserted.level}] ${asserted.id}: ${asserted.status} (${asserted.severity}, asserted by ${asserted.pattern}) — ${asserted.message}`,
      );
  }
  if (result.regressions.length > 0) {
    lines.push("", `Regressions (${result.regressions.length}):`);
    for (const change of result.regressions)
      lines.push(
        `  [${change.severity}] ${change.id}: ${change.before ?? "absent"} → ${change.after ?? "absent"} — ${change.message}`,
      );
  }
  if (!result.base_id) lines.push(...failingLines(report, result, failOn));
  lines.push(
    ...vulnerabilityLines(
      "New vulnerabilities in unchanged components",
      result.new_vulnerabilities.filter((change) => change.kind === "new_vulnerability"),
    ),
    ...vulnerabilityLines(
      "Vulnerabilities introduced by component changes",
      result.new_vulnerabilities.filter((change) => change.kind !== "new_vulnerability"),
    ),
  );
  if (result.components.length > 0) {
    lines.push("", "Component changes:");
    for (const change of result.components)
      lines.push(`  ${change.type} ${change.slug}: ${change.change} ${change.before ?? "—"} → ${change.after ?? "—"}`);
  }
  for (const metric of result.metrics.filter((m) => m.direction === "worse")) {
    const { before, after } = metricChangeText(metric);
    lines.push(
      `  ▼ ${metric.label}: ${before} → ${after}${metric.percent !== null ? ` (${metric.percent > 0 ? "+" : ""}${metric.percent}%)` : ""}`,
    );
  }
  // Site text could carry terminal escape sequences: strip control characters.
  return withoutControls(lines.join("\n"));
}
