/**
 * The diff engine (docs/diff.md), shared by the server (GET /api/report/{id}/diff), the
 * GitHub Action and the CLI: what got worse, what got better, what changed, and — given
 * the user's thresholds — whether that fails the build. Its shapes are in diff-schema.ts, its
 * words in diff-text.ts, and the options a caller gives as text are read by diff-options.ts.
 *
 * Pure and deterministic: diff(a, a) has no changes; a regression from a→b is an
 * improvement from b→a. How a check compares: status rank pass/skip/error/absent = 0,
 * warn = 1, fail = 2; at equal rank a higher severity is worse. Checks a report does not
 * have count as rank 0, so a failing check that appears is listed as a regression — but
 * the verdict ignores checks the baseline did not have at all (a newer analyzer adding
 * checks is not the site getting worse).
 *
 * A vulnerability in the head report that the baseline did not list is one of two kinds:
 * `new_vulnerability` — the component is in both reports at the same version, so the site
 * did not change and the risk is newly published (the nightly audit of an unchanged site);
 * or `component_changed` — the component was added or its version changed, so the change
 * brought it in. Both fail the verdict at or above `failOn`, each with its own reason line.
 *
 * Assertions (`options.assertions`, as Lighthouse CI's) replace `failOn` for the checks they
 * match: `error` fails while the check fails in the head, baseline or not; `warn` adds a line
 * to `verdict.warnings`; `off` ignores the check — for a `components.*_vulnerable` check, its
 * component type's new vulnerabilities too. The baseline itself is the caller's: the service
 * passes the one its rule chose, with the reason (`baseline`).
 */

import type {
  Assertion,
  AssertionLevel,
  AssertionResult,
  BaselineChoice,
  BudgetResult,
  CheckChange,
  ComponentChange,
  Diff,
  MetricChange,
  RegressionKinds,
  VulnerabilityChange,
} from "./diff-schema.ts";
import {
  assertionLine,
  broughtVulnerabilitiesReason,
  describeBudget,
  publishedVulnerabilitiesReason,
  regressionReason,
  scoreDropReason,
  vulnerabilityFix,
} from "./diff-text.ts";
import { type Check, type CheckStatus, type Component, type Report, SEVERITIES, type Severity } from "./report.ts";
import { METRICS, metricByKey } from "./report-metrics.ts";
import { compareDottedVersions } from "./versions.ts";
import { vulnerabilitiesChecked } from "./vulnerability-data.ts";

