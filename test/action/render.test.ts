/** Annotations and markdown: capped, grouped, ordered by severity, site text neutralised. */
import { describe, expect, test } from "bun:test";
import { annotationsFor, PER_LEVEL } from "../../action/src/annotations.ts";
import { md, renderMarkdown } from "../../action/src/markdown.ts";
import { diff } from "../../shared/diff.ts";
import type { Check } from "../../shared/report.ts";
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
