/**
 * A report as SARIF 2.1.0, so findings can be uploaded to GitHub code scanning (or any
 * SARIF viewer). One rule per check id; one result per failed or warned check. Results
 * point at the site's URL (there is no source file), and carry a partial fingerprint so
 * that code scanning tracks a finding across runs instead of opening a new alert each time.
 */
import type { Check, Report, Severity } from "./report.ts";

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

export function toSarif(report: Report, toolVersion: string, informationUri: string): SarifLog {
  const failing = report.checks.filter((check) => check.status === "fail" || check.status === "warn");
  const rules = new Map<string, Check>();
  for (const check of report.checks) if (!rules.has(check.id)) rules.set(check.id, check);
  const ruleIds = [...rules.keys()].sort();
  const site = report.final_url ?? report.url;
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
              return {
                id,
                name: id.replace(/[._]([a-z])/g, (_, letter: string) => letter.toUpperCase()),
                shortDescription: { text: check.title },
                help: { text: check.remediation },
                defaultConfiguration: { level: LEVEL[check.severity] },
                properties: {
                  // The category is the tag ("security" for the security rules); SARIF wants tags unique.
                  tags: [check.category],
                  ...(check.category === "security" ? { "security-severity": SECURITY_SEVERITY[check.severity] } : {}),
                },
              };
            }),
          },
        },
        automationDetails: { id: `wpreport/${report.url}` },
        results: failing.map((check) => ({
          ruleId: check.id,
          ruleIndex: ruleIds.indexOf(check.id),
          level: check.status === "warn" && LEVEL[check.severity] === "error" ? "warning" : LEVEL[check.severity],
          message: { text: [check.message, ...check.evidence.map((line) => `• ${line}`)].join("\n") },
          locations: [{ physicalLocation: { artifactLocation: { uri: site } } }],
          partialFingerprints: { "wpreportCheck/v1": `${check.id}@${site}` },
        })),
        properties: {
          report_id: report.id,
          score: report.summary?.score ?? null,
          grade: report.summary?.grade ?? null,
        },
      },
    ],
  };
}
