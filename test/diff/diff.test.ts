/** The diff engine: examples, and fast-check properties (SPEC.md §9). */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { diff, parseBudgets } from "../../shared/diff.ts";
import { type Check, type Report, SEVERITIES } from "../../shared/report.ts";
import { baseReport, reportArbitrary } from "./report-arbitrary.ts";

const check = (id: string, status: Check["status"], severity: Check["severity"] = "high"): Check => ({
  id,
  category: id.split(".")[0] as Check["category"],
  severity,
  status,
  title: `${id} title`,
  message: `${id} ${status}`,
  evidence: [],
  remediation: "Do the thing.",
});

function report(id: string, checks: Check[], change: (r: Report) => void = () => {}): Report {
  const r = baseReport(id);
  r.checks = checks;
  change(r);
  return r;
}

describe("diff examples", () => {
  const base = report("rep_base", [
    check("security.https", "pass"),
    check("security.xmlrpc_enabled", "warn", "medium"),
    check("seo.title", "fail", "medium"),
  ]);

  test("pass → fail is a regression; fail → pass an improvement; at fail-on high it fails the build", () => {
    const head = report("rep_head", [
      check("security.https", "fail"),
      check("security.xmlrpc_enabled", "warn", "medium"),
      check("seo.title", "pass", "medium"),
    ]);
    const result = diff(base, head);
    expect(result.regressions.map((c) => [c.id, c.before, c.after])).toEqual([["security.https", "pass", "fail"]]);
    expect(result.improvements.map((c) => [c.id, c.before, c.after])).toEqual([["seo.title", "fail", "pass"]]);
    expect(result.verdict).toEqual({
      result: "fail",
      reasons: ["1 check regressed at severity high or above: security.https"],
    });
    expect(diff(base, head, { failOn: "critical" }).verdict.result).toBe("pass");
    expect(diff(base, head, { failOn: "none" }).verdict.result).toBe("pass");
  });

  test("a failing check the baseline never had is listed but does not fail the build", () => {
    const head = report("rep_head", [...base.checks, check("security.git_exposed", "fail", "critical")]);
    const result = diff(base, head);
    expect(result.regressions).toEqual([
      expect.objectContaining({ id: "security.git_exposed", before: null, after: "fail", new_check: true }),
    ]);
    expect(result.verdict.result).toBe("pass");
  });

  test("no baseline: nothing compared, only budgets can fail", () => {
    const head = report("rep_head", [check("security.https", "fail", "critical")]);
    expect(diff(null, head).verdict.result).toBe("pass");
    const budgeted = diff(null, head, { budgets: { ttfb_ms: 50 } });
    expect(budgeted.budgets).toEqual([
      { metric: "ttfb_ms", label: "Time to first byte", limit: 50, value: 100, kind: "max", exceeded: true },
    ]);
    expect(budgeted.verdict).toEqual({ result: "fail", reasons: ["Time to first byte is 100, over the budget of 50"] });
  });

  test("score drop beyond max-score-drop fails", () => {
    const head = report("rep_head", base.checks, (r) => {
      if (r.summary) r.summary.score = 78;
    });
    const result = diff(base, head, { maxScoreDrop: 10 });
    expect(result.score).toEqual({ before: 90, after: 78, delta: -12 });
    expect(result.verdict.reasons).toEqual(["the score dropped by 12 points (90 → 78), more than the allowed 10"]);
    expect(diff(base, head, { maxScoreDrop: 15 }).verdict.result).toBe("pass");
  });

  test("timing noise below both thresholds is ignored; real changes carry percentages", () => {
    const small = report("rep_head", base.checks, (r) => {
      if (r.performance) r.performance.ttfb_ms = 160; // +60 ms: under the 100 ms absolute threshold
    });
    expect(diff(base, small).metrics).toEqual([]);
    const big = report("rep_head", base.checks, (r) => {
      if (r.performance) r.performance.ttfb_ms = 450;
    });
    expect(diff(base, big).metrics).toEqual([
      {
        metric: "ttfb_ms",
        label: "Time to first byte",
        unit: "ms",
        before: 100,
        after: 450,
        delta: 350,
        percent: 350,
        direction: "worse",
      },
    ]);
    expect(diff(base, big, { noise: { ttfb_ms: { absolute: 500 } } }).metrics).toEqual([]);
  });

  test("component changes: core update, plugin added and removed, theme downgraded", () => {
    const plugin = (slug: string, version: string | null) => ({
      slug,
      name: slug,
      version,
      version_confidence: 90,
      confidence: 100,
      evidence: [],
      latest_version: null,
      outdated: null,
      vulnerabilities: [],
      category: null,
    });
    const theme = (version: string) => ({ ...plugin("twentytwentyone", version), author: null, parent: null });
    const before = report("rep_a", [], (r) => {
      r.plugins = [plugin("akismet", "5.0.2"), plugin("hello-dolly", "1.7")];
      r.theme = theme("1.7");
    });
    const after = report("rep_b", [], (r) => {
      if (r.wordpress) r.wordpress.version = "6.2";
      r.plugins = [plugin("akismet", "5.0.2"), plugin("jetpack", "12.0")];
      r.theme = theme("1.6");
    });
    expect(diff(before, after).components).toEqual([
      { type: "core", slug: "wordpress", name: "WordPress", change: "updated", before: "6.1.9", after: "6.2" },
      { type: "plugin", slug: "hello-dolly", name: "hello-dolly", change: "removed", before: "1.7", after: null },
      { type: "plugin", slug: "jetpack", name: "jetpack", change: "added", before: null, after: "12.0" },
      {
        type: "theme",
        slug: "twentytwentyone",
        name: "twentytwentyone",
        change: "downgraded",
        before: "1.7",
        after: "1.6",
      },
    ]);
  });

  test("new vulnerabilities at or above fail-on fail the build", () => {
    const vulnerable = report("rep_b", base.checks, (r) => {
      r.wordpress?.vulnerabilities.push({
        id: "TEST-1",
        title: "XSS",
        severity: "high",
        cvss: 7.1,
        cve: [],
        fixed_in: "6.1.10",
        references: [],
      });
    });
    const result = diff(base, vulnerable);
    expect(result.new_vulnerabilities.map((v) => [v.vulnerability.id, v.kind, v.fix])).toEqual([
      ["TEST-1", "new_vulnerability", "update WordPress to 6.1.10"],
    ]);
    expect(result.verdict.reasons).toEqual([
      "1 newly published vulnerability affects unchanged components at severity high or above (new_vulnerability): WordPress 6.1.9 TEST-1 (high)",
    ]);
    expect(diff(vulnerable, base).fixed_vulnerabilities.map((v) => [v.vulnerability.id, v.kind])).toEqual([
      ["TEST-1", "advisory_withdrawn"],
    ]);
  });

  test("budgets parse from the Action's input format", () => {
    expect(parseBudgets("ttfb_ms=800, html_bytes=200000\nscore=80")).toEqual({
      ttfb_ms: 800,
      html_bytes: 200000,
      score: 80,
    });
    expect(() => parseBudgets("speed=fast")).toThrow('budget "speed=fast" is not of the form metric=number');
    expect(() => parseBudgets("lcp=2500")).toThrow('unknown budget metric "lcp"');
  });
});

