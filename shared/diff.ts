/**
 * The diff engine (SPEC.md §9), shared by the server (GET /api/report/{id}/diff), the
 * GitHub Action and the CLI: what got worse, what got better, what changed, and — given
 * the user's thresholds — whether that fails the build.
 *
 * Pure and deterministic: diff(a, a) has no changes; a regression from a→b is an
 * improvement from b→a. How a check compares: status rank pass/skip/error/absent = 0,
 * warn = 1, fail = 2; at equal rank a higher severity is worse. Checks a report does not
 * have count as rank 0, so a failing check that appears is listed as a regression — but
 * the verdict ignores checks the baseline did not have at all (a newer analyzer adding
 * checks is not the site getting worse).
 */
import { METRICS, type MetricDefinition, metricByKey } from "./metrics.ts";
import type { Check, CheckStatus, Component, Report, Severity, Vulnerability } from "./report.ts";
import { SEVERITIES } from "./report.ts";
import { compareDottedVersions } from "./versions.ts";

export interface DiffOptions {
  /** Regressions (and new vulnerabilities) of at least this severity fail the build; "none" never. Default "high". */
  failOn?: Severity | "none";
  /** Fail when the overall score drops by more than this many points. */
  maxScoreDrop?: number | null;
  /** Absolute limits on metrics of the new report, e.g. { ttfb_ms: 800, score: 80 }. */
  budgets?: Record<string, number>;
  /** Override a metric's noise thresholds, e.g. { ttfb_ms: { relative: 0.3, absolute: 200 } }. */
  noise?: Record<string, { relative?: number; absolute?: number }>;
}

export interface CheckChange {
  id: string;
  title: string;
  category: Check["category"];
  severity: Severity;
  before: CheckStatus | null;
  after: CheckStatus | null;
  /** True when the baseline report did not have this check at all. */
  new_check: boolean;
  message: string;
  remediation: string;
  evidence: string[];
}

export interface ComponentChange {
  type: "core" | "theme" | "plugin";
  slug: string;
  name: string | null;
  change: "added" | "removed" | "updated" | "downgraded" | "version_changed";
  before: string | null;
  after: string | null;
}

export interface VulnerabilityChange {
  component: string;
  vulnerability: Vulnerability;
}

export interface MetricChange {
  metric: string;
  label: string;
  unit: MetricDefinition["unit"];
  before: number;
  after: number;
  delta: number;
  /** Relative change in percent of the old value; null when the old value was 0. */
  percent: number | null;
  direction: "better" | "worse";
}

export interface BudgetResult {
  metric: string;
  label: string;
  limit: number;
  value: number | null;
  /** "max" for lower-is-better metrics, "min" for higher-is-better (scores). */
  kind: "max" | "min";
  exceeded: boolean;
}

export interface Verdict {
  result: "pass" | "fail";
  /** Why it failed, one line each (empty on pass). */
  reasons: string[];
}

export interface Diff {
  base_id: string | null;
  head_id: string;
  score: { before: number | null; after: number | null; delta: number | null };
  grade: { before: string | null; after: string | null };
  regressions: CheckChange[];
  improvements: CheckChange[];
  new_vulnerabilities: VulnerabilityChange[];
  fixed_vulnerabilities: VulnerabilityChange[];
  components: ComponentChange[];
  metrics: MetricChange[];
  budgets: BudgetResult[];
  verdict: Verdict;
}

const STATUS_RANK: Record<CheckStatus, number> = { pass: 0, skip: 0, error: 0, warn: 1, fail: 2 };
const severityRank = (severity: Severity) => SEVERITIES.length - SEVERITIES.indexOf(severity); // critical = 5 … info = 1

function badness(check: Check | undefined): [number, number] {
  if (!check) return [0, 0];
  const rank = STATUS_RANK[check.status];
  return [rank, rank > 0 ? severityRank(check.severity) : 0];
}

