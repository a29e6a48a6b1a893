/**
 * A report as SARIF 2.1.0, so findings can be uploaded to GitHub code scanning (or any
 * SARIF viewer). One rule per check id; one result per failed or warned check — except the
 * `components.*_vulnerable` checks, which give one result per vulnerability (its own level,
 * message with the fix, and fingerprint), so that each advisory is its own alert, opened
 * and closed on its own. Results point at the site's URL (there is no source file), and
 * carry a partial fingerprint so that code scanning tracks a finding across runs instead of
 * opening a new alert each time.
 */
import { type ComponentChange, describeVulnerability } from "./diff.ts";
import type { Check, Report, Severity, Vulnerability } from "./report.ts";

export const SARIF_CONTENT_TYPE = "application/sarif+json";

type SarifLevel = "error" | "warning" | "note";

const LEVEL: Record<Severity, SarifLevel> = {
  critical: "error",
  high: "error",
  medium: "warning",
  low: "note",
  info: "note",
};
/** GitHub's "security-severity" scale (0–10) for security results. */
const SECURITY_SEVERITY: Record<Severity, string> = {
  critical: "9.5",
  high: "8.0",
  medium: "5.5",
  low: "3.0",
  info: "1.0",
};

export interface SarifLog {
  $schema: string;
  version: "2.1.0";
  runs: unknown[];
}

/** The checks reported per vulnerability, and the components whose vulnerabilities they list. */
const VULNERABLE_CHECKS: Record<string, (report: Report) => VulnerableComponent[]> = {
  "components.core_vulnerable": (report) =>
    report.wordpress?.detected
      ? [
          {
            type: "core",
            slug: "wordpress",
            version: report.wordpress.version,
            vulnerabilities: report.wordpress.vulnerabilities ?? [],
          },
        ]
      : [],
  "components.theme_vulnerable": (report) =>
    [report.theme, report.theme?.parent]
      .filter((theme) => !!theme)
      .map((theme) => ({
        type: "theme",
        slug: theme.slug,
        version: theme.version,
        vulnerabilities: theme.vulnerabilities ?? [],
      })),
  "components.plugins_vulnerable": (report) =>
    (report.plugins ?? []).map((plugin) => ({
      type: "plugin",
      slug: plugin.slug,
      version: plugin.version,
      vulnerabilities: plugin.vulnerabilities ?? [],
    })),
};

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: SarifLevel;
  message: { text: string };
  locations: { physicalLocation: { artifactLocation: { uri: string } } }[];
  partialFingerprints: Record<string, string>;
  properties?: Record<string, unknown>;
}

interface VulnerableComponent {
  type: ComponentChange["type"];
  slug: string;
  version: string | null;
  vulnerabilities: Vulnerability[];
}

/** A one-line message: no control characters (newlines, escape sequences) from site text (slugs, versions). */
const clean = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");

export function toSarif(report: Report, toolVersion: string, informationUri: string): SarifLog {
  const failing = report.checks.filter((check) => check.status === "fail" || check.status === "warn");
  const rules = new Map<string, Check>();
  for (const check of report.checks) if (!rules.has(check.id)) rules.set(check.id, check);
  const ruleIds = [...rules.keys()].sort();
  const site = report.final_url ?? report.url;
  const location = [{ physicalLocation: { artifactLocation: { uri: site } } }];
  const results = failing.flatMap((check): SarifResult[] => {
    const ruleIndex = ruleIds.indexOf(check.id);
    const perVulnerability = (VULNERABLE_CHECKS[check.id]?.(report) ?? []).flatMap((component) => {
      const seen = new Set<string>();
      return component.vulnerabilities
        .filter((vulnerability) => !seen.has(vulnerability.id) && !!seen.add(vulnerability.id))
        .map(
          (vulnerability): SarifResult => ({
            ruleId: check.id,
            ruleIndex,
            level: LEVEL[vulnerability.severity] ?? LEVEL[check.severity],
            message: {
              text: clean(describeVulnerability(component.type, component.slug, component.version, vulnerability)),
            },
            locations: location,
            partialFingerprints: {
              "wpreportVulnerability/v1": `${check.id}@${site}#${component.type}:${component.slug}#${vulnerability.id}`,
            },
            properties: {
              component: `${component.type}:${component.slug}`,
              version: component.version,
              vulnerability_id: vulnerability.id,
              severity: vulnerability.severity,
              cvss: vulnerability.cvss ?? null,
              cve: vulnerability.cve ?? [],
              affected: vulnerability.affected ?? null,
              fixed_in: vulnerability.fixed_in ?? null,
            },
          }),
        );
    });
    // A vulnerable check whose vulnerabilities the report does not list (should not happen) stays one result.
    if (perVulnerability.length > 0) return perVulnerability;
    return [
      {
        ruleId: check.id,
        ruleIndex,
        level: check.status === "warn" && LEVEL[check.severity] === "error" ? "warning" : LEVEL[check.severity],
        message: { text: [check.message, ...check.evidence.map((line) => `• ${line}`)].join("\n") },
        locations: location,
        partialFingerprints: { "wpreportCheck/v1": `${check.id}@${site}` },
      },
    ];
  });
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "wpreport",
            version: toolVersion,
            informationUri,
            rules: ruleIds.map((id) => {
              const check = rules.get(id) as Check;
              // Known vulnerabilities are security findings too: code scanning lists a rule as a
              // security alert only with the "security" tag and a security-severity.
              const security = check.category === "security" || id.endsWith("_vulnerable");
              return {
                id,
                name: id.replace(/[._]([a-z])/g, (_, letter: string) => letter.toUpperCase()),
                shortDescription: { text: check.title },
                help: { text: check.remediation },
                defaultConfiguration: { level: LEVEL[check.severity] },
                properties: {
                  // The category is the tag ("security" for the security rules); SARIF wants tags unique.
                  tags: security && check.category !== "security" ? [check.category, "security"] : [check.category],
                  ...(security ? { "security-severity": SECURITY_SEVERITY[check.severity] } : {}),
                },
              };
            }),
          },
        },
        automationDetails: { id: `wpreport/${report.url}` },
        results,
        properties: {
          report_id: report.id,
          score: report.summary?.score ?? null,
          grade: report.summary?.grade ?? null,
        },
      },
    ],
  };
}