describe("diff properties", () => {
  test("diff(a, a) is empty and passes", () => {
    fc.assert(
      fc.property(reportArbitrary, (a) => {
        const result = diff(a, a);
        expect(result.regressions).toEqual([]);
        expect(result.improvements).toEqual([]);
        expect(result.components).toEqual([]);
        expect(result.metrics).toEqual([]);
        expect(result.new_vulnerabilities).toEqual([]);
        expect(result.verdict.result).toBe("pass");
      }),
      { numRuns: 300 },
    );
  });

  test("a regression from a→b is an improvement from b→a, and metric changes mirror", () => {
    fc.assert(
      fc.property(reportArbitrary, reportArbitrary, (a, b) => {
        const forward = diff(a, b);
        const backward = diff(b, a);
        expect(forward.regressions.map((c) => c.id).sort()).toEqual(backward.improvements.map((c) => c.id).sort());
        expect(forward.improvements.map((c) => c.id).sort()).toEqual(backward.regressions.map((c) => c.id).sort());
        expect(forward.metrics.map((m) => [m.metric, m.direction])).toEqual(
          backward.metrics.map((m) => [m.metric, m.direction === "worse" ? "better" : "worse"]),
        );
        expect(forward.new_vulnerabilities.length).toBe(backward.fixed_vulnerabilities.length);
        // A vulnerability's kind mirrors too: newly published one way is a withdrawn advisory the other.
        const mirrored = { new_vulnerability: "advisory_withdrawn", component_changed: "component_changed" } as const;
        const key = (v: { component: string; vulnerability: { id: string } }) => `${v.component}#${v.vulnerability.id}`;
        expect(
          forward.new_vulnerabilities
            .map((v) => [key(v), mirrored[v.kind as keyof typeof mirrored]])
            .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
        ).toEqual(
          backward.fixed_vulnerabilities
            .map((v) => [key(v), v.kind])
            .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
        );
      }),
      { numRuns: 500 },
    );
  });

  test("the verdict is monotone in the threshold: failing at a severity fails at every stricter one", () => {
    fc.assert(
      fc.property(reportArbitrary, reportArbitrary, (a, b) => {
        // SEVERITIES runs critical → info, i.e. from the most lenient gate to the strictest.
        const failing = SEVERITIES.map((severity) => diff(a, b, { failOn: severity }).verdict.result === "fail");
        for (let i = 1; i < failing.length; i++) if (failing[i - 1]) expect(failing[i]).toBe(true);
        if (diff(a, b, { failOn: "none" }).verdict.result === "fail") expect(failing.every(Boolean)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  test("a new vulnerability is new_vulnerability exactly when its component has the same version in both reports", () => {
    fc.assert(
      fc.property(reportArbitrary, reportArbitrary, (a, b) => {
        const result = diff(a, b);
        const versions = (r: Report) => {
          const map = new Map<string, string | null>();
          if (r.wordpress?.detected) map.set("core:wordpress", r.wordpress.version);
          if (r.theme) map.set(`theme:${r.theme.slug}`, r.theme.version);
          if (r.theme?.parent) map.set(`theme:${r.theme.parent.slug}`, r.theme.parent.version);
          for (const plugin of r.plugins) map.set(`plugin:${plugin.slug}`, plugin.version);
          return map;
        };
        const before = versions(a);
        for (const change of result.new_vulnerabilities) {
          const unchanged = before.has(change.component) && before.get(change.component) === change.version;
          expect(change.kind).toBe(unchanged ? "new_vulnerability" : "component_changed");
          expect(change.component_change === null).toBe(unchanged);
        }
        expect(result.regression_kinds.new_vulnerability + result.regression_kinds.component_changed).toBe(
          result.new_vulnerabilities.length,
        );
        // Each kind has its own reason line, present exactly when one of that kind is at or above fail-on.
        const gating = result.new_vulnerabilities.filter((v) =>
          ["critical", "high"].includes(v.vulnerability.severity),
        );
        expect(result.verdict.reasons.some((r) => r.includes("(new_vulnerability)"))).toBe(
          gating.some((v) => v.kind === "new_vulnerability"),
        );
        expect(result.verdict.reasons.some((r) => r.includes("(component_changed)"))).toBe(
          gating.some((v) => v.kind === "component_changed"),
        );
        expect(diff(a, b, { failOn: "none" }).verdict.reasons.join()).not.toContain("vulnerabilit");
      }),
      { numRuns: 500 },
    );
  });

  test("the diff never throws on any pair of reports", () => {
    fc.assert(
      fc.property(fc.option(reportArbitrary, { nil: null }), reportArbitrary, (a, b) => {
        diff(a, b, { failOn: "low", maxScoreDrop: 5, budgets: { ttfb_ms: 500, score: 50 } });
      }),
      { numRuns: 300 },
    );
  });
});
