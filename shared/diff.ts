/**
 * The diff engine (docs/diff.md), shared by the server (GET /api/report/{id}/diff), the
 * GitHub Action and the CLI: what got worse, what got better, what changed, and — given
 * the user's thresholds — whether that fails the build.
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
import { type Static, Type } from "@sinclair/typebox";
import {
  BUDGET_UNITS,
  formatMetricPair,
  formatMetricValue,
  METRICS,
  type MetricDefinition,
  MetricUnitSchema,
  metricByKey,
} from "./metrics.ts";
import {
  type Check,
  CheckCategorySchema,
  type CheckStatus,
  CheckStatusSchema,
  type Component,
  type Report,
  SEVERITIES,
  type Severity,
  SeveritySchema,
  type Vulnerability,
  VulnerabilitySchema,
} from "./report.ts";
import { Count, Nullable, named, StringEnum } from "./schema.ts";
import { compareDottedVersions } from "./versions.ts";
import { vulnerabilitiesChecked } from "./vulnerability-data.ts";

/** What an assertion makes of a check that fails (status fail or warn): fail the build, warn, or nothing. */
export const ASSERTION_LEVELS = ["error", "warn", "off"] as const;
export type AssertionLevel = (typeof ASSERTION_LEVELS)[number];

/**
 * An assertion, as Lighthouse CI has them: a check id, or a glob over check ids where `*` stands
 * for any characters (`security.*`, `*`), and the level it sets for the checks it matches.
 */
export interface Assertion {
  pattern: string;
  level: AssertionLevel;
}

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

export const CheckChangeSchema = named(
  "CheckChange",
  Type.Object({
    id: Type.String(),
    title: Type.String(),
    category: CheckCategorySchema,
    severity: SeveritySchema,
    before: Nullable(CheckStatusSchema, { description: "Status in the baseline; null when it did not have the check" }),
    after: Nullable(CheckStatusSchema, {
      description: "Status in the new report; null when it does not have the check",
    }),
    new_check: Type.Boolean({ description: "True when the baseline report did not have this check at all" }),
    message: Type.String(),
    remediation: Type.String(),
    evidence: Type.Array(Type.String()),
  }),
);
export type CheckChange = Static<typeof CheckChangeSchema>;

export const COMPONENT_TYPES = ["core", "theme", "plugin"] as const;

export const ComponentChangeSchema = named(
  "ComponentChange",
  Type.Object({
    type: StringEnum(COMPONENT_TYPES),
    slug: Type.String(),
    name: Nullable(Type.String()),
    change: StringEnum(["added", "removed", "updated", "downgraded", "version_changed"]),
    before: Nullable(Type.String()),
    after: Nullable(Type.String()),
  }),
);
export type ComponentChange = Static<typeof ComponentChangeSchema>;

export const VulnerabilityChangeKindSchema = named(
  "VulnerabilityChangeKind",
  StringEnum(["new_vulnerability", "component_changed", "advisory_withdrawn"], {
    description:
      "Why a vulnerability is in the diff. In new_vulnerabilities: new_vulnerability (same component, same version in both reports: newly published, the site did not change) or component_changed (the component was added or its version changed). In fixed_vulnerabilities: component_changed (updated, downgraded or removed) or advisory_withdrawn (same version in both reports: the advisory no longer lists it).",
  }),
);
export type VulnerabilityChangeKind = Static<typeof VulnerabilityChangeKindSchema>;

export const VulnerabilityChangeSchema = named(
  "VulnerabilityChange",
  Type.Object({
    component: Type.String({ description: "<type>:<slug>, e.g. plugin:akismet, core:wordpress" }),
    component_type: StringEnum(COMPONENT_TYPES),
    slug: Type.String({ description: "The component's slug (wordpress for core)" }),
    version: Nullable(Type.String(), {
      description:
        "The installed version the vulnerability affects: head's for a new one, the baseline's for a fixed one",
    }),
    kind: VulnerabilityChangeKindSchema,
    component_change: Nullable(StringEnum(["added", "removed", "updated", "downgraded", "version_changed"]), {
      description: "How the component changed between the two reports; null when it did not",
    }),
    fix: Type.String({
      description: 'What to do, e.g. "update akismet to 5.0.3" or "no fix available: remove or replace akismet"',
    }),
    vulnerability: VulnerabilitySchema,
  }),
);
export type VulnerabilityChange = Static<typeof VulnerabilityChangeSchema>;

export const RegressionKindsSchema = named(
  "RegressionKinds",
  Type.Object(
    { new_vulnerability: Count(), component_changed: Count() },
    { description: "How many of new_vulnerabilities are of each kind (all severities)" },
  ),
);
export type RegressionKinds = Static<typeof RegressionKindsSchema>;

