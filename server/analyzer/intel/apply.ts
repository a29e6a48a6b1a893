/**
 * Applying component intelligence to what detect found: latest version, outdated, and the
 * vulnerabilities that affect the detected version. Pure: returns new objects.
 *
 * A component whose version is unknown (or not a version) gets `outdated: null` and no
 * vulnerabilities: claiming a vulnerability for a version we do not know would be a guess.
 */
import type { Component, LatestVersionReason, Severity, ThemeInfo, Vulnerability } from "../../../shared/report.ts";
import type { Detected } from "../facts.ts";
import type { Intel, IntelComponent } from "./data.ts";
import { compareVersions, describeRange, firstFix, inRange, parseVersion } from "./versions.ts";

type Assessment = Pick<Component, "latest_version" | "latest_version_reason" | "outdated" | "vulnerabilities">;

const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

export function assessComponent(version: string | null, entry: IntelComponent | null | undefined): Assessment {
  const latest = entry?.latest_version ?? null;
  const reason: LatestVersionReason | null = latest === null ? (entry?.latest_version_reason ?? "no_data") : null;
  if (version === null || parseVersion(version) === null) {
    return { latest_version: latest, latest_version_reason: reason, outdated: null, vulnerabilities: [] };
  }
  const vulnerabilities: Vulnerability[] = [];
  for (const vulnerability of entry?.vulnerabilities ?? []) {
    const range = vulnerability.affected.find((candidate) => inRange(version, candidate));
    if (!range) continue;
    vulnerabilities.push({
      id: vulnerability.id,
      title: vulnerability.title,
      severity: vulnerability.severity,
      cvss: vulnerability.cvss,
      cvss_rating: vulnerability.cvss_rating,
      cvss_vector: vulnerability.cvss_vector,
      cve: [...vulnerability.cve],
      affected: describeRange(range),
      // The fix on the site's own branch, which is the update the site needs.
      fixed_in: firstFix(version, vulnerability.patched, vulnerability.affected),
      references: [...vulnerability.references],
      source: vulnerability.source,
      sources: vulnerability.sources ? [...vulnerability.sources] : [vulnerability.source],
      // A source that lists no patched version says there is no fix, unless it says otherwise.
      unfixed: vulnerability.unfixed ?? vulnerability.patched.length === 0,
    });
  }
  vulnerabilities.sort(
    (a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const order = latest === null ? null : compareVersions(version, latest);
  // A version newer than the data's latest means the data is behind, not the site.
  return {
    latest_version: latest,
    latest_version_reason: reason,
    outdated: order === null ? null : order < 0,
    vulnerabilities,
  };
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
 * `intel`, and what the audits need to know about the data itself. Generic so it also
 * takes Facts; everything else is passed through unchanged.
 */
export function applyIntel<T extends Omit<Detected, "artifacts">>(detected: T, intel: Intel): T {
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
    installedThemes: detected.installedThemes.map((theme) => ({
      ...theme,
      ...assessComponent(theme.version, intel.themes.get(theme.slug.toLowerCase())),
    })),
    intel: { vulnerabilityData: intel.vulnerabilityData, coverage: intel.coverage, sources: intel.sources },
  };
}
