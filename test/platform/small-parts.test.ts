/** Ids, quota periods, problem bodies and log redaction. */
import { describe, expect, test } from "bun:test";
import { siteText } from "../../server/analyzer/untrusted-text.ts";
import { ApiProblem, problemBody, problemResponse } from "../../server/platform/http/problem.ts";
import { isId, newId } from "../../server/platform/ids.ts";
import { createLogger } from "../../server/platform/logger.ts";
import { quotaPeriod } from "../../server/platform/quota-period.ts";

describe("ids", () => {
  test("prefix + 26 base32 characters, sortable by time, random tail", () => {
    const a = newId("rep", 1_700_000_000_000);
    const b = newId("rep", 1_700_000_000_001);
    expect(a).toMatch(/^rep_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(a < b).toBe(true);
    expect(isId("rep", a)).toBe(true);
    expect(isId("tok", a)).toBe(false);
    expect(isId("rep", "rep_../../etc")).toBe(false);
    const same = new Set(Array.from({ length: 1000 }, () => newId("rep", 1)));
    expect(same.size).toBe(1000);
  });
});

describe("quota periods", () => {
  test("calendar months in UTC, resetting at 00:00 UTC on the 1st", () => {
    expect(quotaPeriod(new Date("2026-11-21T23:59:59Z"))).toEqual({
      key: "2026-11-01",
      start: new Date("2026-11-01T00:00:00Z"),
      end: new Date("2026-12-01T00:00:00Z"),
    });
    expect(quotaPeriod(new Date("2026-12-31T23:59:59.999Z")).end).toEqual(new Date("2027-01-01T00:00:00Z"));
    expect(quotaPeriod(new Date("2027-01-01T00:00:00Z")).key).toBe("2027-01-01");
    // 23:30 on 31 Jan in New York is already February in UTC.
    expect(quotaPeriod(new Date("2027-01-31T23:30:00-05:00")).key).toBe("2027-02-01");
  });
});

describe("problems", () => {
  test("RFC 9457 members, code, request id, extensions and headers", async () => {
    const problem = new ApiProblem("quota_exhausted", "All used.", {
      extensions: { resets_at: "2026-12-01T00:00:00.000Z" },
      headers: { "retry-after": "10" },
    });
    expect(problemBody(problem, "https://api.example", "req_1")).toEqual({
      type: "https://api.example/problems/quota_exhausted",
      title: "Monthly report quota exhausted",
      status: 402,
      detail: "All used.",
      code: "quota_exhausted",
      request_id: "req_1",
      resets_at: "2026-12-01T00:00:00.000Z",
    });
    const response = problemResponse(problem, "https://api.example", "req_1");
    expect(response.status).toBe(402);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("retry-after")).toBe("10");
  });

  test("extensions cannot override the standard members", () => {
    const problem = new ApiProblem("not_found", "x", { extensions: { status: 200, code: "ok" } });
    expect(problemBody(problem, "", "r")).toMatchObject({ status: 404, code: "not_found" });
  });
});

describe("logging", () => {
  test("one JSON object per line; secret-looking fields are redacted", () => {
    const lines: string[] = [];
    const logger = createLogger("info", (line) => lines.push(line));
    logger.debug("hidden");
    logger.info("request", {
      request_id: "req_1",
      authorization: "Bearer wpr_x",
      token: "wpr_y",
      password: "p",
      token_id: "tok_1",
    });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] as string);
    expect(entry).toMatchObject({ level: "info", msg: "request", request_id: "req_1", token_id: "tok_1" });
    expect(entry.authorization).toBe("[redacted]");
    expect(entry.token).toBe("[redacted]");
    expect(entry.password).toBe("[redacted]");
  });
});

describe("site text", () => {
  test("control and bidi characters removed, whitespace collapsed, length capped", () => {
    expect(siteText("a\u0000b\u202Ec\n\t d")).toBe("abc d");
    expect(siteText("x".repeat(500))).toHaveLength(300);
    expect(siteText(null)).toBe("");
  });
});