export const MetricChangeSchema = named(
  "MetricChange",
  Type.Object({
    metric: Type.String(),
    label: Type.String(),
    unit: MetricUnitSchema,
    before: Type.Number(),
    after: Type.Number(),
    delta: Type.Number(),
    percent: Nullable(Type.Number(), {
      description: "Relative change in percent of the old value; null when the old value was 0",
    }),
    direction: StringEnum(["better", "worse"]),
  }),
);
export type MetricChange = Static<typeof MetricChangeSchema>;

export const BudgetResultSchema = named(
  "BudgetResult",
  Type.Object({
    metric: Type.String(),
    label: Type.String(),
    unit: { ...MetricUnitSchema, description: "The metric's base unit, which limit and value are in" },
    limit: Type.Number(),
    value: Nullable(Type.Number()),
    kind: StringEnum(["max", "min"], {
      description: "max for lower-is-better metrics, min for higher-is-better (scores)",
    }),
    exceeded: Type.Boolean(),
  }),
);
export type BudgetResult = Static<typeof BudgetResultSchema>;

export const VerdictSchema = named(
  "Verdict",
  Type.Object({
    result: StringEnum(["pass", "fail"]),
    reasons: Type.Array(Type.String(), { description: "Why it failed, one line each (empty on pass)" }),
    warnings: Type.Array(Type.String(), {
      description:
        "What a `warn` assertion found, one line each: shown, never failing (empty when none; absent from services before API 1.4.0)",
    }),
  }),
);
export type Verdict = Static<typeof VerdictSchema>;

export const AssertionLevelSchema = named(
  "AssertionLevel",
  StringEnum(ASSERTION_LEVELS, {
    description: "error: fails the build while the check fails; warn: a warning; off: the check is ignored",
  }),
);

export const AssertionResultSchema = named(
  "AssertionResult",
  Type.Object(
    {
      id: Type.String(),
      title: Type.String({ description: "What failing means (the check's fail_title, or its title)" }),
      category: CheckCategorySchema,
      severity: SeveritySchema,
      status: CheckStatusSchema,
      level: StringEnum(["error", "warn"]),
      pattern: Type.String({ description: "The assertion that decided (the most specific that matches)" }),
      message: Type.String(),
      remediation: Type.String(),
    },
    { description: "A check of the new report that fails (status fail or warn) under an error or warn assertion" },
  ),
);
export type AssertionResult = Static<typeof AssertionResultSchema>;

export const AssertionsSchema = named(
  "Assertions",
  Type.Object(
    {
      rules: Type.Array(Type.Object({ pattern: Type.String(), level: AssertionLevelSchema }), {
        description: "The assertions applied, as given (`assert`)",
      }),
      results: Type.Array(AssertionResultSchema, { description: "Error ones first, then by severity and id" }),
      unmatched: Type.Array(Type.String(), {
        description: "Patterns that match no check of the new report: a typo, or a check this report does not have",
      }),
    },
    { description: "What the `assert` option decided (docs/diff.md#assertions)" },
  ),
);
export type Assertions = Static<typeof AssertionsSchema>;

/** How the baseline was chosen: the rule asked for, and in its words why this report (or none). */
export const BASELINE_RULES = ["last-passing", "latest", "report", "none"] as const;
export type BaselineRule = (typeof BASELINE_RULES)[number];

export const BaselineChoiceSchema = named(
  "BaselineChoice",
  Type.Object(
    {
      rule: StringEnum(BASELINE_RULES, {
        description:
          "last-passing (the default: the newest earlier report of the site and environment that passed the gate), latest, report (an id was given) or none",
      }),
      id: Nullable(Type.String(), {
        description: "The baseline report (the same as base_id); null when there is none",
      }),
      reason: Type.String({ description: "Why this report is the baseline, or why there is none, in plain words" }),
    },
    { description: "The baseline the verdict used and why (docs/diff.md#the-baseline)" },
  ),
);
export type BaselineChoice = Static<typeof BaselineChoiceSchema>;

export const GateVerdictSchema = named(
  "GateVerdict",
  Type.Object(
    {
      result: StringEnum(["pass", "fail"]),
      base_id: Nullable(Type.String()),
      rule: StringEnum(["last-passing", "latest", "report"]),
      judged_at: Type.String({ format: "date-time" }),
    },
    {
      description:
        "The report's gate verdict: recorded by its first judgement against a baseline rule (not base=none) and never changed; a report passed the gate when it is pass (docs/diff.md#the-baseline)",
    },
  ),
);
export type GateVerdict = Static<typeof GateVerdictSchema>;

