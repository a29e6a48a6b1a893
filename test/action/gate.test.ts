/**
 * The per-site verdict the CLI's JSON and the Action's `reports` output give (gate.ts's
 * siteVerdict): `result`, and `error` exactly when the site could not be checked — the API's
 * error, or a report that could not see the site.
 */
import { describe, expect, test } from "bun:test";
import type { CheckResult } from "../../action/src/check.ts";
import { type Site, siteVerdict } from "../../action/src/gate.ts";

const checked = (outcome: CheckResult["outcome"], unseen: CheckResult["unseen"] = null): Site => ({
  url: "https://shop.example/",
  result: { outcome, unseen } as CheckResult,
});

describe("siteVerdict", () => {
  test("a checked site: its outcome and no error", () => {
    expect(siteVerdict(checked("pass"))).toEqual({ result: "pass" });
    expect(siteVerdict(checked("fail"))).toEqual({ result: "fail" });
  });

  test("an API error: error, with the error's words", () => {
    expect(siteVerdict({ url: "https://shop.example/", error: "wpreport: quota exhausted" })).toEqual({
      result: "error",
      error: "wpreport: quota exhausted",
    });
  });

  test("a report that could not see the site: error, with the report's own statement", () => {
    const unseen = { message: "the homepage answered 401" } as CheckResult["unseen"];
    const verdict = siteVerdict(checked("error", unseen));
    expect(verdict).toEqual({ result: "error", error: "the report could not see the site: the homepage answered 401" });
  });
});
