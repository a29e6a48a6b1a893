/**
 * The diff's shapes (docs/diff.md), written once as TypeBox schemas: the answer of
 * GET /api/report/{id}/diff (its OpenAPI components), the diff in monitoring events, and the
 * types the engine (diff.ts), its wording (diff-text.ts), the Action and the CLI work with.
 */
import { type Static, Type } from "@sinclair/typebox";
import { CheckCategorySchema, CheckStatusSchema, SeveritySchema, VulnerabilitySchema } from "./report.ts";
import { MetricUnitSchema } from "./report-metrics.ts";
import { Count, Nullable, named, StringEnum } from "./schema.ts";

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
