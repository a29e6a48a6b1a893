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
import { type UnseenSite, unseenSite } from "../../shared/report-sight.ts";
import { oneLine } from "../../shared/untrusted-text.ts";
import { type VulnerabilityDataNotice, vulnerabilityDataNotice } from "../../shared/vulnerability-data.ts";
import { alreadyPresent } from "./check.ts";
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

/**
 * The score, never `null`: before → after with the change when both exist; a report without a
 * score says why (it could not see the site, or has no grade) instead of printing nothing or null.
 */
function scoreText(diff: Diff, unseen: UnseenSite | null): string {
  const { before, after, delta } = diff.score;
  const grades = `grade ${diff.grade.before ?? "—"} → ${diff.grade.after ?? "—"}`;
  const missing = `no score: ${unseen ? "the report could not see the site" : "the report has no grade"}`;
  if (before !== null && after !== null && delta !== null)
    return `**${before} → ${after}** (${delta >= 0 ? "+" : ""}${delta}), ${grades}`;
  if (before !== null) return `**${before} → —** (${missing}), ${grades}`;
  return after !== null ? `**${after}**, grade ${diff.grade.after ?? "—"}` : `— (${missing})`;
}

/** How far the report's vulnerabilities were checked, when not fully: never "none" or "0". */
export function vulnerabilityStatus(notice: VulnerabilityDataNotice): string {
  return notice.status === "none"
    ? "Vulnerabilities not checked: no vulnerability data"
    : "Vulnerabilities partly checked: vulnerability data incomplete";
}

/** How many checks could not run (report `not_checked` and `summary.not_checked`, since schema 1.5.0). */
const notCheckedCount = (report: Report) => Math.max(report.not_checked?.length ?? 0, report.summary?.not_checked ?? 0);

/** The checks that could not run (report `not_checked`, since schema 1.5.0) and why. */
function notCheckedLines(report: Report, limit: number): string[] {
  const entries = report.not_checked ?? [];
  const count = notCheckedCount(report);
  if (count === 0) return [];
  // A code span shows its text literally: no markdown escapes inside, only no backtick to close it.
  const rows = entries
    .slice(0, limit)
    .map((entry) => `- \`${oneLine(entry.check, 100).replace(/`/g, "")}\`: ${md(entry.reason, 300)}`);
  if (entries.length > limit) rows.push(`- …and ${entries.length - limit} more`);
  return [
    `> ⚠️ **${count} check${count === 1 ? "" : "s"} could not run** — skipped, not passed; the score counts only the checks that ran.`,
    "",
    ...rows,
    ...(rows.length > 0 ? [""] : []),
  ];
}

/** On a first run, the findings fail-on does not gate (they are already there), and how to gate on them. */
function presentLines(failing: Check[], failOn: string, diff: Diff): string[] {
  const present = alreadyPresent(failing, failOn, diff);
  if (present.length === 0) return [];
  const [first] = present;
  return [
    `**${present.length} already present at \`${failOn}\` or above** (${present
      .slice(0, 10)
      .map((check) => `\`${check.id}\``)
      .join(
        ", ",
      )}${present.length > 10 ? ", …" : ""}): \`fail-on\` judges changes, so they do not fail this run. To fail while they fail, baseline or not, assert them, e.g. \`assert: "${first?.id}: error"\` (CLI: \`--assert "${first?.id}=error"\`).`,
    "",
  ];
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
  const unseen = unseenSite(report);
  const verdict = unseen ? "❗ Could not check" : diff.verdict.result === "pass" ? "✅ Passed" : "❌ Failed";
  lines.push(`### wpreport: ${verdict} — ${md(report.final_url ?? report.url, 300)}`, "");
  const score = scoreText(diff, unseen);
  const asserted = assertionsText(diff);
  lines.push(
    `Score ${score} · ${diff.base_id ? `compared with [${md(diff.base_id)}](${reportUrl.replace(report.id, diff.base_id)})` : "no baseline"} · fail-on \`${failOn}\`${asserted ? ` · assert \`${asserted.replace(/`/g, "")}\`` : ""} · [full report](${reportUrl})`,
    "",
    `Baseline (\`${diff.baseline.rule}\`): ${md(diff.baseline.reason, 500)}`,
    "",
  );
  if (unseen) {
    lines.push(
      `> ❗ **The report could not see the site.** ${md(unseen.message, 1_000)}`,
      ">",
      "> Its checks graded the page the site answered with, not the site, so none is listed here, and the gate does not pass it.",
      "",
    );
  }
  if (diff.verdict.reasons.length > 0) {
    lines.push("**Why it failed**", "", ...diff.verdict.reasons.map((reason) => `- ${md(reason, 400)}`), "");
  }
  if (unseen) return lines.join("\n");
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
    lines.push(`> ⚠️ **${vulnerabilityStatus(vulnerabilityData)}.** ${md(vulnerabilityData.message, 1_000)}`, "");
  }
  lines.push(...notCheckedLines(report, limit));
  if (report.wordpress?.detected === false && !report.hosting?.blocked_by_waf && !unseen) {
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
            ...presentLines(failing, failOn, diff),
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
  const problem = (site: SiteOutcome) => site.error ?? (site.report ? unseenSite(site.report)?.message : undefined);
  const failed = sites.filter((site) => problem(site) !== undefined || site.diff?.verdict.result === "fail").length;
  const lines = [
    `## wpreport: ${failed === 0 ? "✅ Passed" : "❌ Failed"} — ${failed === 0 ? `all ${sites.length} sites passed` : `${failed} of ${sites.length} sites failed`}`,
    "",
    "| Site | Result | Score | Baseline | Report |",
    "|---|---|---|---|---|",
  ];
  for (const site of sites) {
    const error = problem(site);
    const result = error !== undefined ? "❗ error" : site.diff?.verdict.result === "pass" ? "✅ pass" : "❌ fail";
    const score = site.report?.summary ? `${site.report.summary.score} (${site.report.summary.grade})` : "—";
    const report = site.report && site.reportUrl ? `[${md(site.report.id)}](${site.reportUrl})` : "—";
    const notice = site.report ? vulnerabilityDataNotice(site.report) : null;
    const detail =
      error !== undefined
        ? ` ${md(error, 300)}`
        : notice
          ? ` · ⚠️ vulnerabilities ${notice.status === "none" ? "not checked: no vulnerability data" : "partly checked"}`
          : "";
    const skipped = site.report ? notCheckedCount(site.report) : 0;
    const notRun =
      error === undefined && skipped > 0 ? ` · ⚠️ ${skipped} check${skipped === 1 ? "" : "s"} could not run` : "";
    lines.push(
      `| ${md(site.url, 300)} | ${result}${detail}${notRun} | ${score} | ${site.diff?.base_id ? md(site.diff.base_id) : "none"} | ${report} |`,
    );
  }
  lines.push("");
  return lines.join("\n");
}
