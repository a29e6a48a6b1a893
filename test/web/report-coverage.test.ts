/**
 * The words every view uses for what a report did not check (shared/report-coverage.ts): a
 * count of vulnerabilities reads "none" or "0" only when a source checked every component;
 * otherwise "not checked: no vulnerability data" or "partly checked" naming what was not; an
 * incomplete report checked nothing; checks that could not run are counted.
 */
import { describe, expect, test } from "bun:test";
import type { Report } from "../../shared/report.ts";
import {
  checksNotRun,
  checksNotRunText,
  componentChecked,
  NOT_CHECKED_INCOMPLETE,
  NOT_CHECKED_NO_DATA,
  notAllChecked,
  vulnerabilityCountText,
  vulnerabilityCoverage,
} from "../../shared/report-coverage.ts";

type Parts = Pick<Report, "status" | "errors" | "intel">;
const completed = (intel: Report["intel"], errors: Report["errors"] = []): Parts => ({
  status: "completed",
  errors,
  intel,
});
const data = (status: "complete" | "partial" | "none", slugs: string[] = []) => ({
  sources: [],
  vulnerability_data: {
    status,
    message: null,
    unchecked: slugs.map((slug) => ({ type: "plugin" as const, slug, reason: "no answer" })),
  },
});

describe("the words for what a report did not check", () => {
  test("complete: the count is the count, 0 included", () => {
    const coverage = vulnerabilityCoverage(completed(data("complete")));
    expect(vulnerabilityCountText(0, coverage)).toBe("0 known vulnerabilities");
    expect(vulnerabilityCountText(1, coverage)).toBe("1 known vulnerability");
    expect(notAllChecked(coverage, 0)).toBeNull();
    // Reports before schema 1.4.0 do not say: they read as they always did.
    expect(vulnerabilityCoverage(completed({ sources: [] })).status).toBe("complete");
  });

  test("none: never a count", () => {
    const coverage = vulnerabilityCoverage(completed(data("none")));
    for (const count of [0, 3]) expect(vulnerabilityCountText(count, coverage)).toBe(NOT_CHECKED_NO_DATA);
    expect(componentChecked(coverage, { type: "core", slug: "wordpress" })).toBe(false);
    expect(notAllChecked(coverage, 0)?.[0]).toStartWith("Vulnerabilities not checked: no vulnerability data.");
  });

  test("partial: the count with what was not checked, long lists counted", () => {
    const coverage = vulnerabilityCoverage(completed(data("partial", ["akismet"])));
    expect(vulnerabilityCountText(0, coverage)).toBe("partly checked: no vulnerability data for plugin akismet");
    expect(vulnerabilityCountText(2, coverage)).toBe(
      "2 known vulnerabilities; partly checked: no vulnerability data for plugin akismet",
    );
    expect(componentChecked(coverage, { type: "plugin", slug: "Akismet" })).toBe(false);
    expect(componentChecked(coverage, { type: "plugin", slug: "jetpack" })).toBe(true);
    const many = vulnerabilityCoverage(completed(data("partial", ["a", "b", "c", "d", "e", "f", "g", "h"])));
    expect(vulnerabilityCountText(0, many)).toBe(
      "partly checked: no vulnerability data for plugin a, plugin b, plugin c, plugin d, plugin e and 3 more",
    );
  });

  test("an incomplete report, or one without a result, checked nothing", () => {
    const incomplete = vulnerabilityCoverage(
      completed(data("complete"), [{ stage: "analysis", kind: "incomplete", message: "HTTP 401" }]),
    );
    expect(vulnerabilityCountText(0, incomplete)).toBe(NOT_CHECKED_INCOMPLETE);
    expect(vulnerabilityCoverage({ status: "failed", errors: [], intel: null }).status).toBe("none");
  });

  test("checks that could not run: summary.not_checked, else the list; none before 1.5.0", () => {
    expect(checksNotRunText(0)).toBeNull();
    expect(checksNotRunText(1)).toBe("1 check could not run");
    expect(checksNotRunText(4)).toBe("4 checks could not run");
    const entry = { check: "security.git_exposed", reason: "a firewall challenge answered /.git/HEAD" };
    expect(checksNotRun({ summary: null, not_checked: [entry, entry] })).toBe(2);
    expect(checksNotRun({ summary: null })).toBe(0);
    const coverage = vulnerabilityCoverage(completed(data("complete")));
    expect(notAllChecked(coverage, 2)).toEqual(["2 checks could not run: they are not passes."]);
  });
});