export const DiffSchema = named(
  "Diff",
  Type.Object(
    {
      base_id: Nullable(Type.String(), { description: "The baseline report; null when there was none" }),
      head_id: Type.String(),
      score: Type.Object({
        before: Nullable(Type.Number()),
        after: Nullable(Type.Number()),
        delta: Nullable(Type.Number()),
      }),
      grade: Type.Object({ before: Nullable(Type.String()), after: Nullable(Type.String()) }),
      regressions: Type.Array(CheckChangeSchema),
      improvements: Type.Array(CheckChangeSchema),
      new_vulnerabilities: Type.Array(VulnerabilityChangeSchema),
      fixed_vulnerabilities: Type.Array(VulnerabilityChangeSchema),
      regression_kinds: RegressionKindsSchema,
      components: Type.Array(ComponentChangeSchema),
      metrics: Type.Array(MetricChangeSchema),
      budgets: Type.Array(BudgetResultSchema),
      assertions: AssertionsSchema,
      baseline: BaselineChoiceSchema,
      gate: Type.Optional(
        Nullable(GateVerdictSchema, {
          description:
            "GET /api/report/{id}/diff: the head report's recorded gate verdict after this call (this one's when it was the first judgement); null when it has none (base=none)",
        }),
      ),
      verdict: VerdictSchema,
    },
    {
      description:
        "What got worse, what got better and what changed between two reports, and whether that fails the build (docs/diff.md)",
    },
  ),
);
export type Diff = Static<typeof DiffSchema>;

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

/** How a component is named to people: "WordPress" for core, the slug otherwise. */
export function componentLabel(type: ComponentChange["type"], slug: string): string {
  return type === "core" ? "WordPress" : slug;
}

/**
 * "update akismet to 5.0.3", "update WordPress to 6.1.10", what to do when the source names no
 * fixed version (`unfixed` false), or when there is no fix.
 */
export function vulnerabilityFix(
  type: ComponentChange["type"],
  slug: string,
  fixedIn: string | null,
  unfixed?: boolean,
): string {
  const label = componentLabel(type, slug);
  if (fixedIn) return `update ${label} to ${fixedIn}`;
  if (unfixed === false) return `update ${label} to its latest release (the source names no fixed version)`;
  return type === "core"
    ? "no fix available: watch for a WordPress security release and block the attack (WAF) meanwhile"
    : `no fix available: remove or replace ${label}`;
}

/**
 * One line for a vulnerability of an installed component:
 * "akismet 5.0.2: <id> <title> (high, CVSS 7.5, CVE-2023-1234) [affects <= 5.0.2] — update akismet to 5.0.3".
 */
export function describeVulnerability(
  type: ComponentChange["type"],
  slug: string,
  version: string | null,
  vulnerability: Vulnerability,
): string {
  const score = vulnerability.cvss === null || vulnerability.cvss === undefined ? "" : `, CVSS ${vulnerability.cvss}`;
  const cve = (vulnerability.cve ?? []).length > 0 ? `, ${(vulnerability.cve ?? []).join(" ")}` : "";
  const range = vulnerability.affected ? ` [affects ${vulnerability.affected}]` : "";
  return `${componentLabel(type, slug)} ${version ?? "(version unknown)"}: ${vulnerability.id} ${vulnerability.title} (${vulnerability.severity}${score}${cve})${range} — ${vulnerabilityFix(type, slug, vulnerability.fixed_in ?? null, vulnerability.unfixed)}`;
}

