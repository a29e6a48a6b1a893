/**
 * SARIF: valid against the official SARIF 2.1.0 schema (Ajv) and GitHub code scanning's
 * documented requirements (test/helpers/sarif.ts), on reports built by the real analyzer from
 * saved artifacts; one result per failed/warned check, one per vulnerability for the
 * *_vulnerable checks; stable fingerprints; a report that did not complete is an
 * unsuccessful run; site text cannot inject links or control characters.
 */
import { describe, expect, test } from "bun:test";
import type { Log, ReportingDescriptor, Result, Run } from "sarif";
import { buildResult } from "../../server/analyzer/analyze.ts";
import { CHECKS, type CheckId, makeCheck } from "../../server/analyzer/audit/catalogue.ts";
import type { Check, Report, Vulnerability } from "../../shared/report.ts";
import {
  DEFAULT_SARIF_LOCATION,
  parseSarifLocation,
  SarifLocationError,
  sarifLocationProblem,
  toSarif,
} from "../../shared/sarif.ts";
import { loadArtifacts, WP_FIXTURE, WP_FIXTURE_TT3 } from "../analyzer/artifacts.ts";
import { expectValidSarif, githubProblems, schemaErrors } from "../helpers/sarif.ts";
import { baseReport, pluginInfo } from "./diff/report-arbitrary.ts";

const DOCS = "https://w.example/docs/checks";

const check = (id: string, status: Check["status"], severity: Check["severity"], evidence: string[] = []): Check => ({
  id,
  category: id.split(".")[0] as Check["category"],
  severity,
  status,
  title: `Title ${id}`,
  fail_title: `Fail title ${id}`,
  message: `${id} message`,
  evidence,
  remediation: "Fix.",
});

const vulnerability = (id: string, severity: Vulnerability["severity"], fixed_in: string | null): Vulnerability => ({
  id,
  title: `${id} title`,
  severity,
  cvss: severity === "critical" ? 9.8 : severity === "high" ? 7.5 : 4.3,
  cve: id === "WF-1" ? ["CVE-2026-0001"] : [],
  affected: "<= 5.0.2",
  fixed_in,
  references: [],
});

const plugin = pluginInfo;

function report() {
  const r = baseReport("rep_sarif");
  r.plugins = [
    plugin("akismet", "5.0.2", [vulnerability("WF-1", "high", "5.0.3"), vulnerability("WF-2", "low", null)]),
    plugin("jetpack", "12.0", [vulnerability("WF-3", "critical", "12.1")]),
    plugin("hello-dolly", "1.7", []),
  ];
  if (r.wordpress) r.wordpress.vulnerabilities = [vulnerability("WF-CORE", "medium", "6.1.10")];
  r.checks = [
    check("components.plugins_vulnerable", "fail", "critical", ["akismet 5.0.2: WF-1 … — update akismet to 5.0.3"]),
    check("components.core_vulnerable", "fail", "medium"),
    check("components.theme_vulnerable", "skip", "high"),
    check("security.https", "fail", "high", ["http://example.com/"]),
    check("seo.title", "pass", "medium"),
  ];
  return r;
}

/** A report as the service stores it, around what the real analyzer makes of saved artifacts. */
function analysedReport(artifacts: string, id = "rep_artifacts"): Report {
  return {
    id,
    schema_version: "1.3.0",
    status: "completed",
    url: "http://127.0.0.1:8088/",
    created_at: "2026-11-24T10:00:00.000Z",
    completed_at: "2026-11-24T10:00:01.000Z",
    duration_ms: 1000,
    metadata: {},
    ...buildResult(loadArtifacts(artifacts)),
  };
}

const runOf = (log: Log) => log.runs[0] as Run;
const rulesOf = (log: Log) => runOf(log).tool.driver.rules as ReportingDescriptor[];
const resultsOf = (log: Log) => runOf(log).results as Result[];
const properties = (rule: ReportingDescriptor) => rule.properties as Record<string, unknown> & { tags: string[] };

