/**
 * Markdown for the job summary, the PR comment and the CLI's text output — the same facts,
 * written once. Text that comes from the analyzed site (check messages, evidence, component
 * names) is untrusted: it is HTML-escaped, table-safe, stripped of mentions and links, and
 * length-capped before it reaches GitHub's renderer.
 */

import { failingChecks } from "../../shared/diff.ts";
import type { AssertionResult, CheckChange, Diff, VulnerabilityChange } from "../../shared/diff-schema.ts";
import { componentLabel, metricChangeText } from "../../shared/diff-text.ts";
import type { Check, Report } from "../../shared/report.ts";
import { formatMetricPair, formatMetricValue } from "../../shared/report-metrics.ts";
import { oneLine } from "../../shared/untrusted-text.ts";
import { vulnerabilityDataNotice } from "../../shared/vulnerability-data.ts";
import { labSummaryLines } from "./lab-summary.ts";

/** Escapes site text for GitHub-flavoured markdown (tables included). */
export function md(text: string | number | null | undefined, max = 200): string {
  const value = oneLine(String(text ?? ""), max);
  return value
    .replace(/([\\`*_[\]#!~])/g, "\\$1")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\|/g, "&#124;")
    .replace(/@/g, "@\u200b") // no @mentions from site text
    .replace(/:\/\//g, ":\u200b//"); // no auto-links
}

const STATUS_ICON: Record<string, string> = {
  pass: "✅ pass",
  warn: "⚠️ warn",
  fail: "❌ fail",
  skip: "⏭️ skip",
  error: "❗ error",
};
const statusText = (status: string | null) => (status ? (STATUS_ICON[status] ?? status) : "—");

function regressionRows(changes: CheckChange[], limit: number): string[] {
  const rows = ["| Severity | Check | Before → After | Details |", "|---|---|---|---|"];
  for (const change of changes.slice(0, limit)) {
    rows.push(
      `| ${change.severity} | \`${change.id}\`<br>${md(change.title, 100)}${change.new_check ? " (new check)" : ""} | ${statusText(change.before)} → ${statusText(change.after)} | ${md(change.message, 300)} |`,
    );
  }
  if (changes.length > limit) rows.push(`| | …and ${changes.length - limit} more | | |`);
  return rows;
}

/** A first report's failing checks: severity, check, status, details. */
function failingRows(checks: Check[], limit: number): string[] {
  const rows = ["| Severity | Check | Status | Details |", "|---|---|---|---|"];
  for (const check of checks.slice(0, limit)) {
    rows.push(
      `| ${check.severity} | \`${check.id}\`<br>${md(check.title, 100)} | ${statusText(check.status)} | ${md(check.message, 300)} |`,
    );
  }
  if (checks.length > limit) rows.push(`| | …and ${checks.length - limit} more | | |`);
  return rows;
}

/** Checks failing under an assertion: its level, the check, status, the pattern that decided, details. */
function assertionRows(results: AssertionResult[], limit: number): string[] {
  const rows = ["| Level | Check | Status | Asserted by | Details |", "|---|---|---|---|---|"];
  for (const result of results.slice(0, limit)) {
    rows.push(
      `| ${result.level === "error" ? "❌ error" : "⚠️ warn"} | \`${result.id}\`<br>${md(result.title, 100)} (${result.severity}) | ${statusText(result.status)} | \`${result.pattern}\` | ${md(result.message, 300)} |`,
    );
  }
  if (results.length > limit) rows.push(`| | …and ${results.length - limit} more | | | |`);
  return rows;
}

/** The assertions as given, for the summary's settings line: `security.*: error, seo.meta_description: warn`. */
export function assertionsText(diff: Diff): string {
  return diff.assertions.rules.map((rule) => `${rule.pattern}: ${rule.level}`).join(", ");
}

/** A table of vulnerabilities: severity, component, the advisory, CVE, affected range, the fix. */
function vulnerabilityRows(changes: VulnerabilityChange[], limit: number): string[] {
  const rows = ["| Severity | Component | Vulnerability | CVE | Affected | Fix |", "|---|---|---|---|---|---|"];
  for (const change of changes.slice(0, limit)) {
    const { vulnerability } = change;
    const cvss = vulnerability.cvss === null || vulnerability.cvss === undefined ? "" : ` (CVSS ${vulnerability.cvss})`;
    const how = change.component_change ? ` (${change.component_change})` : "";
    rows.push(
      `| ${vulnerability.severity}${cvss} | ${change.component_type} \`${md(componentLabel(change.component_type, change.slug), 100)}\` ${md(change.version ?? "(version unknown)", 40)}${how} | ${md(vulnerability.title, 200)}<br>${md(vulnerability.id, 80)} | ${(vulnerability.cve ?? []).map((cve) => md(cve, 40)).join(", ") || "—"} | ${md(vulnerability.affected ?? "—", 80)} | ${md(change.fix, 120)} |`,
    );
  }
  if (changes.length > limit) rows.push(`| | …and ${changes.length - limit} more | | | | |`);
  return rows;
}

export interface RenderContext {
  report: Report;
  /** The comparison; its `base_id` names the baseline (null: there was none). */
  diff: Diff;
  reportUrl: string;
  failOn: string;
}

/** The full result in markdown: verdict, score, regressions, new vulnerabilities by kind, components, metrics, budgets. */
export function renderMarkdown(
  { report, diff, reportUrl, failOn }: RenderContext,
  options: { limit?: number } = {},
): string {
  const limit = options.limit ?? 50;
  const lines: string[] = [];
  const verdict = diff.verdict.result === "pass" ? "✅ Passed" : "❌ Failed";
  lines.push(`### wpreport: ${verdict} — ${md(report.final_url ?? report.url, 300)}`, "");
  const score =
    diff.score.before !== null
      ? `**${diff.score.before} → ${diff.score.after}** (${(diff.score.delta ?? 0) >= 0 ? "+" : ""}${diff.score.delta}), grade ${diff.grade.before ?? "—"} → ${diff.grade.after ?? "—"}`
      : `**${diff.score.after ?? "—"}**, grade ${diff.grade.after ?? "—"}`;
  const asserted = assertionsText(diff);
  lines.push(
    `Score ${score} · ${diff.base_id ? `compared with [${md(diff.base_id)}](${reportUrl.replace(report.id, diff.base_id)})` : "no baseline"} · fail-on \`${failOn}\`${asserted ? ` · assert \`${asserted.replace(/`/g, "")}\`` : ""} · [full report](${reportUrl})`,
    "",
    `Baseline (\`${diff.baseline.rule}\`): ${md(diff.baseline.reason, 500)}`,
    "",
  );
  if (diff.verdict.reasons.length > 0) {
    lines.push("**Why it failed**", "", ...diff.verdict.reasons.map((reason) => `- ${md(reason, 400)}`), "");
  }
  if (diff.verdict.warnings.length > 0) {
    lines.push("**Warnings**", "", ...diff.verdict.warnings.map((warning) => `- ${md(warning, 400)}`), "");
  }
  if (diff.assertions.unmatched.length > 0) {
    lines.push(
      `> ⚠️ ${diff.assertions.unmatched.map((pattern) => `\`${pattern}\``).join(", ")} match${diff.assertions.unmatched.length === 1 ? "es" : ""} no check of this report: a typo, or a check this report does not have.`,
      "",
    );
  }
  if (report.hosting?.blocked_by_waf) {
    lines.push(
      `> ⚠️ The site answered with a ${md(report.hosting.waf ?? "firewall")} challenge instead of its homepage; nothing else could be analyzed.`,
      "",
    );
  }
  const vulnerabilityData = vulnerabilityDataNotice(report);
  if (vulnerabilityData) {
    lines.push(`> ⚠️ **${vulnerabilityData.title}.** ${md(vulnerabilityData.message, 1_000)}`, "");
  }
  if (report.wordpress?.detected === false && !report.hosting?.blocked_by_waf) {
    const stack = (report.hosting?.stack ?? []).map((item) => `${item.name}${item.version ? ` ${item.version}` : ""}`);
    lines.push(
      `> ℹ️ Not WordPress${stack.length > 0 ? ` — runs on ${md(stack.join(", "), 300)}` : ""}: only the checks that apply to any site ran.`,
      "",
    );
  }
  if (diff.regressions.length > 0) {
    lines.push(`#### Regressions (${diff.regressions.length})`, "", ...regressionRows(diff.regressions, limit), "");
  } else if (diff.base_id) {
    lines.push("No check got worse. 🎉", "");
  } else {
    const failing = failingChecks(report);
    lines.push(
      ...(failing.length > 0
        ? [
            `#### Failing now (${failing.length})`,
            "",
            `There is no baseline to compare with (the first report of this site and environment, or \`baseline: none\`), so nothing counts as a regression and these do not fail the build${diff.assertions.rules.length > 0 ? " unless an error assertion matches them (Assertions)" : ""}. Later runs compare with this report once it passed the gate.`,
            "",
            ...failingRows(failing, limit),
          ]
        : ["There is no baseline to compare with, and no check fails. 🎉"]),
      "",
    );
  }
  if (diff.assertions.results.length > 0) {
    lines.push(
      `#### Assertions (${diff.assertions.results.length})`,
      "",
      "Checks failing now under an assertion: `error` fails the build while the check fails, baseline or not; `warn` only warns.",
      "",
      ...assertionRows(diff.assertions.results, limit),
      "",
    );
  }
  const published = diff.new_vulnerabilities.filter((change) => change.kind === "new_vulnerability");
  if (published.length > 0) {
    lines.push(
      `#### New vulnerabilities in unchanged components (${published.length})`,
      "",
      "Published since the baseline for component versions that did not change (`new_vulnerability`): the site did not change, the risk is new.",
      "",
      ...vulnerabilityRows(published, limit),
      "",
    );
  }
  const brought = diff.new_vulnerabilities.filter((change) => change.kind !== "new_vulnerability");
  if (brought.length > 0) {
    lines.push(
      `#### Vulnerabilities introduced by component changes (${brought.length})`,
      "",
      "Components added or changed since the baseline bring these known vulnerabilities (`component_changed`).",
      "",
      ...vulnerabilityRows(brought, limit),
      "",
    );
  }
  if (diff.components.length > 0) {
    lines.push("#### Component changes", "", "| Component | Change | Version |", "|---|---|---|");
    for (const change of diff.components.slice(0, limit)) {
      lines.push(
        `| ${change.type} \`${md(change.slug, 100)}\`${change.name ? ` ${md(change.name, 80)}` : ""} | ${change.change} | ${md(change.before ?? "—")} → ${md(change.after ?? "—")} |`,
      );
    }
    lines.push("");
  }
  lines.push(...labSummaryLines(report, (text) => md(text, 300)));
  if (diff.metrics.length > 0) {
    lines.push("#### Metrics", "", "| Metric | Before | After | Change |", "|---|---|---|---|");
    for (const metric of diff.metrics) {
      const { before, after, change } = metricChangeText(metric);
      lines.push(
        `| ${metric.direction === "worse" ? "🔻" : "🔺"} ${metric.label} | ${before} | ${after} | ${change} |`,
      );
    }
    lines.push("");
  }
  if (diff.budgets.length > 0) {
    lines.push("#### Budgets", "", "| Metric | Budget | Value | |", "|---|---|---|---|");
    for (const budget of diff.budgets) {
      const [value, limit] =
        budget.value === null
          ? ["—", formatMetricValue(budget.unit, budget.limit)]
          : formatMetricPair(budget.unit, budget.value, budget.limit);
      lines.push(
        `| ${budget.label} | ${budget.kind === "max" ? "≤" : "≥"} ${limit} | ${value} | ${budget.exceeded ? "❌" : "✅"} |`,
      );
    }
    lines.push("");
  }
  if (diff.fixed_vulnerabilities.length > 0) {
    lines.push(`<details><summary>Fixed vulnerabilities (${diff.fixed_vulnerabilities.length})</summary>`, "");
    for (const change of diff.fixed_vulnerabilities.slice(0, limit))
      lines.push(
        `- ${change.component_type} \`${md(componentLabel(change.component_type, change.slug), 100)}\` ${md(change.version ?? "—", 40)}: ${md(change.vulnerability.title)} (${change.kind === "advisory_withdrawn" ? "advisory withdrawn" : (change.component_change ?? "")})`,
      );
    lines.push("", "</details>", "");
  }
  if (diff.improvements.length > 0) {
    lines.push(`<details><summary>Improvements (${diff.improvements.length})</summary>`, "");
    for (const change of diff.improvements.slice(0, limit))
      lines.push(`- \`${change.id}\` ${statusText(change.before)} → ${statusText(change.after)}`);
    lines.push("", "</details>", "");
  }
  return lines.join("\n");
}