function compare(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

function changeOf(before: Check | undefined, after: Check | undefined, baseHasIt: boolean): CheckChange {
  const shown = (after ?? before) as Check;
  return {
    id: shown.id,
    title: shown.title,
    category: shown.category,
    severity: shown.severity,
    before: before?.status ?? null,
    after: after?.status ?? null,
    new_check: !baseHasIt,
    message: shown.message,
    remediation: shown.remediation,
    evidence: shown.evidence,
  };
}

/** Most severe first, then by id, so output is stable and the worst news comes first. */
function bySeverity(a: CheckChange, b: CheckChange): number {
  return severityRank(b.severity) - severityRank(a.severity) || a.id.localeCompare(b.id);
}

function components(
  report: Report | null,
): Map<
  string,
  { type: ComponentChange["type"]; component: Pick<Component, "slug" | "name" | "version" | "vulnerabilities"> }
> {
  const map = new Map<
    string,
    { type: ComponentChange["type"]; component: Pick<Component, "slug" | "name" | "version" | "vulnerabilities"> }
  >();
  if (!report) return map;
  if (report.wordpress?.detected) {
    map.set("core:wordpress", {
      type: "core",
      component: {
        slug: "wordpress",
        name: "WordPress",
        version: report.wordpress.version,
        vulnerabilities: report.wordpress.vulnerabilities,
      },
    });
  }
  if (report.theme) map.set(`theme:${report.theme.slug}`, { type: "theme", component: report.theme });
  for (const plugin of report.plugins ?? []) map.set(`plugin:${plugin.slug}`, { type: "plugin", component: plugin });
  return map;
}

function componentChanges(base: Report | null, head: Report): ComponentChange[] {
  if (!base) return [];
  const before = components(base);
  const after = components(head);
  const changes: ComponentChange[] = [];
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const old = before.get(key);
    const now = after.get(key);
    const type = (now ?? old)?.type as ComponentChange["type"];
    const slug = (now ?? old)?.component.slug as string;
    const name = now?.component.name ?? old?.component.name ?? null;
    const from = old?.component.version ?? null;
    const to = now?.component.version ?? null;
    if (!old) changes.push({ type, slug, name, change: "added", before: null, after: to });
    else if (!now) changes.push({ type, slug, name, change: "removed", before: from, after: null });
    else if (from !== to) {
      const order = from && to ? compareDottedVersions(to, from) : 0;
      changes.push({
        type,
        slug,
        name,
        change: order > 0 ? "updated" : order < 0 ? "downgraded" : "version_changed",
        before: from,
        after: to,
      });
    }
  }
  return changes;
}

function vulnerabilitySet(report: Report | null): Map<string, VulnerabilityChange> {
  const map = new Map<string, VulnerabilityChange>();
  for (const [key, { component }] of components(report)) {
    for (const vulnerability of component.vulnerabilities ?? [])
      map.set(`${key}#${vulnerability.id}`, { component: key, vulnerability });
  }
  return map;
}

function metricChanges(base: Report | null, head: Report, options: DiffOptions): MetricChange[] {
  if (!base) return [];
  const changes: MetricChange[] = [];
  for (const metric of METRICS) {
    const before = metric.value(base);
    const after = metric.value(head);
    if (before === null || after === null || before === after) continue;
    const delta = after - before;
    const noise = { relative: metric.relative, absolute: metric.absolute, ...options.noise?.[metric.key] };
    // Noise threshold symmetric in both reports, so that a→b and b→a agree.
    const scale = Math.min(Math.abs(before), Math.abs(after));
    if (Math.abs(delta) < noise.absolute || Math.abs(delta) < noise.relative * scale) continue;
    const worse = metric.better === "lower" ? delta > 0 : delta < 0;
    changes.push({
      metric: metric.key,
      label: metric.label,
      unit: metric.unit,
      before,
      after,
      delta: Math.round(delta * 100) / 100,
      percent: before === 0 ? null : Math.round((delta / Math.abs(before)) * 1000) / 10,
      direction: worse ? "worse" : "better",
    });
  }
  return changes;
}

function budgetResults(head: Report, budgets: Record<string, number>): BudgetResult[] {
  return Object.entries(budgets)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, limit]) => {
      const metric = metricByKey(key);
      if (!metric) throw new Error(`unknown budget metric "${key}"`);
      const value = metric.value(head);
      const kind = metric.better === "higher" ? "min" : "max";
      const exceeded = value !== null && (kind === "max" ? value > limit : value < limit);
      return { metric: key, label: metric.label, limit, value, kind, exceeded };
    });
}