describe("SARIF from real reports", () => {
  for (const fixture of [WP_FIXTURE, WP_FIXTURE_TT3, "not-wp-hugo-nginx", "site-headers"]) {
    test(`${fixture}: valid SARIF that code scanning accepts, one rule per check, one result per failed or warned check`, () => {
      const report = analysedReport(fixture);
      const log = expectValidSarif(toSarif(report, "1.0.0", DOCS));
      const failing = report.checks.filter((c) => c.status === "fail" || c.status === "warn");
      expect(failing.length).toBeGreaterThan(0); // the fixture has findings to report
      expect(rulesOf(log).map((rule) => rule.id)).toEqual(report.checks.map((c) => c.id).sort());
      expect([...new Set(resultsOf(log).map((result) => result.ruleId))].sort()).toEqual(
        failing.map((c) => c.id).sort(),
      );
      // The rules say what fails, not what passes, and carry the catalogue's remediation.
      for (const rule of rulesOf(log)) {
        const definition = CHECKS[rule.id as CheckId];
        expect(rule.shortDescription?.text).toBe(definition.failTitle);
        expect(rule.fullDescription?.text).toContain(definition.title);
        expect(rule.help?.text).toContain(definition.remediation);
        expect(rule.helpUri).toBe(`${DOCS}#${rule.id}`);
      }
      expect(runOf(log).invocations).toEqual([
        expect.objectContaining({ executionSuccessful: true, startTimeUtc: report.created_at }),
      ]);
    });
  }

  test("every check of the catalogue, failing, is a rule GitHub takes; security rules are security alerts", () => {
    const r = baseReport("rep_all");
    r.checks = Object.keys(CHECKS).map((id) => makeCheck(id as CheckId, "fail", "site text"));
    const log = expectValidSarif(toSarif(r, "1.0.0", DOCS));
    const rules = rulesOf(log);
    expect(rules).toHaveLength(Object.keys(CHECKS).length);
    const security = rules.filter((rule) => properties(rule).tags.includes("security"));
    // The 33 security checks and the three *_vulnerable ones; "security" once each (it was twice).
    expect(security.map((rule) => rule.id).sort()).toEqual(
      Object.keys(CHECKS)
        .filter((id) => id.startsWith("security.") || id.endsWith("_vulnerable"))
        .sort(),
    );
    for (const rule of security) {
      expect(properties(rule).tags.filter((tag) => tag === "security")).toEqual(["security"]);
      expect(Number(properties(rule)["security-severity"])).toBeGreaterThan(0);
    }
    expect(properties(rules.find((rule) => rule.id === "security.https") as ReportingDescriptor)).toMatchObject({
      tags: ["security"],
      "security-severity": "8.0",
      precision: "high",
      "problem.severity": "error",
    });
    expect(rules.find((rule) => rule.id === "security.login_over_https")?.shortDescription?.text).toBe(
      "The login page is not served over HTTPS",
    );
    for (const rule of rules.filter((rule) => !properties(rule).tags.includes("security")))
      expect(properties(rule)["security-severity"]).toBeUndefined();
  });

  test("the validator is real: it refuses what code scanning refuses", () => {
    const log = toSarif(report(), "1.0.0", DOCS);
    const twice = structuredClone(log);
    properties(rulesOf(twice)[0] as ReportingDescriptor).tags = ["security", "security"];
    expect(schemaErrors(twice).join()).toContain("duplicate items");
    const url = structuredClone(log);
    const location = resultsOf(url)[0]?.locations?.[0];
    if (location?.physicalLocation) location.physicalLocation = { artifactLocation: { uri: "https://example.com/" } };
    expect(githubProblems(url)).toEqual([
      'runs[0].results[0].locations[0]: uri "https://example.com/" is not relative to the repository',
      "runs[0].results[0].locations[0]: region.startLine is required",
    ]);
    const bare = structuredClone(log);
    delete (rulesOf(bare)[0] as ReportingDescriptor).fullDescription;
    expect(githubProblems(bare)).toEqual(["runs[0].rules[0]: fullDescription.text is required"]);
    const noSeverity = structuredClone(log);
    properties(rulesOf(noSeverity)[0] as ReportingDescriptor)["security-severity"] = "high";
    expect(githubProblems(noSeverity)).toEqual([
      "runs[0].rules[0]: security-severity must be a number from 0.1 to 10 as a string",
    ]);
  });
});