export interface DiffOptions {
  /** Regressions (and new vulnerabilities) of at least this severity fail the build; "none" never. Default "high". */
  failOn?: Severity | "none";
  /**
   * Per-check levels that replace fail-on for the checks they match (docs/diff.md#assertions):
   * `error` fails the build while the check fails, baseline or not; `warn` only warns; `off`
   * ignores the check (and, for a `components.*_vulnerable` check, its new vulnerabilities).
   */
  assertions?: Assertion[];
  /** Fail when the overall score drops by more than this many points. */
  maxScoreDrop?: number | null;
  /** Absolute limits on metrics of the new report in their base units (ms, bytes), e.g. { ttfb_ms: 800, score: 80 }. */
  budgets?: Record<string, number>;
  /** Override a metric's noise thresholds, e.g. { ttfb_ms: { relative: 0.3, absolute: 200 } }. */
  noise?: Record<string, { relative?: number; absolute?: number }>;
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

/**
 * The checks a report fails now (status fail or warn), most severe first. What a first report
 * — one without a baseline, where nothing can be a regression — shows instead of regressions.
 */
export function failingChecks(report: Report): Check[] {
  return report.checks
    .filter((check) => STATUS_RANK[check.status] > 0)
    .sort(
      (a, b) =>
        severityRank(b.severity) - severityRank(a.severity) ||
        STATUS_RANK[b.status] - STATUS_RANK[a.status] ||
        a.id.localeCompare(b.id),
    );
}

type ComponentEntry = {
  type: ComponentChange["type"];
  component: Pick<Component, "slug" | "name" | "version" | "vulnerabilities">;
};

/** Core, the theme (and its parent theme: its code runs on every page too), and the plugins, by `<type>:<slug>`. */
function components(report: Report | null): Map<string, ComponentEntry> {
  const map = new Map<string, ComponentEntry>();
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
  if (report.theme) {
    map.set(`theme:${report.theme.slug}`, { type: "theme", component: report.theme });
    const parent = report.theme.parent;
    if (parent && !map.has(`theme:${parent.slug}`))
      map.set(`theme:${parent.slug}`, { type: "theme", component: parent });
  }
  for (const plugin of report.plugins ?? []) map.set(`plugin:${plugin.slug}`, { type: "plugin", component: plugin });
  return map;
}

/** How a component changed from `old` to `now`; null when it is in both at the same version (or in neither). */
function changeKind(
  old: ComponentEntry | undefined,
  now: ComponentEntry | undefined,
): ComponentChange["change"] | null {
  if (!old) return now ? "added" : null;
  if (!now) return "removed";
  const from = old.component.version;
  const to = now.component.version;
  if (from === to) return null;
  const order = from && to ? compareDottedVersions(to, from) : 0;
  return order > 0 ? "updated" : order < 0 ? "downgraded" : "version_changed";
}

function componentChanges(base: Report | null, head: Report): ComponentChange[] {
  if (!base) return [];
  const before = components(base);
  const after = components(head);
  const changes: ComponentChange[] = [];
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const old = before.get(key);
    const now = after.get(key);
    const change = changeKind(old, now);
    if (!change) continue;
    changes.push({
      type: (now ?? old)?.type as ComponentChange["type"],
      slug: (now ?? old)?.component.slug as string,
      name: now?.component.name ?? old?.component.name ?? null,
      change,
      before: old?.component.version ?? null,
      after: now?.component.version ?? null,
    });
  }
  return changes;
}

/**
 * The vulnerabilities `from` lists and `to` does not, keyed `<type>:<slug>#<id>`. `added` says
 * which direction: true for new ones (from = head), false for fixed ones (from = base).
 */