/** One site's outcome in a step with several: its report and diff, or why it could not be checked. */
export interface SiteOutcome {
  url: string;
  report?: Report;
  diff?: Diff;
  reportUrl?: string;
  error?: string;
}

/**
 * The head of the summary of a step with several sites: the one verdict, then a row per site
 * (result, score, baseline, report). Each site's own section (renderMarkdown) follows it.
 */
export function renderOverview(sites: SiteOutcome[]): string {
  const failed = sites.filter((site) => site.error !== undefined || site.diff?.verdict.result === "fail").length;
  const lines = [
    `## wpreport: ${failed === 0 ? "✅ Passed" : "❌ Failed"} — ${failed === 0 ? `all ${sites.length} sites passed` : `${failed} of ${sites.length} sites failed`}`,
    "",
    "| Site | Result | Score | Baseline | Report |",
    "|---|---|---|---|---|",
  ];
  for (const site of sites) {
    const result = site.error !== undefined ? "❗ error" : site.diff?.verdict.result === "pass" ? "✅ pass" : "❌ fail";
    const score = site.report?.summary ? `${site.report.summary.score} (${site.report.summary.grade})` : "—";
    const report = site.report && site.reportUrl ? `[${md(site.report.id)}](${site.reportUrl})` : "—";
    const notice = site.report ? vulnerabilityDataNotice(site.report) : null;
    const detail =
      site.error !== undefined ? ` ${md(site.error, 300)}` : notice ? ` · ⚠️ ${notice.title.toLowerCase()}` : "";
    lines.push(
      `| ${md(site.url, 300)} | ${result}${detail} | ${score} | ${site.diff?.base_id ? md(site.diff.base_id) : "none"} | ${report} |`,
    );
  }
  lines.push("");
  return lines.join("\n");
}
