/** Annotations and markdown: capped, grouped, ordered by severity, site text neutralised. */
import { describe, expect, test } from "bun:test";
import { annotationsFor, GITHUB_ANNOTATIONS_PER_LEVEL, RESERVED } from "../../action/src/annotations.ts";
import { md, renderMarkdown } from "../../action/src/markdown.ts";
import { notWordPressNotice } from "../../action/src/notices.ts";
import { renderText } from "../../action/src/text.ts";
import { diff } from "../../shared/diff.ts";
import { parseBudgets } from "../../shared/diff-options.ts";
import type { Check, Report } from "../../shared/report.ts";
import { baseReport, pluginInfo } from "./diff/report-arbitrary.ts";

const check = (id: string, status: Check["status"], severity: Check["severity"], message = "m"): Check => ({
  id,
  category: "security",
  severity,
  status,
  title: `Title ${id}`,
  message,
  evidence: [],
  remediation: "Fix.",
});

describe("annotations", () => {
  test("most severe first; past what fits, one groups the rest; a slot is left for the verdict", () => {
    const ids = Array.from({ length: 15 }, (_, i) => `security.c${String(i).padStart(2, "0")}`);
    const base = baseReport("rep_a");
    base.checks = ids.map((id) => check(id, "pass", "high"));
    const head = baseReport("rep_b");
    head.checks = ids.map((id, i) => check(id, "fail", i < 13 ? "high" : "critical"));
    const annotations = annotationsFor(diff(base, head));
    const errors = annotations.filter((a) => a.level === "error");
    // GitHub shows 10 errors per step: 8 regressions, "7 more", and the verdict core.setFailed adds.
    expect(GITHUB_ANNOTATIONS_PER_LEVEL - RESERVED.error).toBe(9);
    expect(errors).toHaveLength(9);
    expect(errors[0]?.message).toStartWith("security.c13 (critical)");
    expect(errors[1]?.message).toStartWith("security.c14 (critical)");
    expect(errors.at(-1)?.title).toBe("wpreport: 7 more");
    expect(errors.at(-1)?.message).toContain("Title security.c12");
  });

  test("as many as fit are shown one by one, without a group", () => {
    const ids = Array.from({ length: 9 }, (_, i) => `security.c${i}`);
    const base = baseReport("rep_a");
    base.checks = ids.map((id) => check(id, "pass", "high"));
    const head = baseReport("rep_b");
    head.checks = ids.map((id) => check(id, "fail", "high"));
    const errors = annotationsFor(diff(base, head)).filter((a) => a.level === "error");
    expect(errors).toHaveLength(9);
    expect(errors.some((a) => a.title.endsWith(" more"))).toBe(false);
    // Notices keep no slot: 10 of them show as 10.
    head.checks = Array.from({ length: 10 }, (_, i) => check(`seo.n${i}`, "fail", "low"));
    base.checks = head.checks.map((c) => ({ ...c, status: "pass" as const }));
    expect(annotationsFor(diff(base, head)).filter((a) => a.level === "notice")).toHaveLength(10);
  });

  test("an exceeded budget is an error annotation with units", () => {
    const head = baseReport("rep_b");
    if (head.performance) head.performance.html_bytes = 1_612_345;
    expect(annotationsFor(diff(null, head, { budgets: parseBudgets("html_bytes=1.5MB") }))).toEqual([
      {
        level: "error",
        title: "wpreport: HTML size over budget",
        message: "HTML size is 1.61 MB, over the budget of 1.5 MB.",
      },
    ]);
  });

  test("newlines and control characters from site text never reach the annotation", () => {
    const base = baseReport("rep_a");
    base.checks = [check("security.x", "pass", "medium")];
    const head = baseReport("rep_b");
    head.checks = [check("security.x", "fail", "medium", "line1\n::error::injected\r\nline2")];
    const [annotation] = annotationsFor(diff(base, head));
    expect(annotation?.message).not.toMatch(/[\r\n]/);
  });
});

