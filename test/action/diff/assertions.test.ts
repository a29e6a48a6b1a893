/**
 * Assertions (docs/diff.md#assertions), as Lighthouse CI has them: per-check levels that replace
 * fail-on for the checks they match — examples, and properties over generated reports.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { assertionFor, assertionMatches, diff } from "../../../shared/diff.ts";
import { parseAssertions } from "../../../shared/diff-options.ts";
import type { Assertion } from "../../../shared/diff-schema.ts";
import type { Check, Report, Vulnerability } from "../../../shared/report.ts";
import { exampleCheck, pluginInfo, exampleReport as report, reportArbitrary } from "./report-arbitrary.ts";

const check = (id: string, status: Check["status"], severity: Check["severity"] = "high"): Check =>
  exampleCheck(id, status, severity, { fail_title: `${id} fails` });

const assert = (text: string): Assertion[] => parseAssertions(text);

describe("which assertion decides for a check", () => {
  test("a glob's * stands for any characters, dots included; an id matches itself only", () => {
    expect(assertionMatches("security.*", "security.https")).toBe(true);
    expect(assertionMatches("security.*", "seo.title")).toBe(false);
    expect(assertionMatches("*.https", "security.https")).toBe(true);
    expect(assertionMatches("*", "components.plugins_vulnerable")).toBe(true);
    expect(assertionMatches("sec*s", "security.https")).toBe(true);
    expect(assertionMatches("security.http", "security.https")).toBe(false);
    // Regular-expression characters in a pattern are plain characters.
    expect(assertionMatches("security.*", "securityxhttps")).toBe(false);
  });

  test("the most specific wins: an id over any glob, a longer glob over a shorter; on a tie the stricter level", () => {
    const rules = assert("security.*: error, security.https: off, *.https: warn, *: warn");
    expect(assertionFor("security.https", rules)).toEqual({ pattern: "security.https", level: "off" });
    expect(assertionFor("security.hsts", rules)).toEqual({ pattern: "security.*", level: "error" });
    expect(assertionFor("seo.title", rules)).toEqual({ pattern: "*", level: "warn" });
    expect(assertionFor("seo.title", assert("security.*: error"))).toBeUndefined();
    // "sec*.https" and "security.*" both have 9 characters besides *: error wins, in either order.
    for (const text of ["sec*.https: warn, security.*: error", "security.*: error, sec*.https: warn"])
      expect(assertionFor("security.https", assert(text))?.level).toBe("error");
  });
});

describe("the verdict with assertions", () => {
  const base = report("rep_base", [check("security.https", "pass"), check("seo.meta_description", "pass", "low")]);

  test("error: a failing check fails the build without a baseline, and whatever its severity", () => {
    const head = report("rep_head", [
      check("security.https", "fail", "low"),
      check("security.hsts", "warn", "info"),
      check("security.xmlrpc_enabled", "pass"),
    ]);
    expect(diff(null, head).verdict.result).toBe("pass"); // no baseline: nothing regressed
    const result = diff(null, head, { assertions: assert("security.*: error") });
    expect(result.verdict).toEqual({
      result: "fail",
      reasons: ["2 checks fail under an error assertion: security.https (security.*), security.hsts (security.*)"],
      warnings: [],
    });
    expect(result.assertions.results).toEqual([
      {
        id: "security.https",
        title: "security.https fails",
        category: "security",
        severity: "low",
        status: "fail",
        level: "error",
        pattern: "security.*",
        message: "security.https fail",
        remediation: "Do the thing.",
      },
      expect.objectContaining({ id: "security.hsts", status: "warn", level: "error" }),
    ]);
    // Still failing with a baseline where it already failed: an error assertion is absolute.
    expect(diff(head, head, { assertions: assert("security.*: error") }).verdict.result).toBe("fail");
  });

  test("warn: a warning line, never a failure — even for a regression fail-on would fail", () => {
    const head = report("rep_head", [check("security.https", "fail"), check("seo.meta_description", "warn", "low")]);
    expect(diff(base, head).verdict.result).toBe("fail");
    const result = diff(base, head, { assertions: assert("security.https: warn, seo.*: warn") });
    expect(result.verdict).toEqual({
      result: "pass",
      reasons: [],
      warnings: ["2 checks fail under a warn assertion: security.https (security.https), seo.meta_description (seo.*)"],
    });
    expect(result.regressions.map((change) => change.id)).toEqual(["security.https", "seo.meta_description"]);
  });

  test("off: the check neither fails nor warns; fail-on decides for the checks no assertion matches", () => {
    const head = report("rep_head", [check("security.https", "fail"), check("security.hsts", "fail", "critical")]);
    const withBase = report("rep_b2", [...base.checks, check("security.hsts", "pass", "critical")]);
    const result = diff(withBase, head, { assertions: assert("security.https: off") });
    expect(result.verdict.reasons).toEqual(["1 check regressed at severity high or above: security.hsts"]);
    expect(result.assertions.results).toEqual([]);
    expect(diff(withBase, head, { assertions: assert("security.*: off") }).verdict.result).toBe("pass");
  });

  test("a components.*_vulnerable assertion decides for that component type's new vulnerabilities", () => {
    const advisory: Vulnerability = {
      id: "WF-1",
      title: "SQLi",
      severity: "critical",
      cvss: 9.8,
      cve: [],
      fixed_in: "2.1",
      references: [],
    };
    const old = report("rep_old", [check("components.plugins_vulnerable", "pass", "critical")], (r) => {
      r.plugins = [pluginInfo("shop", "2.0")];
    });
    const now = report("rep_now", [check("components.plugins_vulnerable", "fail", "critical")], (r) => {
      r.plugins = [pluginInfo("shop", "2.0", [advisory])];
    });
    expect(diff(old, now).verdict.reasons).toHaveLength(2); // the check and the new vulnerability
    const off = diff(old, now, { assertions: assert("components.plugins_vulnerable: off") });
    expect(off.verdict).toEqual({ result: "pass", reasons: [], warnings: [] });
    expect(off.new_vulnerabilities).toHaveLength(1); // listed, not gating
    const warned = diff(old, now, { assertions: assert("components.*: warn") });
    expect(warned.verdict.result).toBe("pass");
    expect(warned.verdict.warnings).toEqual([
      "1 check fails under a warn assertion: components.plugins_vulnerable (components.*)",
    ]);
    // Assertions on other checks leave fail-on in charge of the vulnerabilities.
    expect(diff(old, now, { assertions: assert("seo.*: off") }).verdict.reasons).toHaveLength(2);
  });

  test("patterns that match no check of the report are named", () => {
    const head = report("rep_head", [check("seo.meta_description", "pass", "low")]);
    const result = diff(null, head, { assertions: assert("seo.meta_descripton: warn, seo.*: error, perf.*: off") });
    expect(result.assertions.unmatched).toEqual(["seo.meta_descripton", "perf.*"]);
    expect(result.assertions.rules).toHaveLength(3);
    expect(result.verdict.result).toBe("pass");
  });

  test("the baseline the caller gave is named when the service does not say more", () => {
    expect(diff(base, base).baseline).toEqual({
      rule: "report",
      id: "rep_base",
      reason: "rep_base was given as the baseline",
    });
    expect(diff(null, base).baseline).toMatchObject({ rule: "none", id: null });
  });
});

describe("assertion properties", () => {
  const failingNow = (r: Report) => r.checks.some((c) => c.status === "fail" || c.status === "warn");

  test("`*: error` fails exactly the reports that fail a check now; `*: warn` and `*: off` never fail on checks", () => {
    fc.assert(
      fc.property(fc.option(reportArbitrary, { nil: null }), reportArbitrary, (a, b) => {
        expect(diff(a, b, { assertions: assert("*: error") }).verdict.result).toBe(failingNow(b) ? "fail" : "pass");
        expect(diff(a, b, { assertions: assert("*: warn") }).verdict.result).toBe("pass");
        expect(diff(a, b, { assertions: assert("*: off") }).verdict).toEqual({
          result: "pass",
          reasons: [],
          warnings: [],
        });
      }),
      { numRuns: 300 },
    );
  });

  test("an error assertion only ever adds failures; turning one off only ever removes them", () => {
    fc.assert(
      fc.property(
        reportArbitrary,
        reportArbitrary,
        fc.constantFrom("security.*", "seo.title", "*.https"),
        (a, b, p) => {
          const plain = diff(a, b).verdict.result;
          if (plain === "fail") {
            // fail-on's failures come from checks outside the pattern, or stay with error.
            expect(diff(a, b, { assertions: [{ pattern: p, level: "error" }] }).verdict.result).toBe("fail");
          } else {
            expect(diff(a, b, { assertions: [{ pattern: p, level: "off" }] }).verdict.result).toBe("pass");
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
