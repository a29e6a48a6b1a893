/**
 * One parser for the diff's options (shared/diff-options.ts): the Action's inputs, the CLI's
 * flags, the API's query and the web compare page read fail-on, max-score-drop, budgets,
 * assertions and the baseline here, each naming the option its own way.
 */
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { diffReportsOperation } from "../../../server/reports/history.routes.ts";
import {
  DiffOptionsError,
  diffQuery,
  formatAssertions,
  formatBudgets,
  MAX_ASSERTIONS,
  type ParsedDiffOptions,
  parseAssertions,
  parseBaseline,
  parseBudgets,
  parseDiffOptions,
} from "../../../shared/diff-options.ts";

const FLAGS = {
  failOn: "--fail-on",
  maxScoreDrop: "--max-score-drop",
  budgets: "--budgets",
  assert: "--assert",
  baseline: "--baseline",
};

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
    const defaults: ParsedDiffOptions = { failOn: "high", maxScoreDrop: null, budgets: {}, assertions: [] };
    expect(parseDiffOptions({})).toEqual(defaults);
    expect(parseDiffOptions({ failOn: "", maxScoreDrop: " ", budgets: "" })).toEqual(defaults);
  });

  test("reads each option", () => {
    expect(parseDiffOptions({ failOn: "medium", maxScoreDrop: "5", budgets: "ttfb_ms=0.8s, score=80" })).toEqual({
      failOn: "medium",
      maxScoreDrop: 5,
      budgets: { ttfb_ms: 800, score: 80 },
      assertions: [],
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
    // The endpoint takes base as optional; the schema takes any short string, the parser only the baselines.
    expect(Value.Check(schema, {})).toBe(true);
  });
});

describe("parseAssertions (the assert option)", () => {
  test("check ids and globs with error, warn or off; commas, newlines, = or :, quotes and comments as YAML writes them", () => {
    const text = `
# gate on security, only warn on the meta description
security.*: error
"seo.meta_description": warn
'performance.*'=OFF, *.https : Error
`;
    expect(parseDiffOptions({ assert: text }).assertions).toEqual([
      { pattern: "security.*", level: "error" },
      { pattern: "seo.meta_description", level: "warn" },
      { pattern: "performance.*", level: "off" },
      { pattern: "*.https", level: "error" },
    ]);
    expect(parseAssertions("*: warn")).toEqual([{ pattern: "*", level: "warn" }]);
    expect(parseAssertions("")).toEqual([]);
  });

  test("refuses in plain words, naming the option as the caller does", () => {
    const cases: [string, string][] = [
      [
        "security.https",
        '--assert: "security.https" is not of the form check: level, e.g. security.*: error, seo.meta_description: warn.',
      ],
      [
        "security.https: fatal",
        '--assert: "security.https: fatal": the level must be error, warn or off, got "fatal".',
      ],
      [
        "security: error",
        '--assert: "security" is not a check id; a check id is category.name (seo.meta_description), and security.* is every check of a category.',
      ],
      [
        "security/https: error",
        '--assert: "security/https" is neither a check id (category.name, e.g. seo.meta_description) nor a glob of them (security.*, *).',
      ],
      ["seo.title: warn, SEO.title: error", '--assert: "seo.title" is given twice.'],
    ];
    for (const [text, message] of cases) {
      const error = refusal(() => parseDiffOptions({ assert: text }, FLAGS));
      expect(error.option).toBe("assert");
      expect(error.message).toBe(message);
    }
    expect(refusal(() => parseDiffOptions({ assert: "x" })).message).toStartWith("assert: ");
    const many = Array.from({ length: MAX_ASSERTIONS + 1 }, (_, i) => `seo.c${i}: warn`).join("\n");
    expect(refusal(() => parseDiffOptions({ assert: many })).message).toBe(
      `assert: at most ${MAX_ASSERTIONS} assertions.`,
    );
  });

  test("the query form parses back to the same assertions", () => {
    const assertions = parseAssertions("security.*: error\nseo.meta_description: warn\nperformance.ttfb: off");
    expect(formatAssertions(assertions)).toBe("security.*:error,seo.meta_description:warn,performance.ttfb:off");
    expect(parseAssertions(formatAssertions(assertions))).toEqual(assertions);
  });
});

describe("parseBaseline", () => {
  test("last-passing by default, latest, none, or a report id", () => {
    expect(parseBaseline(undefined, "--baseline")).toBe("last-passing");
    expect(parseBaseline(" ", "--baseline")).toBe("last-passing");
    expect(parseBaseline("latest", "--baseline")).toBe("latest");
    expect(parseBaseline("none", "--baseline")).toBe("none");
    expect(parseBaseline("rep_01hzx8m3k2v7q9w4e5r6t7y8u9", "--baseline")).toBe("rep_01hzx8m3k2v7q9w4e5r6t7y8u9");
  });

  test("anything else is refused before a report is paid for", () => {
    const error = refusal(() => parseBaseline("previous", "Input baseline"));
    expect(error.option).toBe("baseline");
    expect(error.message).toBe(
      'Input baseline must be "last-passing", "latest", "none" or a report id (rep_…), got "previous".',
    );
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
    expect(
      diffQuery(
        parseDiffOptions({
          failOn: "none",
          maxScoreDrop: "3",
          budgets: "html_bytes=250kB",
          assert: "security.*: error",
        }),
      ),
    ).toEqual({
      fail_on: "none",
      max_score_drop: "3",
      budgets: "html_bytes=250000",
      assert: "security.*:error",
    });
  });
});