export function diff(base: Report | null, head: Report, options: DiffOptions = {}): Diff {
  const failOn = options.failOn ?? "high";
  const baseChecks = new Map((base?.checks ?? []).map((check) => [check.id, check]));
  const headChecks = new Map(head.checks.map((check) => [check.id, check]));
  const regressions: CheckChange[] = [];
  const improvements: CheckChange[] = [];
  if (base) {
    for (const id of new Set([...baseChecks.keys(), ...headChecks.keys()])) {
      const before = baseChecks.get(id);
      const after = headChecks.get(id);
      const order = compare(badness(after), badness(before));
      if (order > 0) regressions.push(changeOf(before, after, baseChecks.has(id)));
      else if (order < 0) improvements.push(changeOf(before, after, baseChecks.has(id)));
    }
  }
  regressions.sort(bySeverity);
  improvements.sort(bySeverity);

  const oldVulns = vulnerabilitySet(base);
  const newVulns = vulnerabilitySet(head);
  const byVulnSeverity = (a: VulnerabilityChange, b: VulnerabilityChange) =>
    severityRank(b.vulnerability.severity) - severityRank(a.vulnerability.severity) ||
    `${a.component}#${a.vulnerability.id}`.localeCompare(`${b.component}#${b.vulnerability.id}`);
  const new_vulnerabilities = base
    ? [...newVulns]
        .filter(([key]) => !oldVulns.has(key))
        .map(([, v]) => v)
        .sort(byVulnSeverity)
    : [];
  const fixed_vulnerabilities = base
    ? [...oldVulns]
        .filter(([key]) => !newVulns.has(key))
        .map(([, v]) => v)
        .sort(byVulnSeverity)
    : [];

  const before = base?.summary?.score ?? null;
  const after = head.summary?.score ?? null;
  const scoreDelta = before !== null && after !== null ? after - before : null;
  const budgets = budgetResults(head, options.budgets ?? {});

  const reasons: string[] = [];
  if (failOn !== "none") {
    const threshold = severityRank(failOn);
    const gating = regressions.filter((change) => !change.new_check && severityRank(change.severity) >= threshold);
    if (gating.length > 0) {
      reasons.push(
        `${gating.length} check${gating.length === 1 ? "" : "s"} regressed at severity ${failOn} or above: ${gating
          .slice(0, 5)
          .map((change) => change.id)
          .join(", ")}${gating.length > 5 ? ", …" : ""}`,
      );
    }
    const vulnerable = new_vulnerabilities.filter((change) => severityRank(change.vulnerability.severity) >= threshold);
    if (vulnerable.length > 0)
      reasons.push(
        `${vulnerable.length} new known vulnerabilit${vulnerable.length === 1 ? "y" : "ies"} at severity ${failOn} or above`,
      );
  }
  if (
    options.maxScoreDrop !== undefined &&
    options.maxScoreDrop !== null &&
    scoreDelta !== null &&
    -scoreDelta > options.maxScoreDrop
  ) {
    reasons.push(
      `the score dropped by ${-scoreDelta} points (${before} → ${after}), more than the allowed ${options.maxScoreDrop}`,
    );
  }
  for (const budget of budgets.filter((result) => result.exceeded)) {
    reasons.push(
      `${budget.label} is ${budget.value}, ${budget.kind === "max" ? "over" : "under"} the budget of ${budget.limit}`,
    );
  }

  return {
    base_id: base?.id ?? null,
    head_id: head.id,
    score: { before, after, delta: scoreDelta },
    grade: { before: base?.summary?.grade ?? null, after: head.summary?.grade ?? null },
    regressions,
    improvements,
    new_vulnerabilities,
    fixed_vulnerabilities,
    components: componentChanges(base, head),
    metrics: metricChanges(base, head, options),
    budgets,
    verdict: { result: reasons.length > 0 ? "fail" : "pass", reasons },
  };
}

/** Parses "ttfb_ms=800, score=80" into budgets; throws with a clear message on bad input. */
export function parseBudgets(text: string): Record<string, number> {
  const budgets: Record<string, number> = {};
  for (const part of text
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter(Boolean)) {
    const match = /^([a-z_]+)\s*[=:]\s*(-?\d+(?:\.\d+)?)$/.exec(part);
    if (!match) throw new Error(`budget "${part}" is not of the form metric=number`);
    const [, key = "", value = "0"] = match;
    if (!metricByKey(key))
      throw new Error(`unknown budget metric "${key}"; known: ${METRICS.map((m) => m.key).join(", ")}`);
    budgets[key] = Number(value);
  }
  return budgets;
}

export function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}
