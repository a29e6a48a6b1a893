/**
 * The CLI's plain-text output (`wpreport check --format text`): the verdict, regressions,
 * new vulnerabilities by kind, component changes and worse metrics. Site text is stripped
 * of control characters, so it cannot carry terminal escape sequences.
 */
import { type Diff, describeVulnerabilityChange, type VulnerabilityChange } from "../../shared/diff.ts";
import type { Report } from "../../shared/report.ts";

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

export function renderText(report: Report, base: Report | null, result: Diff, failOn: string): string {
  const lines: string[] = [];
  lines.push(`wpreport: ${result.verdict.result === "pass" ? "PASSED" : "FAILED"} — ${report.final_url ?? report.url}`);
  lines.push(
    `report ${report.id}, score ${result.score.before ?? "—"} → ${result.score.after ?? "—"}, grade ${result.grade.after ?? "—"}, baseline ${base?.id ?? "none"}, fail-on ${failOn}`,
  );
  for (const reason of result.verdict.reasons) lines.push(`  ✗ ${reason}`);
  if (result.regressions.length > 0) {
    lines.push("", `Regressions (${result.regressions.length}):`);
    for (const change of result.regressions)
      lines.push(
        `  [${change.severity}] ${change.id}: ${change.before ?? "absent"} → ${change.after ?? "absent"} — ${change.message}`,
      );
  }
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
    lines.push(
      `  ▼ ${metric.label}: ${metric.before} → ${metric.after}${metric.percent !== null ? ` (${metric.percent > 0 ? "+" : ""}${metric.percent}%)` : ""}`,
    );
  }
  // Site text could carry terminal escape sequences: strip control characters.
  return lines.join("\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
}
