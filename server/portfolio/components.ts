/**
 * A report's components as the portfolio shows them — core, the active theme and its parent,
 * themes installed besides, plugins — and their open vulnerabilities with the fix, counted
 * by severity. Pure functions of report parts; names are site text and leave here cleaned.
 */
import { vulnerabilityFix } from "../../shared/diff-text.ts";
import type { OpenVulnerability, SeverityCounts, SiteComponent } from "../../shared/portfolio-api.ts";
import { type Component, type Report, SEVERITIES, type Severity } from "../../shared/report.ts";
import { componentChecked, type VulnerabilityCoverage, vulnerabilityCoverage } from "../../shared/report-coverage.ts";
import { oneLine } from "../../shared/untrusted-text.ts";

type Parts = Pick<Report, "wordpress" | "theme" | "plugins" | "installed_themes" | "status" | "errors" | "intel">;

/** Site text shown in a list: one line, controls and bidi overrides removed, capped. */
export function siteText(text: string | null | undefined, max = 200): string | null {
  if (text === null || text === undefined) return null;
  const line = oneLine(text, max).trim();
  return line === "" ? null : line;
}

function entry(type: SiteComponent["type"], component: Component, coverage: VulnerabilityCoverage): SiteComponent {
  return {
    type,
    slug: component.slug,
    name: siteText(component.name),
    version: component.version,
    latest_version: component.latest_version,
    outdated: component.outdated,
    vulnerabilities: component.vulnerabilities ?? [],
    vulnerabilities_checked: componentChecked(coverage, { type, slug: component.slug }),
  };
}

/**
 * Core (when WordPress was detected), themes, then plugins; each `type:slug` once, each saying
 * whether a vulnerability source checked it (shared/report-coverage.ts).
 */
export function componentsOf(report: Parts): SiteComponent[] {
  const coverage = vulnerabilityCoverage(report);
  const list: SiteComponent[] = [];
  const seen = new Set<string>();
  const add = (component: SiteComponent) => {
    const key = `${component.type}:${component.slug}`;
    if (seen.has(key)) return;
    seen.add(key);
    list.push(component);
  };
  const wordpress = report.wordpress;
  if (wordpress?.detected) {
    add({
      type: "core",
      slug: "wordpress",
      name: "WordPress",
      version: wordpress.version,
      latest_version: wordpress.latest_version,
      outdated: wordpress.outdated,
      vulnerabilities: wordpress.vulnerabilities ?? [],
      vulnerabilities_checked: componentChecked(coverage, { type: "core", slug: "wordpress" }),
    });
  }
  if (report.theme) {
    add(entry("theme", report.theme, coverage));
    if (report.theme.parent) add(entry("theme", report.theme.parent, coverage));
  }
  for (const theme of report.installed_themes ?? []) add(entry("theme", theme, coverage));
  for (const plugin of report.plugins ?? []) add(entry("plugin", plugin, coverage));
  return list;
}

const rank = (severity: Severity) => SEVERITIES.indexOf(severity);

/** Every vulnerability of the components with its fix, most severe first (then by component, id). */
export function openVulnerabilities(components: SiteComponent[]): OpenVulnerability[] {
  const list: OpenVulnerability[] = [];
  for (const component of components) {
    const seen = new Set<string>();
    for (const vulnerability of component.vulnerabilities) {
      if (seen.has(vulnerability.id)) continue;
      seen.add(vulnerability.id);
      list.push({
        component: { type: component.type, slug: component.slug, name: component.name, version: component.version },
        vulnerability: {
          ...vulnerability,
          title: siteText(vulnerability.title, 500) ?? vulnerability.id,
        },
        fix: vulnerabilityFix(component.type, component.slug, vulnerability.fixed_in ?? null),
      });
    }
  }
  return list.sort(
    (a, b) =>
      rank(a.vulnerability.severity) - rank(b.vulnerability.severity) ||
      (b.vulnerability.cvss ?? 0) - (a.vulnerability.cvss ?? 0) ||
      `${a.component.type}:${a.component.slug}`.localeCompare(`${b.component.type}:${b.component.slug}`) ||
      a.vulnerability.id.localeCompare(b.vulnerability.id),
  );
}

export function emptyCounts(): SeverityCounts {
  return { total: 0, critical: 0, high: 0, medium: 0, low: 0, info: 0 };
}

/** How many of each severity. */
export function countBySeverity(severities: Iterable<Severity>): SeverityCounts {
  const counts = emptyCounts();
  for (const severity of severities) {
    counts[severity]++;
    counts.total++;
  }
  return counts;
}
