/**
 * The shared shape of the outdated/vulnerable checks of core, theme and plugins. Each reads
 * what intel filled in (latest_version, outdated, vulnerabilities) and skips when there is
 * nothing to compare: no latest version / no vulnerability data, or the version unknown.
 *
 * The vulnerable check takes the severity of its worst vulnerability (from CVSS), so a
 * critical advisory fails it as critical and a low one only warns.
 */
import {
  type Check,
  type LatestVersionReason,
  SEVERITIES,
  type Severity,
  type UncheckedComponent,
  type Vulnerability,
} from "../../../../shared/report.ts";
import type { IntelFacts } from "../../facts.ts";
import { NO_VULNERABILITY_SOURCE } from "../../intel/data.ts";
import { parseVersion } from "../../intel/versions.ts";
import { siteText } from "../../untrusted-text.ts";
import { type CheckId, makeCheck } from "../catalogue.ts";

export interface Assessable {
  /** How messages name it: the slug for plugins and themes (site text). */
  name: string;
  /** The slug for the update command ("wp plugin update <slug>"). */
  slug: string;
  version: string | null;
  latest_version: string | null;
  latest_version_reason?: LatestVersionReason | null;
  outdated: boolean | null;
  vulnerabilities: Vulnerability[];
}

export interface ComponentKind {
  outdated: CheckId;
  vulnerable: CheckId;
  /** Plural noun for messages: "plugins", "themes". */
  plural: string;
  /** How intel.vulnerability_data names these components (its `unchecked[].type`). */
  type: UncheckedComponent["type"];
}

/** Vulnerabilities of these severities fail the check; only low/info ones warn. */
const FAILING: ReadonlySet<Severity> = new Set(["critical", "high", "medium"]);

const REASONS: Record<LatestVersionReason, string> = {
  not_in_directory: "not in the WordPress.org directory",
  closed: "closed on WordPress.org",
  lookup_failed: "WordPress.org did not answer in time",
  no_data: "no data source knows it",
};

const names = (items: readonly Assessable[]) => items.map((item) => item.name).join(", ");
const labelled = (item: Assessable) => `${item.name} ${item.version ?? "(version unknown)"}`;

/** "akismet 5.0.2: <id> (high, CVSS 7.5, CVE-…) <title> — update akismet to 5.0.3". */
export function describeVulnerability(item: Assessable, vulnerability: Vulnerability): string {
  const score = vulnerability.cvss === null ? "" : `, CVSS ${vulnerability.cvss}`;
  const cve = vulnerability.cve.length > 0 ? `, ${vulnerability.cve.join(" ")}` : "";
  const range = vulnerability.affected ? ` [affects ${vulnerability.affected}]` : "";
  const fix = vulnerability.fixed_in
    ? `update ${item.slug} to ${vulnerability.fixed_in}`
    : vulnerability.unfixed === false
      ? `update ${item.slug} to its latest release (the source names no fixed version)`
      : "no fix available";
  return siteText(
    `${labelled(item)}: ${vulnerability.id} (${vulnerability.severity}${score}${cve}) ${vulnerability.title}${range} — ${fix}`,
    600,
  );
}

export function assessComponents(
  kind: ComponentKind,
  items: readonly Assessable[],
  none: string,
  intel: IntelFacts | undefined,
): Check[] {
  if (items.length === 0) {
    return [makeCheck(kind.outdated, "skip", none), makeCheck(kind.vulnerable, "skip", none)];
  }
  return [outdatedCheck(kind, items), vulnerableCheck(kind, items, intel)];
}

function outdatedCheck(kind: ComponentKind, items: readonly Assessable[]): Check {
  const withData = items.filter((item) => item.latest_version !== null);
  if (withData.length === 0) {
    const why = items.map((item) => `${item.name}: ${REASONS[item.latest_version_reason ?? "no_data"]}`).join("; ");
    return makeCheck(kind.outdated, "skip", siteText(`No latest version is known (${why}).`, 1000));
  }
  // outdated is null exactly when the installed version is unknown or not a version.
  const comparable = withData.filter((item) => item.outdated !== null);
  if (comparable.length === 0) {
    return makeCheck(kind.outdated, "skip", `The installed version of ${names(withData)} could not be detected.`);
  }
  const unknown = items.length - comparable.length;
  const aside = unknown > 0 ? ` ${unknown} more could not be compared (version or latest release unknown).` : "";
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

function vulnerableCheck(kind: ComponentKind, items: readonly Assessable[], intel: IntelFacts | undefined): Check {
  if (!intel?.vulnerabilityData || intel.coverage.status === "none") {
    const why = intel?.coverage.message ?? NO_VULNERABILITY_SOURCE;
    return makeCheck(
      kind.vulnerable,
      "skip",
      siteText(
        `${why} Whether ${names(items)} ${items.length === 1 ? "has" : "have"} known vulnerabilities cannot be said (docs/intel.md).`,
        1000,
      ),
    );
  }
  // Components no source checked (a lookup failed): like an unknown version, nothing can be said.
  const gaps = new Map(
    intel.coverage.unchecked.filter((gap) => gap.type === kind.type).map((gap) => [gap.slug, gap.reason]),
  );
  const uncheckedOf = (item: Assessable) => gaps.get(kind.type === "core" ? "wordpress" : item.slug.toLowerCase());
  const checked = items.filter((item) => uncheckedOf(item) === undefined);
  if (checked.length === 0) {
    const reasons = [...new Set(items.map((item) => uncheckedOf(item)))].join(" ");
    return makeCheck(
      kind.vulnerable,
      "skip",
      siteText(`No vulnerability source checked ${names(items)}: ${reasons}`, 1000),
    );
  }
  const comparable = checked.filter((item) => item.version !== null && parseVersion(item.version) !== null);
  const notChecked = items.filter((item) => uncheckedOf(item) !== undefined);
  const gapAside =
    notChecked.length > 0
      ? ` ${notChecked.length} more could not be checked: no vulnerability source answered for ${names(notChecked)}.`
      : "";
  if (comparable.length === 0) {
    return makeCheck(
      kind.vulnerable,
      "skip",
      siteText(`The installed version of ${names(checked)} could not be detected.${gapAside}`, 1000),
    );
  }
  const unknown = checked.length - comparable.length;
  const aside =
    (unknown > 0 ? ` ${unknown} more could not be checked: their version is unknown.` : "") + siteText(gapAside, 1000);
  const affected = comparable.filter((item) => item.vulnerabilities.length > 0);
  if (affected.length === 0) {
    return makeCheck(
      kind.vulnerable,
      "pass",
      `No known vulnerability affects ${comparable.map(labelled).join(", ")}.${aside}`,
    );
  }
  const entries = affected.flatMap((item) => item.vulnerabilities.map((vulnerability) => ({ item, vulnerability })));
  const worst = SEVERITIES.find((severity) =>
    entries.some(({ vulnerability }) => vulnerability.severity === severity),
  ) as Severity;
  const count =
    entries.length === 1 ? "1 known vulnerability affects" : `${entries.length} known vulnerabilities affect`;
  const check = makeCheck(
    kind.vulnerable,
    FAILING.has(worst) ? "fail" : "warn",
    `${count} ${affected.map(labelled).join(", ")} (most severe: ${worst}).${aside}`,
    entries.map(({ item, vulnerability }) => describeVulnerability(item, vulnerability)),
  );
  // The check is as severe as its worst vulnerability (CVSS), not a fixed catalogue level.
  return { ...check, severity: worst };
}
