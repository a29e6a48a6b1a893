/** A report's options are read once (server/reports/report-options.ts), with the one default. */
import { describe, expect, test } from "bun:test";
import { parseReportOptions } from "../../server/reports/report-options.ts";
import { DEFAULT_ANALYSIS_MODE } from "../../shared/report.ts";

describe("parseReportOptions", () => {
  test("no mode is the default mode, passive; a named mode is kept", () => {
    expect(DEFAULT_ANALYSIS_MODE).toBe("passive");
    expect(parseReportOptions({})).toEqual({ mode: "passive" });
    expect(parseReportOptions({ mode: "passive" })).toEqual({ mode: "passive" });
    expect(parseReportOptions({ mode: "aggressive" })).toEqual({ mode: "aggressive" });
  });

  test("site credentials are kept when there are some; an empty site_auth is none", () => {
    const basic = { basic: { username: "staging", password: "s3cret-pass" } };
    expect(parseReportOptions({ site_auth: basic })).toEqual({ mode: "passive", siteAuth: basic });
    expect(parseReportOptions({ mode: "aggressive", site_auth: {} })).toEqual({ mode: "aggressive" });
    expect(parseReportOptions({ site_auth: { headers: {}, cookies: {} } })).toEqual({ mode: "passive" });
  });
});
