/** Annotations and markdown: capped, grouped, ordered by severity, site text neutralised. */
import { describe, expect, test } from "bun:test";
import { annotationsFor, PER_LEVEL } from "../../action/src/annotations.ts";
import { md, renderMarkdown } from "../../action/src/markdown.ts";
import { renderText } from "../../action/src/text.ts";
import { diff } from "../../shared/diff.ts";
import type { Check, PluginInfo, Report, Vulnerability } from "../../shared/report.ts";
import { baseReport } from "../diff/report-arbitrary.ts";

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
  test("most severe first, at most PER_LEVEL per level, the rest grouped in one", () => {
    const ids = Array.from({ length: 14 }, (_, i) => `security.c${String(i).padStart(2, "0")}`);
    const base = baseReport("rep_a");
    base.checks = ids.map((id) => check(id, "pass", "high"));
    const head = baseReport("rep_b");
    head.checks = ids.map((id, i) => check(id, "fail", i < 12 ? "high" : "critical"));
    const annotations = annotationsFor(diff(base, head));
    const errors = annotations.filter((a) => a.level === "error");
    expect(errors).toHaveLength(PER_LEVEL + 1);
    expect(errors[0]?.message).toStartWith("security.c12 (critical)");
    expect(errors[1]?.message).toStartWith("security.c13 (critical)");
    expect(errors.at(-1)?.title).toBe("wpreport: 5 more");
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
      base,
      diff: diff(base, head),
      reportUrl: "https://w.example/api/report/rep_b",
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

/** A nightly audit: akismet unchanged but newly vulnerable; jetpack added with an advisory. */
function vulnerableSites(): { base: Report; head: Report } {
  const plugin = (slug: string, version: string, vulnerabilities: Vulnerability[] = []): PluginInfo => ({
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
      base,
      diff: diff(base, head),
      reportUrl: "https://w.example/api/report/rep_b",
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
    const text = renderText(head, base, diff(base, head), "high");
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
