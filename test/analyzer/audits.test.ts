/** Audits and scoring on saved artifacts: pure functions, no network. */
import { describe, expect, test } from "bun:test";
import { buildResult } from "../../server/analyzer/analyze.ts";
import { CHECKS } from "../../server/analyzer/audit/catalogue.ts";
import { auditHtmlDelivery } from "../../server/analyzer/audit/html-delivery.ts";
import { auditTransport } from "../../server/analyzer/audit/transport.ts";
import { auditVersionDisclosure } from "../../server/analyzer/audit/version-disclosure.ts";
import { detectWordPress } from "../../server/analyzer/detect/wordpress.ts";
import { summarise } from "../../server/analyzer/score.ts";
import type { Check } from "../../shared/report.ts";
import { loadArtifacts, variant, WP_FIXTURE } from "./artifacts.ts";

const fixture = loadArtifacts(WP_FIXTURE);
const input = (artifacts = fixture) => ({ artifacts, wordpress: detectWordPress(artifacts) });
const status = (checks: Check[], id: string) => checks.find((check) => check.id === id)?.status;

describe("audits", () => {
  test("transport: the fixture is plain HTTP → security.https fails; an https final URL passes", () => {
    expect(status(auditTransport(input()), "security.https")).toBe("fail");
    expect(status(auditTransport(input(variant(fixture, { url: "https://example.com/" }))), "security.https")).toBe(
      "pass",
    );
  });

  test("version disclosure: generator tag and feed both leak 6.1.9", () => {
    const [check] = auditVersionDisclosure(input());
    expect(check?.status).toBe("fail");
    expect(check?.evidence).toEqual([
      "meta_generator: WordPress 6.1.9",
      "rss_generator: <generator>https://wordpress.org/?v=6.1.9</generator>",
    ]);
    const hidden = variant(fixture, {
      body: fixture.homepage.body.replace(/<meta name="generator"[^>]*>/, ""),
      feed: null,
    });
    expect(auditVersionDisclosure(input(hidden))[0]?.status).toBe("pass");
  });

  test("html delivery: gzip passes; uncompressed fails; slow TTFB warns then fails", () => {
    expect(status(auditHtmlDelivery(input()), "performance.html_compression")).toBe("pass");
    expect(status(auditHtmlDelivery(input(variant(fixture, { encoding: null }))), "performance.html_compression")).toBe(
      "fail",
    );
    expect(
      status(
        auditHtmlDelivery(input(variant(fixture, { body: "<p>tiny</p>", encoding: null }))),
        "performance.html_compression",
      ),
    ).toBe("skip");
    expect(status(auditHtmlDelivery(input(variant(fixture, { ttfb: 100 }))), "performance.ttfb")).toBe("pass");
    expect(status(auditHtmlDelivery(input(variant(fixture, { ttfb: 1200 }))), "performance.ttfb")).toBe("warn");
    expect(status(auditHtmlDelivery(input(variant(fixture, { ttfb: 2500 }))), "performance.ttfb")).toBe("fail");
  });

  test("every check comes from the catalogue with its fixed category and severity", () => {
    const { checks } = buildResult(fixture);
    for (const check of checks) {
      const definition = CHECKS[check.id as keyof typeof CHECKS];
      expect(definition).toBeDefined();
      expect(check.category).toBe(definition.category);
      expect(check.severity).toBe(definition.severity);
      expect(check.id.startsWith(`${check.category}.`)).toBe(true);
    }
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

  test("penalties by severity, half for warnings, mean over scored categories", () => {
    const summary = summarise([
      make("security", "high", "fail"), // −25
      make("security", "low", "fail"), // −5
      make("performance", "medium", "warn"), // −5
      make("performance", "medium", "pass"),
      make("seo", "critical", "skip"), // not scored
    ]);
    expect(summary.categories).toEqual({ performance: 95, seo: null, security: 70, components: null });
    expect(summary.score).toBe(83);
    expect(summary.grade).toBe("B");
    expect(summary.failed).toEqual({ critical: 0, high: 1, medium: 1, low: 1, info: 0 });
  });

  test("a category never goes below zero; grades follow the floors", () => {
    const many = Array.from({ length: 5 }, () => make("security", "critical", "fail"));
    expect(summarise(many)).toMatchObject({ score: 0, grade: "F", categories: { security: 0 } });
  });
});