/** `describeVulnerability` for an entry of the diff. */
export function describeVulnerabilityChange(change: VulnerabilityChange): string {
  return describeVulnerability(change.component_type, change.slug, change.version, change.vulnerability);
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

/** "3 newly published vulnerabilities …: akismet 5.0.2 CVE-2023-1 (high), …" — at most 5 named. */
function vulnerabilityReason(intro: string, changes: VulnerabilityChange[]): string {
  const named = changes
    .slice(0, 5)
    .map(
      ({ component_type, slug, version, vulnerability }) =>
        `${componentLabel(component_type, slug)} ${version ?? "(version unknown)"} ${vulnerability.cve?.[0] ?? vulnerability.id} (${vulnerability.severity})`,
    );
  return `${intro}: ${named.join(", ")}${changes.length > 5 ? ", …" : ""}`;
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

/** "2 checks fail under an error assertion: security.https (security.*), …" — at most 5 named. */
function assertionLine(level: "error" | "warn", results: AssertionResult[]): string {
  const named = results.slice(0, 5).map((result) => `${result.id} (${result.pattern})`);
  return `${results.length} check${results.length === 1 ? " fails" : "s fail"} under ${level === "error" ? "an error" : "a warn"} assertion: ${named.join(", ")}${results.length > 5 ? ", …" : ""}`;
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
    if (gating.length > 0) {
      reasons.push(
        `${gating.length} check${gating.length === 1 ? "" : "s"} regressed at severity ${failOn} or above: ${gating
          .slice(0, 5)
          .map((change) => change.id)
          .join(", ")}${gating.length > 5 ? ", …" : ""}`,
      );
    }
    const vulnerable = new_vulnerabilities.filter(
      (change) =>
        !asserted(VULNERABLE_CHECK[change.component_type]) && severityRank(change.vulnerability.severity) >= threshold,
    );
    const published = vulnerable.filter((change) => change.kind === "new_vulnerability");
    if (published.length > 0)
      reasons.push(
        vulnerabilityReason(
          `${published.length} newly published vulnerabilit${published.length === 1 ? "y affects" : "ies affect"} unchanged components at severity ${failOn} or above (new_vulnerability)`,
          published,
        ),
      );
    const brought = vulnerable.filter((change) => change.kind !== "new_vulnerability");
    if (brought.length > 0)
      reasons.push(
        vulnerabilityReason(
          `${brought.length} vulnerabilit${brought.length === 1 ? "y" : "ies"} came with component changes at severity ${failOn} or above (component_changed)`,
          brought,
        ),
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
  for (const budget of budgets.filter((result) => result.exceeded)) reasons.push(describeBudget(budget));
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

/** A metric change for people, with units: before "1.2 s", after "1.6 s", change "+400 ms (+33%)". */
export function metricChangeText(metric: MetricChange): { before: string; after: string; change: string } {
  const [before, after] = formatMetricPair(metric.unit, metric.before, metric.after);
  const sign = metric.delta > 0 ? "+" : "";
  const percent = metric.percent !== null ? ` (${metric.percent > 0 ? "+" : ""}${metric.percent}%)` : "";
  return { before, after, change: `${sign}${formatMetricValue(metric.unit, metric.delta)}${percent}` };
}

/** "HTML size is 260.4 kB, over the budget of 250 kB" (or "within the budget of …"), units included. */
export function describeBudget(budget: BudgetResult): string {
  if (budget.value === null)
    return `${budget.label} is unknown (budget ${formatMetricValue(budget.unit, budget.limit)})`;
  const [value, limit] = formatMetricPair(budget.unit, budget.value, budget.limit);
  const where = budget.exceeded ? (budget.kind === "max" ? "over" : "under") : "within";
  return `${budget.label} is ${value}, ${where} the budget of ${limit}`;
}

/** The units a metric's budget may be written in, for messages: "ms, s". */
function unitNames(metric: MetricDefinition): string {
  return Object.keys(BUDGET_UNITS[metric.unit]).join(", ");
}

/**
 * Parses budgets — "ttfb_ms=800ms, html_bytes=250kB\nscore=80", comma- or newline-separated —
 * into limits in each metric's base unit ({ ttfb_ms: 800, html_bytes: 250000, score: 80 }).
 * Times take ms or s, sizes B, kB, MB, KiB or MiB (BUDGET_UNITS); a plain number is in the
 * base unit (ms, bytes), as before units were accepted. Scores (0–100 points) and counts
 * (whole numbers) take plain numbers. Anything else throws with a message that says what
 * would be accepted; the Action, the CLI and GET /api/report/{id}/diff all parse here.
 */
export function parseBudgets(text: string): Record<string, number> {
  const budgets: Record<string, number> = {};
  for (const part of text
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter(Boolean)) {
    const match = /^([a-z_]+)\s*[=:]\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(part);
    if (!match)
      throw new Error(
        `budget "${part}" is not of the form metric=value (a number ≥ 0 and, for times and sizes, a unit), e.g. ttfb_ms=800ms, html_bytes=250kB, score=80`,
      );
    const [, key = "", number = "0", unit = ""] = match;
    const metric = metricByKey(key);
    if (!metric) throw new Error(`unknown budget metric "${key}"; known: ${METRICS.map((m) => m.key).join(", ")}`);
    if (key in budgets) throw new Error(`budget "${key}" is given twice`);
    let value = Number(number);
    if (unit !== "") {
      const units = BUDGET_UNITS[metric.unit];
      const name = Object.keys(units).find((candidate) => candidate.toLowerCase() === unit.toLowerCase());
      if (name === undefined) {
        throw new Error(
          Object.keys(units).length === 0
            ? `budget "${part}": ${key} is ${metric.unit === "points" ? "a score in points (0–100)" : "a count"} and takes a plain number, without a unit`
            : `budget "${part}": "${unit}" is not a unit of ${key}, which is ${metric.unit === "ms" ? "a time" : "a size"}; use ${unitNames(metric)}`,
        );
      }
      value *= units[name] as number;
    }
    if (metric.unit === "points" && value > 100) throw new Error(`budget "${part}": ${key} is a score from 0 to 100`);
    if (metric.unit === "count" && !Number.isInteger(value))
      throw new Error(`budget "${part}": ${key} is a count, a whole number`);
    // Sizes are whole bytes (1.5 KiB = 1536); times may keep a fraction of a millisecond.
    budgets[key] = metric.unit === "bytes" ? Math.round(value) : value;
  }
  return budgets;
}

export function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}
