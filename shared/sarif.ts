/**
 * A report as SARIF 2.1.0, for GitHub code scanning (or any SARIF viewer). Everything comes
 * from the report itself — the CLI has nothing else — so the API, the web download and the
 * CLI give the same file (docs/sarif.md).
 *
 * - One rule per check id: the failure title (`fail_title`) as its shortDescription, what a
 *   pass means as its fullDescription, the remediation as its help, a link to the check on
 *   the service's /docs/checks page; security rules carry a `security-severity`.
 * - One result per failed or warned check — except the `components.*_vulnerable` checks,
 *   which give one result per vulnerability (its own level, message and fingerprint), so
 *   that each advisory is an alert of its own, opened and closed on its own.
 * - A site is not a file: results are attached to line 1 of a repository file the caller
 *   names (`location`, default `.wpreport.yml`), and the site's URL is in the message.
 * - partialFingerprints hold only what identifies a finding (check, site, component,
 *   advisory), never what changes between runs (report id, versions, messages), so code
 *   scanning keeps tracking the same alert instead of closing it and opening another.
 * - A report that did not complete (failed, or still queued or running) is a run with
 *   `executionSuccessful: false`, the reason as a notification, and no results: never an
 *   empty successful run, which would tell code scanning that every open alert is fixed.
 *   So is a completed report that could not see the site (report-sight.ts: the homepage
 *   asked for credentials, refused the analyzer, or was a firewall's challenge): its checks
 *   graded that page, and its "passes" would close the site's open alerts.
 * - What was not checked is said, never left to read as "none": vulnerability data that is
 *   missing or partial, and checks that could not run (`not_checked`), as notifications.
 */
import type { Invocation, Location, Log, Notification, ReportingDescriptor, Result, Run } from "sarif";
import type { ComponentChange } from "./diff-schema.ts";
import { describeVulnerability } from "./diff-text.ts";
import type { Check, Report, Severity, Vulnerability } from "./report.ts";
import { unseenSite } from "./report-sight.ts";
import { oneLine } from "./untrusted-text.ts";
import { vulnerabilityDataNotice } from "./vulnerability-data.ts";

export const SARIF_CONTENT_TYPE = "application/sarif+json";

/**
 * The repository file results are attached to when the caller names none. Code scanning
 * needs a file path in the repository; a site has none. The name says where the alerts come
 * from; the file need not exist (code scanning then shows the alert without a code preview).
 */
export const DEFAULT_SARIF_LOCATION = ".wpreport.yml";
export const MAX_SARIF_LOCATION_LENGTH = 256;

type SarifLevel = "error" | "warning" | "note";

const LEVEL: Record<Severity, SarifLevel> = {
  critical: "error",
  high: "error",
  medium: "warning",
  low: "note",
  info: "note",
};
/** GitHub's "security-severity" scale (0.1–10: over 9 critical, 7–8.9 high, 4–6.9 medium, below 4 low). */
const SECURITY_SEVERITY: Record<Severity, string> = {
  critical: "9.5",
  high: "8.0",
  medium: "5.5",
  low: "3.0",
  info: "1.0",
};
/** GitHub's `problem.severity`, shown for rules that are not security rules. */
const PROBLEM_SEVERITY: Record<Severity, "error" | "warning" | "recommendation"> = {
  critical: "error",
  high: "error",
  medium: "warning",
  low: "recommendation",
  info: "recommendation",
};

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

interface VulnerableComponent {
  type: ComponentChange["type"];
  slug: string;
  version: string | null;
  vulnerabilities: Vulnerability[];
}

/**
 * Why `path` cannot be a result location, or null when it can: a file path relative to the
 * repository root — no scheme, no leading slash, no `.`/`..` segment, no backslash or control
 * character, at most MAX_SARIF_LOCATION_LENGTH characters.
 */
export function sarifLocationProblem(path: string): string | null {
  if (path.length === 0) return "must not be empty";
  if (path.length > MAX_SARIF_LOCATION_LENGTH) return `must be at most ${MAX_SARIF_LOCATION_LENGTH} characters`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(path)) return "must not contain control characters";
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) return "must be a path in the repository, not a URL";
  if (path.includes("\\")) return "must use / between folders";
  if (path.startsWith("/")) return "must be relative to the repository root (no leading /)";
  if (path.split("/").some((segment) => segment === "" || segment === "." || segment === ".."))
    return "must not contain empty, . or .. segments";
  return null;
}

/** A `sarif_location` a caller gave that cannot be one; `problem` says why ("must not be empty"). */
export class SarifLocationError extends Error {
  constructor(readonly problem: string) {
    super(`sarif_location ${problem}`);
    this.name = "SarifLocationError";
  }
}

/**
 * The `sarif_location` a caller gave, read one way by all of them — the API's query parameter,
 * the web's SARIF download, the Action's `sarif-location` input and the CLI's flag: absent
 * stays absent (toSarif's default, DEFAULT_SARIF_LOCATION, or the Action's workflow file),
 * anything else must be a relative repository path (sarifLocationProblem) or throws
 * SarifLocationError, which each caller words its own way.
 */