function vulnerabilityChanges(from: Report, to: Report, added: boolean): VulnerabilityChange[] {
  const here = components(from);
  const there = components(to);
  const known = new Set<string>();
  for (const [key, { component }] of there)
    for (const vulnerability of component.vulnerabilities ?? []) known.add(`${key}#${vulnerability.id}`);
  const changes: VulnerabilityChange[] = [];
  const seen = new Set<string>();
  for (const [key, entry] of here) {
    const { type, component } = entry;
    // The component change as seen from base to head, whichever side this one is on.
    const change = added ? changeKind(there.get(key), entry) : changeKind(entry, there.get(key));
    // Still installed, but no vulnerability source checked it in head: its advisories are
    // unknown there, not fixed or withdrawn (intel.vulnerability_data).
    if (!added && there.has(key) && !vulnerabilitiesChecked(to, type, component.slug)) continue;
    for (const vulnerability of component.vulnerabilities ?? []) {
      const id = `${key}#${vulnerability.id}`;
      if (known.has(id) || seen.has(id)) continue;
      seen.add(id);
      changes.push({
        component: key,
        component_type: type,
        slug: component.slug,
        version: component.version ?? null,
        kind: change ? "component_changed" : added ? "new_vulnerability" : "advisory_withdrawn",
        component_change: change,
        fix: vulnerabilityFix(type, component.slug, vulnerability.fixed_in ?? null, vulnerability.unfixed),
        vulnerability,
      });
    }
  }
  return changes.sort(
    (a, b) =>
      severityRank(b.vulnerability.severity) - severityRank(a.vulnerability.severity) ||
      `${a.component}#${a.vulnerability.id}`.localeCompare(`${b.component}#${b.vulnerability.id}`),
  );
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

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/** Whether `pattern` — a check id, or a glob in which `*` stands for any characters — matches the check id. */
export function assertionMatches(pattern: string, id: string): boolean {
  if (!pattern.includes("*")) return pattern === id;
  return new RegExp(`^${pattern.split("*").map(escapeRegExp).join(".*")}$`).test(id);
}

const LEVEL_RANK: Record<AssertionLevel, number> = { off: 0, warn: 1, error: 2 };
/** An exact id beats any glob; a glob with more characters besides `*` beats one with fewer. */
const specificity = (pattern: string) =>
  pattern.includes("*") ? pattern.replaceAll("*", "").length : Number.MAX_SAFE_INTEGER;

/**
 * The assertion that decides for a check: the most specific one that matches it (an exact id,
 * else the glob with the most characters besides `*`); between equally specific globs, the
 * stricter level. Undefined when none matches: fail-on decides.
 */
export function assertionFor(id: string, assertions: readonly Assertion[] = []): Assertion | undefined {
  let best: Assertion | undefined;
  for (const assertion of assertions) {
    if (!assertionMatches(assertion.pattern, id)) continue;
    if (
      !best ||
      specificity(assertion.pattern) > specificity(best.pattern) ||
      (specificity(assertion.pattern) === specificity(best.pattern) &&
        LEVEL_RANK[assertion.level] > LEVEL_RANK[best.level])
    )
      best = assertion;
  }
  return best;
}

/** The check whose assertion decides for a component's vulnerabilities. */
export const VULNERABLE_CHECK: Record<ComponentChange["type"], string> = {
  core: "components.core_vulnerable",
  theme: "components.theme_vulnerable",
  plugin: "components.plugins_vulnerable",
};

/** The head's checks that fail (fail or warn) under an error or warn assertion, error ones first. */
function assertionResults(head: Report, assertions: readonly Assertion[]): AssertionResult[] {
  if (assertions.length === 0) return [];
  const results: AssertionResult[] = [];
  for (const check of failingChecks(head)) {
    const assertion = assertionFor(check.id, assertions);
    if (!assertion || assertion.level === "off") continue;
    results.push({
      id: check.id,
      title: check.fail_title ?? check.title,
      category: check.category,
      severity: check.severity,
      status: check.status,
      level: assertion.level,
      pattern: assertion.pattern,
      message: check.message,
      remediation: check.remediation,
    });
  }
  // failingChecks orders by severity then status then id; error assertions go first (stable sort).
  return results.sort((a, b) => LEVEL_RANK[b.level] - LEVEL_RANK[a.level]);
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
      return { metric: key, label: metric.label, unit: metric.unit, limit, value, kind, exceeded };
    });
}

/**
 * The baseline as the caller chose it, when it does not say more: a report given by id, or
 * none. The service passes its own (the rule and why), GET /api/report/{id}/diff.
 */
function givenBaseline(base: Report | null): BaselineChoice {
  return base
    ? { rule: "report", id: base.id, reason: `${base.id} was given as the baseline` }
    : { rule: "none", id: null, reason: "no baseline: nothing is compared" };
}

/**
 * Why the head cannot pass against its baseline although nothing "regressed", or undefined.
 * A report that could not see the site as its baseline did — no grade where the baseline had
 * one (incomplete, or a firewall's challenge page), or no WordPress where the baseline found it
 * (a deploy that leaves every page a 500 "Error establishing a database connection", a
 * maintenance or log-in wall) — has mostly skipped checks, and pass/fail → skip is no
 * regression: it passed, even with a better score, and became the baseline every later deploy
 * was measured against, so the deploy that fixed the site then failed. Such a report fails the
 * gate instead (docs/diff.md, "A report that could not see the site"). Relative to the baseline,
 * so diff(a, a) still passes and a site that never was WordPress is judged as before.
 */
function lostSightReason(base: Report | null, head: Report): string | undefined {
  if (!base) return undefined;
  if (base.summary && !head.summary) {
    const cause = head.errors[0]?.message.replace(/\.+$/, "");
    return `this report has no grade, while the baseline ${base.id} had one${cause ? ` (${cause})` : ""}: the site could not be checked as before`;
  }
  if (base.wordpress?.detected && !head.wordpress?.detected)
    return `the site no longer looks like WordPress, while the baseline ${base.id} did: its homepage may be an error, maintenance or log-in page, and the WordPress checks could not run`;
  return undefined;
}

