/**
 * The shared shape of the outdated/vulnerable checks of core, theme and plugins. Each reads
 * what intel filled in (latest_version, outdated, vulnerabilities) and skips when there is
 * nothing to compare: no version data for the component, or its version unknown.
 */
import { type Check, SEVERITIES, type Severity, type Vulnerability } from "../../../../shared/report.ts";
import { siteText } from "../../untrusted-text.ts";
import { type CheckId, makeCheck } from "../catalogue.ts";

export interface Assessable {
  name: string;
  version: string | null;
  latest_version: string | null;
  outdated: boolean | null;
  vulnerabilities: Vulnerability[];
}

export interface ComponentKind {
  outdated: CheckId;
  vulnerable: CheckId;
  /** Plural noun for messages: "plugins", "themes". */
  plural: string;
}

/** Vulnerabilities of these severities fail the check; only low/info ones warn. */
const FAILING: ReadonlySet<Severity> = new Set(["critical", "high", "medium"]);

const names = (items: readonly Assessable[]) => items.map((item) => item.name).join(", ");
const labelled = (item: Assessable) => `${item.name} ${item.version ?? "(version unknown)"}`;

export function describeVulnerability(item: Assessable, vulnerability: Vulnerability): string {
  const score = vulnerability.cvss === null ? "" : `, CVSS ${vulnerability.cvss}`;
  const cve = vulnerability.cve.length > 0 ? `, ${vulnerability.cve.join(" ")}` : "";
  const fix = vulnerability.fixed_in ? `fixed in ${vulnerability.fixed_in}` : "no fix available";
  return siteText(
    `${labelled(item)}: ${vulnerability.id} (${vulnerability.severity}${score}${cve}) ${vulnerability.title} — ${fix}`,
    500,
  );
}

export function assessComponents(kind: ComponentKind, items: readonly Assessable[], none: string): Check[] {
  const skipBoth = (message: string) => [
    makeCheck(kind.outdated, "skip", message),
    makeCheck(kind.vulnerable, "skip", message),
  ];
  if (items.length === 0) return skipBoth(none);
  const withData = items.filter((item) => item.latest_version !== null);
  if (withData.length === 0) {
    const them = items.length === 1 ? "it" : "they";
    return skipBoth(
      `No version data is configured for ${names(items)}, so ${them} cannot be compared with the latest release.`,
    );
  }
  // outdated is null exactly when the installed version is unknown or not a version.
  const comparable = withData.filter((item) => item.outdated !== null);
  if (comparable.length === 0) {
    return skipBoth(`The installed version of ${names(withData)} could not be detected.`);
  }
  const unknown = withData.length - comparable.length;
  const aside =
    unknown > 0 ? ` ${unknown} more with version data could not be compared: their version is unknown.` : "";
  return [outdatedCheck(kind, comparable, aside), vulnerableCheck(kind, comparable, aside)];
}

function outdatedCheck(kind: ComponentKind, comparable: readonly Assessable[], aside: string): Check {
  const behind = comparable.filter((item) => item.outdated);
  const evidence = behind.map((item) => `${labelled(item)} → ${item.latest_version}`);
  if (behind.length === 0) {
    const message =
      comparable.length === 1
        ? `${labelled(comparable[0] as Assessable)} is up to date (latest known release: ${comparable[0]?.latest_version}).`
        : `All ${comparable.length} ${kind.plural} whose version is known are up to date.`;
    return makeCheck(kind.outdated, "pass", message + aside);
  }
  const message =
    comparable.length === 1
      ? `${labelled(behind[0] as Assessable)} is older than the latest release, ${behind[0]?.latest_version}.`
      : `${behind.length} of ${comparable.length} ${kind.plural} are older than their latest release.`;
  return makeCheck(kind.outdated, "fail", message + aside, evidence);
}

function vulnerableCheck(kind: ComponentKind, comparable: readonly Assessable[], aside: string): Check {
  const affected = comparable.filter((item) => item.vulnerabilities.length > 0);
  if (affected.length === 0) {
    return makeCheck(
      kind.vulnerable,
      "pass",
      `No known vulnerability affects ${comparable.map(labelled).join(", ")}.${aside}`,
    );
  }
  const entries = affected.flatMap((item) => item.vulnerabilities.map((vulnerability) => ({ item, vulnerability })));
  const worst = SEVERITIES.find((severity) => entries.some(({ vulnerability }) => vulnerability.severity === severity));
  const count =
    entries.length === 1 ? "1 known vulnerability affects" : `${entries.length} known vulnerabilities affect`;
  return makeCheck(
    kind.vulnerable,
    worst && FAILING.has(worst) ? "fail" : "warn",
    `${count} ${affected.map(labelled).join(", ")} (most severe: ${worst}).${aside}`,
    entries.map(({ item, vulnerability }) => describeVulnerability(item, vulnerability)),
  );
}