describe("SARIF results", () => {
  test("one result per vulnerability for the vulnerable checks, one per check otherwise, with the site in the message", () => {
    const log = expectValidSarif(toSarif(report(), "1.0.0", DOCS));
    const site = "\nSite: https://example.com/";
    expect(resultsOf(log).map((result) => [result.ruleId, result.level, result.message.text])).toEqual([
      [
        "components.plugins_vulnerable",
        "error",
        `akismet 5.0.2: WF-1 WF-1 title (high, CVSS 7.5, CVE-2026-0001) \\[affects <= 5.0.2\\] — update akismet to 5.0.3${site}`,
      ],
      [
        "components.plugins_vulnerable",
        "note",
        `akismet 5.0.2: WF-2 WF-2 title (low, CVSS 4.3) \\[affects <= 5.0.2\\] — no fix available: remove or replace akismet${site}`,
      ],
      [
        "components.plugins_vulnerable",
        "error",
        `jetpack 12.0: WF-3 WF-3 title (critical, CVSS 9.8) \\[affects <= 5.0.2\\] — update jetpack to 12.1${site}`,
      ],
      [
        "components.core_vulnerable",
        "warning",
        `WordPress 6.1.9: WF-CORE WF-CORE title (medium, CVSS 4.3) \\[affects <= 5.0.2\\] — update WordPress to 6.1.10${site}`,
      ],
      ["security.https", "error", `security.https message\n• http://example.com/${site}`],
    ]);
    const results = resultsOf(log);
    expect(results[0]?.partialFingerprints).toEqual({
      "wpreportVulnerability/v2": "components.plugins_vulnerable|example.com|plugin:akismet|WF-1",
    });
    expect(results[4]?.partialFingerprints).toEqual({ "wpreportCheck/v2": "security.https|example.com" });
    expect(results[0]?.properties).toMatchObject({
      component: "plugin:akismet",
      version: "5.0.2",
      vulnerability_id: "WF-1",
      fixed_in: "5.0.3",
      cve: ["CVE-2026-0001"],
    });
    // Each vulnerability is tracked on its own.
    const fingerprints = results.map((result) => Object.values(result.partialFingerprints ?? {})[0]);
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
    expect(runOf(log).automationDetails?.id).toBe("wpreport/example.com/rep_sarif");
  });

  test("the parent theme's vulnerabilities count for theme_vulnerable; without listed vulnerabilities a check stays one result", () => {
    const r = baseReport("rep_theme");
    r.theme = {
      ...plugin("child", "1.0", []),
      author: null,
      parent: { ...plugin("parent", "2.0", [vulnerability("WF-P", "high", "2.1")]) },
    };
    r.checks = [
      check("components.theme_vulnerable", "fail", "high"),
      check("components.plugins_vulnerable", "warn", "low"),
    ];
    const log = expectValidSarif(toSarif(r, "1.0.0", DOCS));
    expect(resultsOf(log).map((result) => [result.ruleId, result.message.text])).toEqual([
      [
        "components.theme_vulnerable",
        "parent 2.0: WF-P WF-P title (high, CVSS 7.5) \\[affects <= 5.0.2\\] — update parent to 2.1\nSite: https://example.com/",
      ],
      ["components.plugins_vulnerable", "components.plugins_vulnerable message\nSite: https://example.com/"],
    ]);
  });

  test("results sit at line 1 of the repository file the caller names (default .wpreport.yml), as a relative URI", () => {
    const byDefault = expectValidSarif(toSarif(report(), "1.0.0", DOCS));
    expect(resultsOf(byDefault)[0]?.locations).toEqual([
      { physicalLocation: { artifactLocation: { uri: DEFAULT_SARIF_LOCATION }, region: { startLine: 1 } } },
    ]);
    expect(DEFAULT_SARIF_LOCATION).toBe(".wpreport.yml");
    const named = expectValidSarif(toSarif(report(), "1.0.0", DOCS, ".github/workflows/deploy site#1.yml"));
    for (const result of resultsOf(named))
      expect(result.locations?.[0]?.physicalLocation?.artifactLocation?.uri).toBe(
        ".github/workflows/deploy%20site%231.yml",
      );
  });

  test("a location must be a relative path in the repository", () => {
    for (const good of ["action.yml", ".wpreport.yml", ".github/workflows/deploy.yml", "sites/été/ci.yml"])
      expect({ good, problem: sarifLocationProblem(good) }).toEqual({ good, problem: null });
    const bad = [
      "",
      "/etc/passwd",
      "../outside.yml",
      "a/../../b",
      "./action.yml",
      "a//b",
      "https://example.com/x",
      "file:///x",
      "C:/x.yml",
      "a\\b",
      "a\nb",
      "x".repeat(257),
    ];
    for (const path of bad) expect({ path, problem: sarifLocationProblem(path) }).not.toEqual({ path, problem: null });
    expect(() => toSarif(report(), "1.0.0", DOCS, "../x")).toThrow("SARIF location");
  });

  test("parseSarifLocation is the one reader of a given location: absent stays absent, a bad one names its problem", () => {
    expect(parseSarifLocation(undefined)).toBeUndefined();
    expect(parseSarifLocation(".github/workflows/deploy.yml")).toBe(".github/workflows/deploy.yml");
    for (const bad of ["", "/etc/passwd", "../x", "x".repeat(257)]) {
      let thrown: unknown;
      try {
        parseSarifLocation(bad);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(SarifLocationError);
      const problem = sarifLocationProblem(bad);
      expect((thrown as SarifLocationError).problem).toBe(problem as string);
      expect((thrown as SarifLocationError).message).toBe(`sarif_location ${problem}`);
    }
  });

  test("fingerprints hold only what identifies a finding: a later run of the same site keeps them", () => {
    const first = report();
    const later = report();
    later.id = "rep_later";
    later.created_at = "2026-12-01T00:00:00.000Z";
    later.completed_at = "2026-12-01T00:00:02.000Z";
    later.url = "http://EXAMPLE.com"; // scheme, case and trailing slash do not make another site
    later.final_url = "https://example.com/home/";
    const akismet = later.plugins[0];
    if (akismet) akismet.version = "5.0.3"; // an update that did not fix every advisory
    later.checks = later.checks.map((c) => ({ ...c, message: `${c.message} (again)`, evidence: ["other evidence"] }));
    const fingerprints = (r: Report) =>
      resultsOf(toSarif(r, "1.0.0", DOCS)).map((result) => [result.ruleId, result.partialFingerprints]);
    expect(fingerprints(later)).toEqual(fingerprints(first));
    // Another site is another set of alerts.
    const other = report();
    other.url = "https://example.org/";
    expect(fingerprints(other)).not.toEqual(fingerprints(first));
  });

  test("a report from before fail_title (schema < 1.3.0) still gets a failure-phrased title", () => {
    const r = report();
    r.checks = r.checks.map(({ fail_title: _, ...rest }) => rest);
    const log = expectValidSarif(toSarif(r, "1.0.0", DOCS));
    expect(rulesOf(log).find((rule) => rule.id === "security.https")?.shortDescription?.text).toBe(
      "Not met: Title security.https",
    );
  });
});

describe("SARIF of a report that did not complete", () => {
  test("a failed report is an unsuccessful run with the reason and no results, never an empty successful run", () => {
    const r = baseReport("rep_failed");
    r.status = "failed";
    r.summary = null;
    r.checks = [];
    r.errors = [{ stage: "analysis", kind: "site_unreachable", message: "Connection refused by 203.0.113.9" }];
    const log = expectValidSarif(toSarif(r, "1.0.0", DOCS));
    const run = runOf(log);
    expect(run.results).toEqual([]);
    expect(run.invocations).toHaveLength(1);
    expect(run.invocations?.[0]?.executionSuccessful).toBe(false);
    expect(run.invocations?.[0]?.toolExecutionNotifications?.map((note) => [note.level, note.message.text])).toEqual([
      [
        "error",
        "The wpreport analysis of https://example.com/ failed: the report has no findings, and open alerts stay as they are.",
      ],
      ["error", "analysis (site_unreachable): Connection refused by 203.0.113.9"],
    ]);
  });

  for (const status of ["queued", "running"] as const) {
    test(`a ${status} report is an unsuccessful run too, even if it already lists checks`, () => {
      const r = report();
      r.status = status;
      r.completed_at = null;
      const log = expectValidSarif(toSarif(r, "1.0.0", DOCS));
      expect(runOf(log).results).toEqual([]);
      expect(runOf(log).invocations?.[0]).toMatchObject({
        executionSuccessful: false,
        toolExecutionNotifications: [{ level: "error", message: { text: expect.stringContaining(`still ${status}`) } }],
      });
    });
  }

  test("a completed report with partial errors is a successful run that notes them as warnings", () => {
    const r = report();
    r.errors = [{ stage: "feed", kind: "timeout", message: "the feed did not answer in 10 s" }];
    const run = runOf(expectValidSarif(toSarif(r, "1.0.0", DOCS)));
    expect(run.results?.length).toBeGreaterThan(0);
    expect(run.invocations?.[0]).toMatchObject({
      executionSuccessful: true,
      toolExecutionNotifications: [
        { level: "warning", message: { text: "feed (timeout): the feed did not answer in 10 s" } },
      ],
    });
  });
});

describe("SARIF and untrusted site text", () => {
  test("control characters from site text do not reach the message", () => {
    const r = baseReport("rep_ctrl");
    r.plugins = [plugin("evil\u001b[31m", "1.0\n2", [vulnerability("WF-1\u0007", "high", "1.1")])];
    r.checks = [check("components.plugins_vulnerable", "fail", "high"), check("seo.title", "fail", "high", ["a\rb"])];
    const log = expectValidSarif(toSarif(r, "1.0.0", DOCS));
    for (const result of resultsOf(log)) {
      expect(result.message.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
      for (const value of Object.values(result.partialFingerprints ?? {})) expect(value).not.toMatch(/[\u0000-\u001f]/);
    }
  });

  test("site text cannot make a link in a message, and catalogue text is escaped in help markdown", () => {
    const r = baseReport("rep_links");
    r.plugins = [plugin("[click here](https://evil.example/)", "1.0", [vulnerability("WF-1", "high", "1.1")])];
    r.checks = [
      check("components.plugins_vulnerable", "fail", "high"),
      {
        ...check("seo.title", "fail", "high", ["<title>[x](javascript:alert(1))</title>", "back\\](1)"]),
        remediation: 'Add <FilesMatch "\\.(bak)$"> *now* [see](https://evil.example/)',
      },
    ];
    const log = expectValidSarif(toSarif(r, "1.0.0", DOCS));
    // SARIF reads "[text](target)" in a plain-text message as a link (§3.11.6): no unescaped bracket is left.
    for (const result of resultsOf(log)) expect(result.message.text).not.toMatch(/(^|[^\\])(\\\\)*[[\]]/);
    expect(resultsOf(log)[1]?.message.text).toContain("<title>\\[x\\](javascript:alert(1))</title>");
    expect(resultsOf(log)[1]?.message.text).toContain("back\\\\\\](1)");
    const markdown = rulesOf(log).find((rule) => rule.id === "seo.title")?.help?.markdown ?? "";
    // Every punctuation character of the text is escaped: no tag, emphasis or link survives.
    expect(markdown).toContain(
      '\\<FilesMatch \\"\\\\\\.\\(bak\\)\\$\\"\\> \\*now\\* \\[see\\]\\(https\\:\\/\\/evil\\.example\\/\\)',
    );
    expect(markdown).not.toMatch(/(^|[^\\])<[A-Za-z]/);
    expect(markdown).toEndWith(`[About this check](${DOCS}#seo.title)`);
  });
});

describe("SARIF: what was not checked", () => {
  test("checks that could not run are notes, and counted in the run's properties", () => {
    const made = report();
    made.not_checked = [
      { check: "security.git_exposed", reason: "a firewall challenge answered /.git/HEAD: not checked" },
    ];
    const log = expectValidSarif(toSarif(made, "1.0.0", DOCS)) as Log;
    const notes = runOf(log).invocations?.[0]?.toolExecutionNotifications ?? [];
    expect(notes).toContainEqual({
      level: "note",
      message: { text: "Not checked: security.git_exposed: a firewall challenge answered /.git/HEAD: not checked" },
    });
    expect(runOf(log).properties?.not_checked).toBe(1);
  });

  test("no vulnerability data reads 'not checked', never 'none'", () => {
    const made = report();
    made.intel = {
      sources: [],
      vulnerability_data: { status: "none", message: "No vulnerability source answered.", unchecked: [] },
    } as unknown as Report["intel"];
    const log = expectValidSarif(toSarif(made, "1.0.0", DOCS)) as Log;
    const [first] = runOf(log).invocations?.[0]?.toolExecutionNotifications ?? [];
    expect(first?.message.text).toBe(
      "Vulnerabilities not checked: no vulnerability data. No vulnerability source answered.",
    );
  });

  test("a completed report that could not see the site (a 401 homepage): an unsuccessful run without results", () => {
    const made = report();
    made.summary = null;
    made.errors = [
      {
        stage: "analysis",
        kind: "incomplete",
        message: "The homepage asks for credentials (HTTP 401): … So the report is incomplete.",
      },
    ];
    const log = expectValidSarif(toSarif(made, "1.0.0", DOCS)) as Log;
    const invocation = runOf(log).invocations?.[0];
    expect(invocation?.executionSuccessful).toBe(false);
    expect(invocation?.toolExecutionNotifications?.[0]?.level).toBe("error");
    expect(invocation?.toolExecutionNotifications?.[0]?.message.text).toContain(
      "could not see the site: The homepage asks for credentials (HTTP 401)",
    );
    expect(resultsOf(log)).toEqual([]);
    // The same report with its grade: its findings are results.
    expect(resultsOf(toSarif(report(), "1.0.0", DOCS)).length).toBeGreaterThan(0);
  });
});
