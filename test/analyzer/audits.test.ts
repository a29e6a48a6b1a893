/** The first audits and the scoring, on saved artifacts: pure functions, no network. */
import { describe, expect, test } from "bun:test";
import { buildResult } from "../../server/analyzer/analyze.ts";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { CHECKS } from "../../server/analyzer/audit/catalogue.ts";
import { auditHtmlDelivery } from "../../server/analyzer/audit/performance/html-delivery.ts";
import { auditTransport } from "../../server/analyzer/audit/security/transport.ts";
import { auditVersionDisclosure } from "../../server/analyzer/audit/security/version-disclosure.ts";
import { summarise } from "../../server/analyzer/score.ts";
import type { Check } from "../../shared/report.ts";
import { loadArtifacts, variant, WP_FIXTURE } from "./artifacts.ts";
import { factsOf, statusOf as status } from "./facts.ts";

const fixture = loadArtifacts(WP_FIXTURE);

describe("first audits", () => {
  test("transport: the fixture is plain HTTP → security.https fails; an https final URL passes", () => {
    expect(status(auditTransport(factsOf(fixture)), "security.https")).toBe("fail");
    expect(
      status(auditTransport(factsOf(variant(fixture, { url: "https://127.0.0.1:8088/" }))), "security.https"),
    ).toBe("pass");
  });

  test("version disclosure: generator tag and feed both leak 6.1.9", () => {
    const [check] = auditVersionDisclosure(factsOf(fixture));
    expect(check?.status).toBe("fail");
    expect(check?.evidence).toEqual([
      "meta_generator: WordPress 6.1.9",
      "rss_generator: <generator>https://wordpress.org/?v=6.1.9</generator>",
    ]);
    const hidden = variant(fixture, {
      body: fixture.homepage.body.replace(/<meta name="generator"[^>]*>/, ""),
      probes: { feed: null },
    });
    expect(auditVersionDisclosure(factsOf(hidden))[0]?.status).toBe("pass");
  });

  test("html delivery: gzip passes; uncompressed fails; slow TTFB warns then fails", () => {
    const check = (artifacts: Artifacts, id: string) => status(auditHtmlDelivery(factsOf(artifacts)), id);
    expect(check(fixture, "performance.html_compression")).toBe("pass");
    expect(check(variant(fixture, { encoding: null }), "performance.html_compression")).toBe("fail");
    expect(check(variant(fixture, { body: "<p>tiny</p>", encoding: null }), "performance.html_compression")).toBe(
      "skip",
    );
    expect(check(variant(fixture, { ttfb: 100 }), "performance.ttfb")).toBe("pass");
    expect(check(variant(fixture, { ttfb: 1200 }), "performance.ttfb")).toBe("warn");
    expect(check(variant(fixture, { ttfb: 2500 }), "performance.ttfb")).toBe("fail");
  });

  test("every check comes from the catalogue with its fixed category and severity", () => {
    const { checks } = buildResult(fixture);
    for (const check of checks) {
      const definition = CHECKS[check.id as keyof typeof CHECKS];
      expect(definition).toBeDefined();
      expect(check.category).toBe(definition.category);
      expect(check.severity).toBe(definition.severity);
      expect(check.title).toBe(definition.title);
      expect(check.fail_title).toBe(definition.failTitle);
      expect(check.id.startsWith(`${check.category}.`)).toBe(true);
    }
    expect(new Set(checks.map((check) => check.id)).size).toBe(checks.length);
  });

  test("every check of the catalogue is reported: its audit is listed in its category's index.ts", () => {
    const reported = new Set(buildResult(fixture).checks.map((check) => check.id));
    const unreported = Object.keys(CHECKS).filter((id) => !reported.has(id));
    expect(unreported).toEqual([]);
  });

  test("every check has a failure title of its own, a short statement like its title", () => {
    for (const [id, definition] of Object.entries(CHECKS)) {
      const { title, failTitle } = definition as { title: string; failTitle: string };
      expect({ id, same: failTitle === title }).toEqual({ id, same: false });
      expect(failTitle.length).toBeGreaterThan(10);
      expect(failTitle.length).toBeLessThanOrEqual(120);
      expect(failTitle).not.toMatch(/[.\n]$/);
    }
    // Two checks never share a failure title: a code-scanning alert title names one check.
    const failTitles = Object.values(CHECKS).map((definition) => definition.failTitle);
    expect(new Set(failTitles).size).toBe(failTitles.length);
  });

  test("buildResult is deterministic", () => {
    expect(buildResult(structuredClone(fixture))).toEqual(buildResult(structuredClone(fixture)));
  });
});

