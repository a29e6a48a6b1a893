/**
 * One parser for the diff's options (shared/diff-options.ts): the Action's inputs, the CLI's
 * flags, the API's query and the web compare page read fail-on, max-score-drop, budgets (and
 * the Action and the CLI the baseline) here, each naming the option its own way.
 */
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { diffReportsOperation } from "../../../server/reports/history.routes.ts";
import { parseBudgets } from "../../../shared/diff.ts";
import {
  DiffOptionsError,
  diffQuery,
  formatBudgets,
  type ParsedDiffOptions,
  parseBaseline,
  parseDiffOptions,
} from "../../../shared/diff-options.ts";

const FLAGS = { failOn: "--fail-on", maxScoreDrop: "--max-score-drop", budgets: "--budgets", baseline: "--baseline" };

const refusal = (run: () => unknown): DiffOptionsError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DiffOptionsError) return error;
    throw error;
  }
  throw new Error("not refused");
};

describe("parseDiffOptions", () => {
  test("defaults: fail on high, no score limit, no budgets — for absent and empty values alike", () => {
    const defaults: ParsedDiffOptions = { failOn: "high", maxScoreDrop: null, budgets: {} };
    expect(parseDiffOptions({})).toEqual(defaults);
    expect(parseDiffOptions({ failOn: "", maxScoreDrop: " ", budgets: "" })).toEqual(defaults);
  });

  test("reads each option", () => {
    expect(parseDiffOptions({ failOn: "medium", maxScoreDrop: "5", budgets: "ttfb_ms=0.8s, score=80" })).toEqual({
      failOn: "medium",
      maxScoreDrop: 5,
      budgets: { ttfb_ms: 800, score: 80 },
    });
    expect(parseDiffOptions({ failOn: " none ", maxScoreDrop: 0 })).toMatchObject({ failOn: "none", maxScoreDrop: 0 });
    expect(parseDiffOptions({ maxScoreDrop: "100" }).maxScoreDrop).toBe(100);
  });

  test("refuses in plain words, naming the option as the caller does", () => {
    const failOn = refusal(() => parseDiffOptions({ failOn: "severe" }, FLAGS));
    expect(failOn.option).toBe("failOn");
    expect(failOn.message).toBe('--fail-on must be one of critical, high, medium, low, info, none, got "severe".');
    expect(refusal(() => parseDiffOptions({ failOn: "HIGH" })).message).toBe(
      'fail_on must be one of critical, high, medium, low, info, none, got "HIGH".',
    );
    for (const drop of ["-1", "101", "abc", "NaN", "Infinity"]) {
      const error = refusal(() => parseDiffOptions({ maxScoreDrop: drop }, FLAGS));
      expect(error.option).toBe("maxScoreDrop");
      expect(error.message).toBe(`--max-score-drop must be a number from 0 to 100, got "${drop}".`);
    }
    const budgets = refusal(() => parseDiffOptions({ budgets: "ttfb_ms=1kB" }));
    expect(budgets.option).toBe("budgets");
    expect(budgets.message).toBe(
      'budgets: budget "ttfb_ms=1kB": "kB" is not a unit of ttfb_ms, which is a time; use ms, s.',
    );
    // A long value is shown cut short.
    expect(refusal(() => parseDiffOptions({ failOn: "x".repeat(500) })).message.length).toBeLessThan(200);
  });

  test("accepts exactly what the diff endpoint's published query schema accepts", () => {
    const schema = diffReportsOperation.query;
    const schemaAccepts = (query: Record<string, string>) =>
      Value.Check(schema, Value.Convert(schema, { base: "none", ...query }));
    const parserAccepts = (raw: Parameters<typeof parseDiffOptions>[0]) => {
      try {
        parseDiffOptions(raw);
        return true;
      } catch {
        return false;
      }
    };
    for (const value of ["critical", "high", "medium", "low", "info", "none", "HIGH", "severe", "warn"])
      expect([value, parserAccepts({ failOn: value })]).toEqual([value, schemaAccepts({ fail_on: value })]);
    for (const value of ["0", "5", "2.5", "100", "100.5", "-1", "abc", "1e1"])
      expect([value, parserAccepts({ maxScoreDrop: value })]).toEqual([
        value,
        schemaAccepts({ max_score_drop: value }),
      ]);
  });
});

describe("parseBaseline", () => {
  test("latest by default, none, or a report id", () => {
    expect(parseBaseline(undefined, "--baseline")).toBe("latest");
    expect(parseBaseline(" ", "--baseline")).toBe("latest");
    expect(parseBaseline("none", "--baseline")).toBe("none");
    expect(parseBaseline("rep_01hzx8m3k2v7q9w4e5r6t7y8u9", "--baseline")).toBe("rep_01hzx8m3k2v7q9w4e5r6t7y8u9");
  });

  test("anything else is refused before a report is paid for", () => {
    const error = refusal(() => parseBaseline("previous", "Input baseline"));
    expect(error.option).toBe("baseline");
    expect(error.message).toBe('Input baseline must be "latest", "none" or a report id (rep_…), got "previous".');
  });
});

describe("the query the Action and the CLI send", () => {
  test("budgets in base units, plain numbers, that parse back to the same limits", () => {
    const budgets = parseBudgets("ttfb_ms=0.8s, html_bytes=1.5MiB, score=80, html_download_ms=0.0000001");
    const text = formatBudgets(budgets);
    expect(text).toBe("ttfb_ms=800,html_bytes=1572864,score=80,html_download_ms=0.0000001");
    expect(parseBudgets(text)).toEqual(budgets);
  });

  test("the options as query parameters; no score limit and no budgets are left out", () => {
    expect(diffQuery(parseDiffOptions({}))).toEqual({ fail_on: "high" });
    expect(diffQuery(parseDiffOptions({ failOn: "none", maxScoreDrop: "3", budgets: "html_bytes=250kB" }))).toEqual({
      fail_on: "none",
      max_score_drop: "3",
      budgets: "html_bytes=250000",
    });
  });
});
