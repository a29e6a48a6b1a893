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

  test("lab: the defaults filled in (mobile, Lighthouse's throttling, one load); lab settings without lab are refused", () => {
    expect(parseReportOptions({ lab: true })).toEqual({
      mode: "passive",
      lab: { device: "mobile", throttling: "default", runs: 1 },
    });
    expect(parseReportOptions({ lab: true, lab_device: "desktop", lab_throttling: "none", lab_runs: 3 })).toEqual({
      mode: "passive",
      lab: { device: "desktop", throttling: "none", runs: 3 },
    });
    expect(parseReportOptions({ lab: false })).toEqual({ mode: "passive" });
    expect(() => parseReportOptions({ lab_device: "desktop" })).toThrow('lab_device only apply with "lab": true.');
    expect(() => parseReportOptions({ lab: false, lab_runs: 2 })).toThrow("lab_runs");
  });
});