export function diff(
  base: Report | null,
  head: Report,
  options: DiffOptions = {},
  baseline: BaselineChoice = givenBaseline(base),
): Diff {
  const failOn = options.failOn ?? "high";
  const assertionRules = options.assertions ?? [];
  const asserted = (id: string) => assertionFor(id, assertionRules) !== undefined;
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

  const new_vulnerabilities = base ? vulnerabilityChanges(head, base, true) : [];
  const fixed_vulnerabilities = base ? vulnerabilityChanges(base, head, false) : [];
  const regression_kinds: RegressionKinds = {
    new_vulnerability: new_vulnerabilities.filter((change) => change.kind === "new_vulnerability").length,
    component_changed: new_vulnerabilities.filter((change) => change.kind === "component_changed").length,
  };

  const before = base?.summary?.score ?? null;
  const after = head.summary?.score ?? null;
  const scoreDelta = before !== null && after !== null ? after - before : null;
  const budgets = budgetResults(head, options.budgets ?? {});

  const reasons: string[] = [];
  if (failOn !== "none") {
    const blind = lostSightReason(base, head);
    if (blind) reasons.push(blind);
    const threshold = severityRank(failOn);
    // A check an assertion matches is decided by it, not by fail-on.
    const gating = regressions.filter(
      (change) => !change.new_check && !asserted(change.id) && severityRank(change.severity) >= threshold,
    );
    if (gating.length > 0) reasons.push(regressionReason(failOn, gating));
    const vulnerable = new_vulnerabilities.filter(
      (change) =>
        !asserted(VULNERABLE_CHECK[change.component_type]) && severityRank(change.vulnerability.severity) >= threshold,
    );
    const published = vulnerable.filter((change) => change.kind === "new_vulnerability");
    if (published.length > 0) reasons.push(publishedVulnerabilitiesReason(failOn, published));
    const brought = vulnerable.filter((change) => change.kind !== "new_vulnerability");
    if (brought.length > 0) reasons.push(broughtVulnerabilitiesReason(failOn, brought));
  }
  if (
    options.maxScoreDrop !== undefined &&
    options.maxScoreDrop !== null &&
    scoreDelta !== null &&
    -scoreDelta > options.maxScoreDrop
  ) {
    reasons.push(scoreDropReason(before as number, after as number, options.maxScoreDrop));
  }
  // A budget the report cannot show (a lab budget without a completed lab run, a score the report
  // has not) is not met: the gate never passes what it could not see.
  for (const budget of budgets.filter((result) => result.exceeded || result.value === null))
    reasons.push(describeBudget(budget));
  const results = assertionResults(head, assertionRules);
  const errors = results.filter((result) => result.level === "error");
  const warns = results.filter((result) => result.level === "warn");
  if (errors.length > 0) reasons.push(assertionLine("error", errors));
  const warnings = warns.length > 0 ? [assertionLine("warn", warns)] : [];
  const headIds = head.checks.map((check) => check.id);
  const unmatched = assertionRules
    .filter((assertion) => !headIds.some((id) => assertionMatches(assertion.pattern, id)))
    .map((assertion) => assertion.pattern);

  return {
    base_id: base?.id ?? null,
    head_id: head.id,
    score: { before, after, delta: scoreDelta },
    grade: { before: base?.summary?.grade ?? null, after: head.summary?.grade ?? null },
    regressions,
    improvements,
    new_vulnerabilities,
    fixed_vulnerabilities,
    regression_kinds,
    components: componentChanges(base, head),
    metrics: metricChanges(base, head, options),
    budgets,
    assertions: { rules: assertionRules.map(({ pattern, level }) => ({ pattern, level })), results, unmatched },
    baseline,
    verdict: { result: reasons.length > 0 ? "fail" : "pass", reasons, warnings },
  };
}
