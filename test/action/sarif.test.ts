/** SARIF: one result per failed/warned check, but one per vulnerability for the *_vulnerable checks. */
import { describe, expect, test } from "bun:test";
import type { Check, PluginInfo, Vulnerability } from "../../shared/report.ts";
import { toSarif } from "../../shared/sarif.ts";
import { baseReport } from "../diff/report-arbitrary.ts";

interface Result {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations: { physicalLocation: { artifactLocation: { uri: string } } }[];
  partialFingerprints: Record<string, string>;
  properties?: Record<string, unknown>;
}
interface Run {
  tool: { driver: { rules: { id: string; properties: { tags: string[] } }[] } };
  results: Result[];
}

const check = (id: string, status: Check["status"], severity: Check["severity"], evidence: string[] = []): Check => ({
  id,
  category: id.split(".")[0] as Check["category"],
  severity,
  status,
  title: `Title ${id}`,
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

const plugin = (slug: string, version: string, vulnerabilities: Vulnerability[]): PluginInfo => ({
  slug,
  name: slug,
  version,
  version_confidence: 90,
  confidence: 100,
  evidence: [],
  latest_version: null,
  outdated: null,
  vulnerabilities,
  category: null,
});

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

describe("SARIF", () => {
  test("one result per vulnerability for the vulnerable checks, one per check otherwise", () => {
    const sarif = toSarif(report(), "1.0.0", "https://w.example/docs/checks");
    expect(sarif.version).toBe("2.1.0");
    const run = sarif.runs[0] as Run;
    expect(run.results.map((result) => [result.ruleId, result.level, result.message.text])).toEqual([
      [
        "components.plugins_vulnerable",
        "error",
        "akismet 5.0.2: WF-1 WF-1 title (high, CVSS 7.5, CVE-2026-0001) [affects <= 5.0.2] — update akismet to 5.0.3",
      ],
      [
        "components.plugins_vulnerable",
        "note",
        "akismet 5.0.2: WF-2 WF-2 title (low, CVSS 4.3) [affects <= 5.0.2] — no fix available: remove or replace akismet",
      ],
      [
        "components.plugins_vulnerable",
        "error",
        "jetpack 12.0: WF-3 WF-3 title (critical, CVSS 9.8) [affects <= 5.0.2] — update jetpack to 12.1",
      ],
      [
        "components.core_vulnerable",
        "warning",
        "WordPress 6.1.9: WF-CORE WF-CORE title (medium, CVSS 4.3) [affects <= 5.0.2] — update WordPress to 6.1.10",
      ],
      ["security.https", "error", "security.https message\n• http://example.com/"],
    ]);
    // Each vulnerability is tracked on its own; other checks keep their fingerprint.
    const fingerprints = run.results.map((result) => Object.values(result.partialFingerprints)[0]);
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
    expect(run.results[0]?.partialFingerprints).toEqual({
      "wpreportVulnerability/v1": "components.plugins_vulnerable@https://example.com/#plugin:akismet#WF-1",
    });
    expect(run.results[4]?.partialFingerprints).toEqual({ "wpreportCheck/v1": "security.https@https://example.com/" });
    expect(run.results[0]?.properties).toMatchObject({
      component: "plugin:akismet",
      version: "5.0.2",
      vulnerability_id: "WF-1",
      fixed_in: "5.0.3",
      cve: ["CVE-2026-0001"],
    });
    // Every result points at a rule; rules stay one per check with unique tags.
    const rules = run.tool.driver.rules;
    for (const result of run.results) expect(rules[result.ruleIndex]?.id).toBe(result.ruleId);
    expect(rules.map((rule) => rule.id)).toEqual([...new Set(rules.map((rule) => rule.id))]);
    for (const rule of rules) expect(new Set(rule.properties.tags).size).toBe(rule.properties.tags.length);
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
    const run = toSarif(r, "1.0.0", "https://w.example/docs/checks").runs[0] as Run;
    expect(run.results.map((result) => [result.ruleId, result.message.text])).toEqual([
      [
        "components.theme_vulnerable",
        "parent 2.0: WF-P WF-P title (high, CVSS 7.5) [affects <= 5.0.2] — update parent to 2.1",
      ],
      ["components.plugins_vulnerable", "components.plugins_vulnerable message"],
    ]);
  });

  test("control characters from site text do not reach the message", () => {
    const r = baseReport("rep_ctrl");
    r.plugins = [plugin("evil\u001b[31m", "1.0\n2", [vulnerability("WF-1", "high", "1.1")])];
    r.checks = [check("components.plugins_vulnerable", "fail", "high")];
    const run = toSarif(r, "1.0.0", "https://w.example/docs/checks").runs[0] as Run;
    expect(run.results[0]?.message.text).not.toMatch(/[\u0000-\u001f]/);
  });
});
