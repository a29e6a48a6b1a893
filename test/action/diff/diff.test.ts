/** The diff engine: examples, and fast-check properties (docs/diff.md). */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { diff, failingChecks } from "../../../shared/diff.ts";
import { parseBudgets } from "../../../shared/diff-options.ts";
import type { BudgetResult, MetricChange } from "../../../shared/diff-schema.ts";
import { describeBudget, metricChangeText } from "../../../shared/diff-text.ts";
import { type Report, SEVERITIES } from "../../../shared/report.ts";
import { formatMetricValue } from "../../../shared/report-metrics.ts";
import { exampleCheck as check, pluginInfo, exampleReport as report, reportArbitrary } from "./report-arbitrary.ts";

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
      warnings: [],
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
      {
        metric: "ttfb_ms",
        label: "Time to first byte",
        unit: "ms",
        limit: 50,
        value: 100,
        kind: "max",
        exceeded: true,
      },
    ]);
    expect(budgeted.verdict).toEqual({
      result: "fail",
      reasons: ["Time to first byte is 100 ms, over the budget of 50 ms"],
      warnings: [],
    });
  });

  test("a report that could not see the site as its baseline did fails: no grade where the baseline had one", () => {
    // An incomplete report (most probes unanswered) or a firewall's challenge page: checks mostly
    // skip, so nothing "regressed" — it used to pass and become every later deploy's baseline.
    const head = report("rep_head", [check("security.https", "skip")], (r) => {
      r.summary = null;
      r.errors = [{ stage: "analysis", kind: "incomplete", message: "12 of 14 probes got no answer from the site" }];
    });
    const result = diff(base, head);
    expect(result.verdict.result).toBe("fail");
    expect(result.verdict.reasons[0]).toBe(
      "this report has no grade, while the baseline rep_base had one (12 of 14 probes got no answer from the site): the site could not be checked as before",
    );
    expect(diff(base, head, { failOn: "none" }).verdict.result).toBe("pass"); // accepting it on purpose
    expect(diff(null, head).verdict.result).toBe("pass"); // nothing to compare with
    expect(diff(head, head).verdict.result).toBe("pass");
  });

  test("a report that could not see the site as its baseline did fails: WordPress no longer seen (an error page)", () => {
    // A deploy that breaks the database: every page is WordPress's 500 "Error establishing a
    // database connection" page, which has a title, an h1, a viewport: the WordPress checks
    // skip, the score went up, and the gate passed.
    const head = report("rep_head", [check("security.https", "skip"), check("seo.title", "pass", "medium")], (r) => {
      r.wordpress = { ...(r.wordpress as NonNullable<Report["wordpress"]>), detected: false, confidence: 0 };
      if (r.summary) r.summary.score = 99;
    });
    const result = diff(base, head);
    expect(result.verdict.result).toBe("fail");
    expect(result.verdict.reasons[0]).toBe(
      "the site no longer looks like WordPress, while the baseline rep_base did: its homepage may be an error, maintenance or log-in page, and the WordPress checks could not run",
    );
    expect(diff(base, head, { failOn: "none" }).verdict.result).toBe("pass");
    expect(diff(head, base).verdict.result).toBe("pass"); // the other way round is the site coming back
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
    const plugin = (slug: string, version: string | null) => pluginInfo(slug, version);
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

  test("budgets parse from the Action's input format; a plain number is in the metric's base unit", () => {
    expect(parseBudgets("ttfb_ms=800, html_bytes=200000\nscore=80")).toEqual({
      ttfb_ms: 800,
      html_bytes: 200000,
      score: 80,
    });
    expect(() => parseBudgets("speed=fast")).toThrow('budget "speed=fast" is not of the form metric=value');
    expect(() => parseBudgets("lcp=2500")).toThrow('unknown budget metric "lcp"');
  });

  test("budgets take units: times in ms or s, sizes in B, kB, MB, KiB or MiB (any case)", () => {
    expect(
      parseBudgets("ttfb_ms=0.8s, html_download_ms=450ms\nhtml_bytes=1.5MB, score=80, scripts=12, failed_checks=0"),
    ).toEqual({ ttfb_ms: 800, html_download_ms: 450, html_bytes: 1_500_000, score: 80, scripts: 12, failed_checks: 0 });
    expect(parseBudgets("html_bytes=250kB")).toEqual({ html_bytes: 250_000 });
    expect(parseBudgets("html_bytes=250 KB")).toEqual({ html_bytes: 250_000 });
    expect(parseBudgets("html_bytes=1.5KiB")).toEqual({ html_bytes: 1536 });
    expect(parseBudgets("html_bytes=2mib")).toEqual({ html_bytes: 2 * 1024 * 1024 });
    expect(parseBudgets("html_bytes=900B")).toEqual({ html_bytes: 900 });
    expect(parseBudgets("ttfb_ms=1.25 S")).toEqual({ ttfb_ms: 1250 });
  });

  test("budgets with a wrong, unknown or misplaced unit are refused, saying what would do", () => {
    expect(() => parseBudgets("ttfb_ms=250kB")).toThrow(
      'budget "ttfb_ms=250kB": "kB" is not a unit of ttfb_ms, which is a time; use ms, s',
    );
    expect(() => parseBudgets("html_bytes=800ms")).toThrow(
      'budget "html_bytes=800ms": "ms" is not a unit of html_bytes, which is a size; use B, kB, MB, KiB, MiB',
    );
    expect(() => parseBudgets("html_bytes=2GB")).toThrow('"GB" is not a unit of html_bytes');
    expect(() => parseBudgets("ttfb_ms=1min")).toThrow('"min" is not a unit of ttfb_ms');
    expect(() => parseBudgets("score=80%")).toThrow('budget "score=80%" is not of the form metric=value');
    expect(() => parseBudgets("score=80pts")).toThrow(
      'budget "score=80pts": score is a score in points (0–100) and takes a plain number, without a unit',
    );
    expect(() => parseBudgets("scripts=12ms")).toThrow("scripts is a count and takes a plain number");
    expect(() => parseBudgets("score=120")).toThrow('budget "score=120": score is a score from 0 to 100');
    expect(() => parseBudgets("scripts=1.5")).toThrow('budget "scripts=1.5": scripts is a count, a whole number');
    expect(() => parseBudgets("ttfb_ms=-5")).toThrow("is not of the form metric=value");
    expect(() => parseBudgets("ttfb_ms=800, ttfb_ms=900")).toThrow('budget "ttfb_ms" is given twice');
  });

  test("budget results carry the metric's unit and read with units", () => {
    const head = report("rep_head", [], (r) => {
      if (r.performance) r.performance.html_bytes = 1_612_345;
    });
    const result = diff(null, head, { budgets: parseBudgets("html_bytes=1.5MB, ttfb_ms=2s, score=95") });
    expect(result.budgets.map((budget) => [budget.metric, budget.unit, budget.limit, budget.exceeded])).toEqual([
      ["html_bytes", "bytes", 1_500_000, true],
      ["score", "points", 95, true],
      ["ttfb_ms", "ms", 2000, false],
    ]);
    expect(result.verdict.reasons).toEqual([
      "HTML size is 1.61 MB, over the budget of 1.5 MB",
      "Overall score is 90, under the budget of 95",
    ]);
    expect(describeBudget(result.budgets[2] as BudgetResult)).toBe(
      "Time to first byte is 100 ms, within the budget of 2 s",
    );
  });

  test("a value that rounds to its budget is shown exactly", () => {
    const head = report("rep_head", [], (r) => {
      if (r.performance) r.performance.html_bytes = 250_040;
    });
    expect(diff(null, head, { budgets: parseBudgets("html_bytes=250kB") }).verdict.reasons).toEqual([
      "HTML size is 250040 B, over the budget of 250000 B",
    ]);
  });

  test("metric values read with their units", () => {
    expect(formatMetricValue("ms", 850)).toBe("850 ms");
    expect(formatMetricValue("ms", 1250)).toBe("1.25 s");
    expect(formatMetricValue("bytes", 512)).toBe("512 B");
    expect(formatMetricValue("bytes", 250_412)).toBe("250.4 kB");
    expect(formatMetricValue("bytes", -2_100)).toBe("-2.1 kB");
    expect(formatMetricValue("bytes", 1_500_000)).toBe("1.5 MB");
    expect(formatMetricValue("points", 80)).toBe("80");
    expect(formatMetricValue("count", 12)).toBe("12");
  });

  test("failingChecks: what a report fails now, most severe first, at one severity fail before warn", () => {
    const head = report("rep_head", [
      check("seo.a", "warn", "high"),
      check("security.b", "fail", "medium"),
      check("security.c", "fail", "high"),
      check("security.d", "pass", "critical"),
      check("security.e", "skip", "critical"),
      check("security.f", "error", "critical"),
    ]);
    expect(failingChecks(head).map((c) => c.id)).toEqual(["security.c", "seo.a", "security.b"]);
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

describe("metric changes for people", () => {
  test("before, after and the change carry units, the same on the summary, the CLI and the web", () => {
    const change = (unit: MetricChange["unit"], before: number, after: number): MetricChange => ({
      metric: "m",
      label: "M",
      unit,
      before,
      after,
      delta: after - before,
      percent: before === 0 ? null : Math.round(((after - before) / before) * 1000) / 10,
      direction: after > before ? "worse" : "better",
    });
    expect(metricChangeText(change("ms", 1200, 1600))).toEqual({
      before: "1.2 s",
      after: "1.6 s",
      change: "+400 ms (+33.3%)",
    });
    expect(metricChangeText(change("bytes", 250_000, 200_000))).toEqual({
      before: "250 kB",
      after: "200 kB",
      change: "-50 kB (-20%)",
    });
    expect(metricChangeText(change("points", 0, 5))).toEqual({ before: "0", after: "5", change: "+5" });
  });
});