describe("markdown", () => {
  test("site text is escaped: no HTML, no table breaks, no mentions, no links", () => {
    expect(md("<script>alert(1)</script>")).toBe("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(md("a | b")).toBe("a &#124; b");
    expect(md("@octocat")).toBe("@\u200boctocat");
    expect(md("[x](https://evil.example)")).toBe("\\[x\\](https:\u200b//evil.example)");
  });

  test("the summary shows the verdict, score change and regressions table", () => {
    const base = baseReport("rep_a");
    base.checks = [check("security.x", "pass", "high")];
    const head = baseReport("rep_b");
    head.checks = [check("security.x", "fail", "high", "<b>bad</b>")];
    if (head.summary) head.summary.score = 70;
    const markdown = renderMarkdown({
      report: head,
      diff: diff(base, head),
      reportUrl: "https://w.example/reports/rep_b",
      failOn: "high",
    });
    expect(markdown).toContain("### wpreport: ❌ Failed");
    expect(markdown).toContain("**90 → 70** (-20)");
    expect(markdown).toContain(
      "| high | `security.x`<br>Title security.x | ✅ pass → ❌ fail | &lt;b&gt;bad&lt;/b&gt; |",
    );
    expect(markdown).not.toContain("<b>");
  });
});

describe("a first run (no baseline): what fails now", () => {
  const head = () => {
    const report = baseReport("rep_b");
    report.checks = [
      check("seo.meta_description", "warn", "low", "No meta description."),
      check("security.debug_log_exposed", "fail", "high", "The debug log is | <public>"),
      check("security.https", "pass", "critical"),
      check("performance.html_compression", "fail", "medium", "Not compressed."),
    ];
    return report;
  };

  test("the summary lists the failing checks, most severe first, escaped, and says they do not fail the build", () => {
    const report = head();
    const markdown = renderMarkdown({
      report,
      diff: diff(null, report),
      reportUrl: "https://w.example/reports/rep_b",
      failOn: "high",
    });
    expect(markdown).toContain("### wpreport: ✅ Passed");
    expect(markdown).toContain("#### Failing now (3)");
    expect(markdown).toContain("nothing counts as a regression and these do not fail the build");
    const rows = markdown.split("\n").filter((line) => /^\| (high|medium|low) \|/.test(line));
    expect(rows).toEqual([
      "| high | `security.debug_log_exposed`<br>Title security.debug\\_log\\_exposed | ❌ fail | The debug log is &#124; &lt;public&gt; |",
      "| medium | `performance.html_compression`<br>Title performance.html\\_compression | ❌ fail | Not compressed. |",
      "| low | `seo.meta_description`<br>Title seo.meta\\_description | ⚠️ warn | No meta description. |",
    ]);
    expect(markdown).toContain("[full report](https://w.example/reports/rep_b)");
    expect(markdown).not.toContain("No check got worse");
  });

  test("with a baseline the section is not there", () => {
    const report = head();
    const markdown = renderMarkdown({
      report,
      diff: diff(report, report),
      reportUrl: "https://w.example/reports/rep_b",
      failOn: "high",
    });
    expect(markdown).not.toContain("Failing now");
    expect(markdown).toContain("No check got worse");
  });

  test("the CLI's text lists them too, with the report's page", () => {
    const report = head();
    const text = renderText(report, diff(null, report), "high", "https://w.example/reports/rep_b");
    expect(text).toContain("full report: https://w.example/reports/rep_b");
    expect(text).toContain(
      [
        "Failing now (3) — no baseline to compare with, so none of these is a regression or fails the build:",
        "  [high] security.debug_log_exposed: fail — The debug log is | <public>",
        "  [medium] performance.html_compression: fail — Not compressed.",
        "  [low] seo.meta_description: warn — No meta description.",
      ].join("\n"),
    );
  });
});

describe("units", () => {
  test("the summary's budgets and metrics tables carry units", () => {
    const base = baseReport("rep_a");
    const head = baseReport("rep_b");
    if (base.performance && head.performance) {
      base.performance.ttfb_ms = 120;
      head.performance.ttfb_ms = 1450;
      base.performance.html_bytes = 40_000;
      head.performance.html_bytes = 1_612_345;
    }
    const result = diff(base, head, { budgets: parseBudgets("html_bytes=1.5MB, ttfb_ms=2s") });
    const markdown = renderMarkdown({
      report: head,
      diff: result,
      reportUrl: "https://w.example/reports/rep_b",
      failOn: "high",
    });
    expect(markdown).toContain("| HTML size | ≤ 1.5 MB | 1.61 MB | ❌ |");
    expect(markdown).toContain("| Time to first byte | ≤ 2 s | 1.45 s | ✅ |");
    expect(markdown).toContain("| 🔻 Time to first byte | 120 ms | 1.45 s | +1.33 s (+1108.3%) |");
    expect(markdown).toContain("| 🔻 HTML size | 40 kB | 1.61 MB | +1.57 MB (+3930.9%) |");
    expect(markdown).toContain("HTML size is 1.61 MB, over the budget of 1.5 MB");
    expect(renderText(head, result, "high")).toContain("  ▼ Time to first byte: 120 ms → 1.45 s (+1108.3%)");
  });
});

describe("not WordPress", () => {
  test("the report's own statement, with the URL, one line, control characters gone", () => {
    const report = baseReport("rep_b");
    report.wordpress = { ...(report.wordpress as NonNullable<Report["wordpress"]>), detected: false, confidence: 0 };
    report.errors = [
      { stage: "enumeration", kind: "not_wordpress", message: "Enumeration did not run." },
      {
        stage: "detect",
        kind: "not_wordpress",
        message: "This site does not look like WordPress (confidence 0%); it runs on nginx 1.22.1,\n::error::x Hugo.",
      },
    ];
    expect(notWordPressNotice(report)).toBe(
      `${report.url}: This site does not look like WordPress (confidence 0%); it runs on nginx 1.22.1, ::error::x Hugo. Is the URL the WordPress site you meant?`,
    );
  });

  test("nothing for a WordPress site or a firewall challenge", () => {
    const report = baseReport("rep_b");
    expect(notWordPressNotice(report)).toBeNull();
    report.wordpress = { ...(report.wordpress as NonNullable<Report["wordpress"]>), detected: false };
    expect(notWordPressNotice(report)).not.toBeNull();
    report.hosting = { blocked_by_waf: true, waf: "Cloudflare" } as NonNullable<Report["hosting"]>;
    expect(notWordPressNotice(report)).toBeNull();
  });
});

/** A nightly audit: akismet unchanged but newly vulnerable; jetpack added with an advisory. */
function vulnerableSites(): { base: Report; head: Report } {
  const plugin = pluginInfo;
  const base = baseReport("rep_a");
  base.plugins = [plugin("akismet", "5.0.2")];
  const head = baseReport("rep_b");
  head.plugins = [
    plugin("akismet", "5.0.2", [
      {
        id: "wf-1111",
        title: "Stored XSS via <b>comment</b>",
        severity: "high",
        cvss: 7.2,
        cvss_rating: "High",
        cvss_vector: null,
        cve: ["CVE-2026-1111"],
        affected: "<= 5.0.2",
        fixed_in: "5.0.3",
        references: [],
        source: "wordfence",
      },
    ]),
    plugin("jetpack", "12.0", [
      { id: "wf-2222", title: "CSRF", severity: "medium", cvss: 5.4, cve: [], fixed_in: null, references: [] },
    ]),
  ];
  return { base, head };
}

describe("new vulnerabilities by kind", () => {
  test("the summary has its own section for new_vulnerability findings, apart from component changes", () => {
    const { base, head } = vulnerableSites();
    const markdown = renderMarkdown({
      report: head,
      diff: diff(base, head),
      reportUrl: "https://w.example/reports/rep_b",
      failOn: "high",
    });
    expect(markdown).toContain("#### New vulnerabilities in unchanged components (1)");
    expect(markdown).toContain("`new_vulnerability`");
    expect(markdown).toContain(
      "| high (CVSS 7.2) | plugin `akismet` 5.0.2 | Stored XSS via &lt;b&gt;comment&lt;/b&gt;<br>wf-1111 | CVE-2026-1111 | &lt;= 5.0.2 | update akismet to 5.0.3 |",
    );
    expect(markdown).toContain("#### Vulnerabilities introduced by component changes (1)");
    expect(markdown).toContain(
      "| medium (CVSS 5.4) | plugin `jetpack` 12.0 (added) | CSRF<br>wf-2222 | — | — | no fix available: remove or replace jetpack |",
    );
    const published = markdown.indexOf("New vulnerabilities in unchanged components");
    const introduced = markdown.indexOf("introduced by component changes");
    expect(published).toBeLessThan(introduced);
    // The unchanged component's section holds only it.
    expect(markdown.slice(published, introduced)).not.toContain("jetpack");
    // The reason line is escaped markdown (`\_` renders as `_`).
    expect(markdown).toContain("(new\\_vulnerability): akismet 5.0.2 CVE-2026-1111 (high)");
    expect(markdown).not.toContain("<b>");
  });

  test("one annotation per new vulnerability, the kind named, the fix in the message", () => {
    const { base, head } = vulnerableSites();
    const annotations = annotationsFor(diff(base, head));
    expect(annotations).toEqual([
      {
        level: "error",
        title: "wpreport: new_vulnerability in unchanged akismet 5.0.2",
        message:
          "new_vulnerability: akismet 5.0.2: wf-1111 Stored XSS via <b>comment</b> (high, CVSS 7.2, CVE-2026-1111) [affects <= 5.0.2] — update akismet to 5.0.3. Newly published for a version that did not change since the baseline. Fix: update akismet to 5.0.3.",
      },
      {
        level: "warning",
        title: "wpreport: vulnerability came with jetpack 12.0 (component_changed)",
        message:
          "component_changed: jetpack 12.0: wf-2222 CSRF (medium, CVSS 5.4) — no fix available: remove or replace jetpack. The component was added since the baseline. Fix: no fix available: remove or replace jetpack.",
      },
    ]);
  });

  test("the CLI's text output lists them by kind", () => {
    const { base, head } = vulnerableSites();
    const text = renderText(head, diff(base, head), "high");
    expect(text).toContain("wpreport: FAILED");
    expect(text).toContain(
      [
        "New vulnerabilities in unchanged components (1):",
        "  [high] new_vulnerability: akismet 5.0.2: wf-1111 Stored XSS via <b>comment</b> (high, CVSS 7.2, CVE-2026-1111) [affects <= 5.0.2] — update akismet to 5.0.3",
        "",
        "Vulnerabilities introduced by component changes (1):",
        "  [medium] component_changed: jetpack 12.0: wf-2222 CSRF (medium, CVSS 5.4) — no fix available: remove or replace jetpack (component added)",
      ].join("\n"),
    );
    expect(text).toContain(
      "  ✗ 1 newly published vulnerability affects unchanged components at severity high or above (new_vulnerability): akismet 5.0.2 CVE-2026-1111 (high)",
    );
  });
});

describe("checks that could not run (report not_checked, schema 1.5.0)", () => {
  const withNotChecked = () => {
    const report = baseReport("rep_b");
    report.checks = [check("security.git_exposed", "skip", "critical")];
    report.not_checked = [
      { check: "security.git_exposed", reason: "a firewall challenge answered /.git/HEAD: not checked" },
      { check: "security.env_file_exposed", reason: "a 503 answered /.env: not checked" },
    ];
    (report.summary as NonNullable<Report["summary"]>).not_checked = 2;
    return report;
  };

  test("the summary says how many could not run, each with its reason; the CLI's text too", () => {
    const report = withNotChecked();
    const result = diff(null, report);
    const markdown = renderMarkdown({
      report,
      diff: result,
      reportUrl: "https://w.example/reports/rep_b",
      failOn: "high",
    });
    expect(markdown).toContain("> ⚠️ **2 checks could not run** — skipped, not passed");
    expect(markdown).toContain("- `security.git_exposed`: a firewall challenge answered /.git/HEAD: not checked");
    const text = renderText(report, result, "high");
    expect(text).toContain("! 2 checks could not run (skipped, not passed):");
    expect(text).toContain("security.env_file_exposed: a 503 answered /.env: not checked");
  });

  test("a report without them (before 1.5.0) says nothing of it", () => {
    const report = baseReport("rep_b");
    const markdown = renderMarkdown({
      report,
      diff: diff(null, report),
      reportUrl: "https://w.example/r",
      failOn: "high",
    });
    expect(markdown).not.toContain("could not run");
  });
});
