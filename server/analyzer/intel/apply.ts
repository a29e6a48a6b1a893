/**
 * Applying component intelligence to what detect found: latest version, outdated, and the
 * vulnerabilities that affect the detected version. Pure: returns new objects.
 *
 * A component whose version is unknown (or not a version) gets `outdated: null` and no
 * vulnerabilities: claiming a vulnerability for a version we do not know would be a guess.
 */
import type { Component, Severity, ThemeInfo, Vulnerability } from "../../../shared/report.ts";
import type { Detected } from "../facts.ts";
import type { Intel, IntelComponent, IntelRange } from "./data.ts";
import { compareVersions } from "./versions.ts";

type Assessment = Pick<Component, "latest_version" | "outdated" | "vulnerabilities">;

const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** True when `version` falls in the range (a bound that cannot be compared never matches). */
function inRange(version: string, range: IntelRange): boolean {
  const order = (bound: string) => compareVersions(version, bound);
  const fromIntroduced = range.introduced === null || (order(range.introduced) ?? -1) >= 0;
  const beforeFix = range.fixed_in === null || (order(range.fixed_in) ?? 1) < 0;
  const upToLastAffected = range.last_affected === null || (order(range.last_affected) ?? 1) <= 0;
  return fromIntroduced && beforeFix && upToLastAffected;
}

export function assessComponent(version: string | null, entry: IntelComponent | null | undefined): Assessment {
  if (!entry) return { latest_version: null, outdated: null, vulnerabilities: [] };
  const order = version === null ? null : compareVersions(version, entry.latest_version);
  if (version === null || order === null) {
    return { latest_version: entry.latest_version, outdated: null, vulnerabilities: [] };
  }
  const vulnerabilities: Vulnerability[] = [];
  for (const vulnerability of entry.vulnerabilities) {
    const range = vulnerability.affected.find((candidate) => inRange(version, candidate));
    if (!range) continue;
    vulnerabilities.push({
      id: vulnerability.id,
      title: vulnerability.title,
      severity: vulnerability.severity,
      cvss: vulnerability.cvss,
      cve: [...vulnerability.cve],
      // The fix on the site's own branch, which is the update the site needs.
      fixed_in: range.fixed_in,
      references: [...vulnerability.references],
    });
  }
  vulnerabilities.sort(
    (a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  // A version newer than the data's latest means the data is behind, not the site.
  return { latest_version: entry.latest_version, outdated: order < 0, vulnerabilities };
}

function applyToTheme(theme: ThemeInfo, intel: Intel): ThemeInfo {
  const lookup = (component: Component) => intel.themes.get(component.slug.toLowerCase());
  return {
    ...theme,
    ...assessComponent(theme.version, lookup(theme)),
    parent: theme.parent ? { ...theme.parent, ...assessComponent(theme.parent.version, lookup(theme.parent)) } : null,
  };
}

/**
 * The detected components with latest_version, outdated and vulnerabilities filled from
 * `intel`. Generic so it also takes Facts; everything else is passed through unchanged.
 */
export function applyIntel<T extends Detected>(detected: T, intel: Intel): T {
  const { wordpress } = detected;
  return {
    ...detected,
    wordpress: wordpress.detected
      ? { ...wordpress, ...assessComponent(wordpress.version, intel.wordpress) }
      : wordpress,
    theme: detected.theme ? applyToTheme(detected.theme, intel) : null,
    plugins: detected.plugins.map((plugin) => ({
      ...plugin,
      ...assessComponent(plugin.version, intel.plugins.get(plugin.slug.toLowerCase())),
    })),
  };
}
