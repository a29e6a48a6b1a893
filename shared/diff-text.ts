/**
 * The diff in words (docs/diff.md): the lines the engine's verdict gives as its reasons, and
 * what the job summary, the PR comment, the CLI, the annotations, SARIF and the web pages say
 * about a component, a vulnerability, a metric or a budget. Pure text from the diff's shapes.
 */
import type {
  AssertionResult,
  BudgetResult,
  CheckChange,
  ComponentChange,
  MetricChange,
  VulnerabilityChange,
} from "./diff-schema.ts";
import type { Severity, Vulnerability } from "./report.ts";
import { formatMetricPair, formatMetricValue } from "./report-metrics.ts";

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

/** "2 checks regressed at severity high or above: security.https, seo.title" — at most 5 named. */
export function regressionReason(failOn: Severity, gating: readonly CheckChange[]): string {
  return `${gating.length} check${gating.length === 1 ? "" : "s"} regressed at severity ${failOn} or above: ${gating
    .slice(0, 5)
    .map((change) => change.id)
    .join(", ")}${gating.length > 5 ? ", …" : ""}`;
}

/** The verdict's line for newly published vulnerabilities of unchanged components (new_vulnerability). */
export function publishedVulnerabilitiesReason(failOn: Severity, published: VulnerabilityChange[]): string {
  return vulnerabilityReason(
    `${published.length} newly published vulnerabilit${published.length === 1 ? "y affects" : "ies affect"} unchanged components at severity ${failOn} or above (new_vulnerability)`,
    published,
  );
}

/** The verdict's line for vulnerabilities that came with component changes (component_changed). */
export function broughtVulnerabilitiesReason(failOn: Severity, brought: VulnerabilityChange[]): string {
  return vulnerabilityReason(
    `${brought.length} vulnerabilit${brought.length === 1 ? "y" : "ies"} came with component changes at severity ${failOn} or above (component_changed)`,
    brought,
  );
}

/** "the score dropped by 12 points (90 → 78), more than the allowed 5". */
export function scoreDropReason(before: number, after: number, maxScoreDrop: number): string {
  return `the score dropped by ${before - after} points (${before} → ${after}), more than the allowed ${maxScoreDrop}`;
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

/** "2 checks fail under an error assertion: security.https (security.*), …" — at most 5 named. */
export function assertionLine(level: "error" | "warn", results: AssertionResult[]): string {
  const named = results.slice(0, 5).map((result) => `${result.id} (${result.pattern})`);
  return `${results.length} check${results.length === 1 ? " fails" : "s fail"} under ${level === "error" ? "an error" : "a warn"} assertion: ${named.join(", ")}${results.length > 5 ? ", …" : ""}`;
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
  if (budget.value === null) {
    const why = budget.label.endsWith("(lab)")
      ? "the report has no completed lab run (ask for one with lab)"
      : "the report does not show it";
    return `${budget.label} was not measured, so its budget of ${formatMetricValue(budget.unit, budget.limit)} is not met: ${why}`;
  }
  const [value, limit] = formatMetricPair(budget.unit, budget.value, budget.limit);
  const where = budget.exceeded ? (budget.kind === "max" ? "over" : "under") : "within";
  return `${budget.label} is ${value}, ${where} the budget of ${limit}`;
}