describe("summarise", () => {
  const make = (category: Check["category"], severity: Check["severity"], state: Check["status"]): Check => ({
    id: `${category}.x`,
    category,
    severity,
    status: state,
    title: "",
    message: "",
    evidence: [],
    remediation: "",
  });

  test("no checks → 100 / A with no category scored", () => {
    expect(summarise([])).toMatchObject({ score: 100, grade: "A", categories: { performance: null, seo: null } });
  });

  test("problems multiply a category down by severity, warnings by half; skips do not count", () => {
    const summary = summarise([
      make("security", "high", "fail"), // × 0.75
      make("security", "low", "fail"), // × 0.96
      make("performance", "medium", "warn"), // × 0.95
      make("performance", "medium", "pass"),
      make("seo", "critical", "skip"),
    ]);
    expect(summary.categories).toEqual({ performance: 95, seo: null, security: 60, components: null });
    expect(summary.score).toBe(78);
    expect(summary.grade).toBe("C");
    expect(summary.failed).toEqual({ critical: 0, high: 1, medium: 1, low: 1, info: 0 });
  });

  test("a failed critical check caps its category at 30 however much passes; info never costs points", () => {
    const passing = Array.from({ length: 40 }, () => make("security", "high", "pass"));
    expect(summarise([...passing, make("security", "critical", "fail")]).categories.security).toBe(30);
    expect(summarise([...passing, make("security", "info", "fail")]).categories.security).toBe(100);
  });

  test("passing checks never dilute a finding", () => {
    const one = summarise([make("seo", "medium", "fail")]).categories.seo;
    const many = summarise([
      make("seo", "medium", "fail"),
      ...Array.from({ length: 20 }, () => make("seo", "low", "pass")),
    ]).categories.seo;
    expect(one).toBe(90);
    expect(many).toBe(90);
  });

  test("a failed critical check caps the grade at F, a failed high one at C, and the caps say why", () => {
    const passing = Array.from({ length: 30 }, (_, i) => make(i % 2 ? "seo" : "performance", "high", "pass"));
    const critical = summarise([...passing, make("security", "critical", "fail")]);
    // performance 100, seo 100, security 30 → 77 (C) by score; the critical finding makes it F.
    expect(critical.score).toBe(77);
    expect(critical.grade).toBe("F");
    expect(critical.grade_caps).toEqual([
      {
        grade: "F",
        severity: "critical",
        checks: ["security.x"],
        reason: "A critical finding fails (security.x): the grade is at most F.",
      },
    ]);
    const noHigh = summarise([...passing, make("seo", "medium", "fail")]);
    expect(noHigh).toMatchObject({ grade: "A", grade_caps: [] });
    const highOnly = summarise([...passing.slice(0, 2), make("security", "high", "fail")]);
    expect(highOnly.score).toBe(87);
    expect(highOnly.grade).toBe("C");
    expect(highOnly.grade_caps?.map((cap) => [cap.grade, cap.checks])).toEqual([["C", ["security.x"]]]);
    // A warning is not a failure: no cap.
    expect(summarise([...passing, make("security", "critical", "warn")]).grade_caps).toEqual([]);
  });

  test("a cap that would not lower the grade is not listed", () => {
    const many = Array.from({ length: 8 }, () => make("security", "high", "fail"));
    expect(summarise(many)).toMatchObject({ grade: "F", grade_caps: [] });
  });

  test("grades follow the floors", () => {
    const many = Array.from({ length: 8 }, () => make("security", "critical", "fail"));
    expect(summarise(many)).toMatchObject({ score: 0, grade: "F", categories: { security: 0 } });
  });
});