export function parseSarifLocation(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const problem = sarifLocationProblem(value);
  if (problem) throw new SarifLocationError(problem);
  return value;
}

/** The path as a relative URI reference: each segment percent-encoded (spaces, #, ?, %…). */
const locationUri = (path: string) => path.split("/").map(encodeURIComponent).join("/");

/**
 * Plain text for a SARIF message. SARIF reads `[text](target)` in a message as a link
 * (§3.11.6), so brackets from site text are escaped with a backslash, as are backslashes.
 */
const plainText = (text: string) => text.replace(/[\\[\]]/g, (character) => `\\${character}`);

/** Markdown with every ASCII punctuation character escaped: no link, emphasis or HTML survives. */
const markdownText = (text: string) => oneLine(text).replace(/[!-/:-@[-`{-~]/g, (character) => `\\${character}`);

/** The site as a category and fingerprint key: host (and port) and path, no scheme, no trailing slash. */
function siteLabel(report: Report): string {
  try {
    const url = new URL(report.url);
    return `${url.host.toLowerCase()}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return oneLine(report.url);
  }
}

const isSecurityRule = (check: Check) => check.category === "security" || check.id.endsWith("_vulnerable");
/** A report made before fail_title existed (schema < 1.3.0) still gets a failure-phrased title. */
const failTitle = (check: Check) => check.fail_title ?? `Not met: ${check.title}`;

function rule(check: Check, informationUri: string): ReportingDescriptor {
  const security = isSecurityRule(check);
  // The link is built here from the service's own URL; parentheses are encoded so that the
  // markdown link cannot end early.
  const helpUri = `${informationUri}#${encodeURIComponent(check.id)}`;
  const markdownUri = helpUri.replace(/[()<> ]/g, (character) => encodeURIComponent(character));
  return {
    id: check.id,
    name: check.id.replace(/[._]([a-z0-9])/g, (_, letter: string) => letter.toUpperCase()),
    shortDescription: { text: failTitle(check) },
    fullDescription: {
      text: `${failTitle(check)}. The ${check.category} check ${check.id} (severity ${check.severity}) passes when: ${check.title}.`,
    },
    help: {
      text: `${check.remediation}\n\nPasses when: ${check.title}.\nAbout this check: ${helpUri}`,
      markdown: [
        `**${markdownText(failTitle(check))}**`,
        markdownText(check.remediation),
        `Passes when: ${markdownText(check.title)}\\.`,
        `[About this check](${markdownUri})`,
      ].join("\n\n"),
    },
    helpUri,
    defaultConfiguration: { level: LEVEL[check.severity] },
    properties: {
      // The category is the tag; known vulnerabilities are security findings too, and code
      // scanning lists a rule as a security alert only with the "security" tag and a
      // security-severity. Tags stay unique (SARIF requires it).
      tags: security && check.category !== "security" ? [check.category, "security"] : [check.category],
      // What a component check says rests on the detected version; the others observe the site.
      precision: check.category === "components" ? "medium" : "high",
      "problem.severity": PROBLEM_SEVERITY[check.severity],
      ...(security ? { "security-severity": SECURITY_SEVERITY[check.severity] } : {}),
    },
  };
}

/** What the run reports about itself: whether the analysis completed, and what went wrong. */
function invocation(report: Report): Invocation {
  const times = {
    ...(report.created_at ? { startTimeUtc: report.created_at } : {}),
    ...(report.completed_at ? { endTimeUtc: report.completed_at } : {}),
  };
  const notes = (report.errors ?? []).map(
    (error): Notification => ({
      level: report.status === "completed" ? "warning" : "error",
      message: { text: plainText(oneLine(`${error.stage} (${error.kind}): ${error.message}`)) },
    }),
  );
  // No (or incomplete) vulnerability data: no alert for a vulnerability is not "none known".
  const vulnerabilityData = vulnerabilityDataNotice(report);
  if (vulnerabilityData) {
    const status =
      vulnerabilityData.status === "none"
        ? "Vulnerabilities not checked: no vulnerability data"
        : "Vulnerabilities partly checked: vulnerability data incomplete";
    notes.unshift({
      level: "warning",
      message: { text: plainText(oneLine(`${status}. ${vulnerabilityData.message}`)) },
    });
  }
  // Checks that could not run (a challenge, a block page, a 5xx answered their probes): skipped, not passed.
  for (const entry of report.not_checked ?? []) {
    notes.push({
      level: "note",
      message: { text: plainText(oneLine(`Not checked: ${entry.check}: ${entry.reason}`)) },
    });
  }
  const unseen = unseenSite(report);
  if (unseen) {
    return {
      executionSuccessful: false,
      ...times,
      toolExecutionNotifications: [
        {
          level: "error",
          message: {
            text: plainText(
              oneLine(
                `The wpreport report of ${report.final_url ?? report.url} could not see the site: ${unseen.message} It has no findings, and open alerts stay as they are.`,
              ),
            ),
          },
        },
        ...notes,
      ],
    };
  }
  if (report.status === "completed") {
    return { executionSuccessful: true, ...times, ...(notes.length > 0 ? { toolExecutionNotifications: notes } : {}) };
  }
  const reason =
    report.status === "failed"
      ? `The wpreport analysis of ${report.url} failed: the report has no findings, and open alerts stay as they are.`
      : `The wpreport report of ${report.url} is still ${report.status}: it has no findings yet. Fetch it again once it has completed.`;
  return {
    executionSuccessful: false,
    ...times,
    toolExecutionNotifications: [{ level: "error", message: { text: plainText(oneLine(reason)) } }, ...notes],
  };
}

/**
 * The report as a SARIF log of one run. `informationUri` is the service's check catalogue
 * page (`<base>/docs/checks`); each rule links to its check there. `location` is the
 * repository file results are attached to (read with parseSarifLocation by the caller).
 */
export function toSarif(
  report: Report,
  toolVersion: string,
  informationUri: string,
  location: string = DEFAULT_SARIF_LOCATION,
): Log {
  const problem = sarifLocationProblem(location);
  if (problem) throw new TypeError(`SARIF location ${problem}`);
  const completed = report.status === "completed";
  const rules = new Map<string, Check>();
  for (const check of report.checks ?? []) if (!rules.has(check.id)) rules.set(check.id, check);
  const ruleIds = [...rules.keys()].sort();
  const site = oneLine(report.final_url ?? report.url);
  const label = siteLabel(report);
  const uri = locationUri(location);
  // A fresh array per result: results are objects of their own, whoever changes one.
  const locations = (): Location[] => [{ physicalLocation: { artifactLocation: { uri }, region: { startLine: 1 } } }];
  const siteLine = `Site: ${site}`;

  // A report that could not see the site graded a 401 or challenge page: none of its findings.
  const failing =
    completed && !unseenSite(report)
      ? report.checks.filter((check) => check.status === "fail" || check.status === "warn")
      : [];
  const results = failing.flatMap((check): Result[] => {
    const ruleIndex = ruleIds.indexOf(check.id);
    const perVulnerability = (VULNERABLE_CHECKS[check.id]?.(report) ?? []).flatMap((component) => {
      const seen = new Set<string>();
      return component.vulnerabilities
        .filter((vulnerability) => !seen.has(vulnerability.id) && !!seen.add(vulnerability.id))
        .map(
          (vulnerability): Result => ({
            ruleId: check.id,
            ruleIndex,
            level: LEVEL[vulnerability.severity] ?? LEVEL[check.severity],
            message: {
              text: plainText(
                `${oneLine(describeVulnerability(component.type, component.slug, component.version, vulnerability))}\n${siteLine}`,
              ),
            },
            locations: locations(),
            partialFingerprints: {
              "wpreportVulnerability/v2": `${check.id}|${label}|${component.type}:${oneLine(component.slug)}|${oneLine(vulnerability.id)}`,
            },
            properties: {
              site,
              component: `${component.type}:${oneLine(component.slug)}`,
              version: component.version === null ? null : oneLine(component.version),
              vulnerability_id: oneLine(vulnerability.id),
              severity: vulnerability.severity,
              cvss: vulnerability.cvss ?? null,
              cve: (vulnerability.cve ?? []).map((cve) => oneLine(cve)),
              affected: vulnerability.affected ? oneLine(vulnerability.affected) : null,
              fixed_in: vulnerability.fixed_in ? oneLine(vulnerability.fixed_in) : null,
            },
          }),
        );
    });
    // A vulnerable check whose vulnerabilities the report does not list (should not happen) stays one result.
    if (perVulnerability.length > 0) return perVulnerability;
    const lines = [oneLine(check.message), ...check.evidence.map((line) => `• ${oneLine(line)}`), siteLine];
    return [
      {
        ruleId: check.id,
        ruleIndex,
        level: check.status === "warn" && LEVEL[check.severity] === "error" ? "warning" : LEVEL[check.severity],
        message: { text: plainText(lines.join("\n")) },
        locations: locations(),
        partialFingerprints: { "wpreportCheck/v2": `${check.id}|${label}` },
        properties: { site, status: check.status },
      },
    ];
  });

  const run: Run = {
    tool: {
      driver: {
        name: "wpreport",
        version: toolVersion,
        informationUri,
        rules: ruleIds.map((id) => rule(rules.get(id) as Check, informationUri)),
      },
    },
    invocations: [invocation(report)],
    // "<category>/<run id>": one category per site, so that the reports of two sites do not
    // close each other's alerts; the run id is the report's.
    automationDetails: { id: `wpreport/${label}/${report.id}` },
    results,
    properties: {
      report_id: report.id,
      status: report.status,
      site,
      score: report.summary?.score ?? null,
      grade: report.summary?.grade ?? null,
      vulnerability_data: report.intel?.vulnerability_data?.status ?? null,
      not_checked: report.summary?.not_checked ?? report.not_checked?.length ?? 0,
    },
  };
  return { $schema: "https://json.schemastore.org/sarif-2.1.0.json", version: "2.1.0", runs: [run] };
}
