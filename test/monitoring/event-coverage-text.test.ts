/**
 * What a report did not check, in events (shared/report-coverage.ts through report-payload.ts
 * and event-text.ts): the `report` of report.completed carries it beside the grade, and the
 * words people read (Slack, e-mail, the digest, the delivery log) add a line for it — an
 * incomplete report's title says it was not graded. Events emitted before these fields existed
 * read as they did.
 */
import { describe, expect, test } from "bun:test";
import { assertEventData } from "../../server/monitoring/events/event.service.ts";
import { describeEvent } from "../../server/monitoring/events/event-text.ts";
import { eventReport } from "../../server/monitoring/events/report-payload.ts";
import type { Report } from "../../shared/report.ts";
import { reportWith } from "../helpers/reports.ts";
import { reportCompleted } from "./helpers.ts";

const BASE = "https://wpreport.example.com";

function report(overrides: Partial<Report>): Report {
  return reportWith({
    id: "rep_01m8bq00000000000000000000",
    schema_version: "1.5.0",
    status: "completed",
    url: "https://client-a.example/",
    final_url: "https://client-a.example/",
    created_at: "2026-11-26T07:00:00.000Z",
    completed_at: "2026-11-26T07:00:12.000Z",
    duration_ms: 12_000,
    metadata: { environment: "production" },
    summary: {
      score: 91,
      grade: "A",
      categories: { performance: 90, seo: 90, security: 95, components: 90 },
      failed: { critical: 0, high: 0, medium: 0, low: 1, info: 0 },
    },
    intel: { sources: [], vulnerability_data: { status: "complete", message: null, unchecked: [] } },
    ...overrides,
  });
}

describe("what a report did not check, in events", () => {
  test("complete, nothing skipped: the fields say so and no line is added", () => {
    const data = { report: eventReport(report({}), BASE), monitor_id: null };
    assertEventData("report.completed", data);
    expect(data.report).toMatchObject({
      incomplete: false,
      vulnerability_data: "complete",
      vulnerabilities_unchecked: [],
      not_checked: 0,
    });
    expect(describeEvent("report.completed", data)).toMatchObject({
      title: "Report completed: https://client-a.example/ (production) — grade A, score 91",
      lines: [],
    });
  });

  test("no vulnerability data and two checks that could not run: both said under the grade", () => {
    const data = {
      report: eventReport(
        report({
          summary: { ...report({}).summary, not_checked: 2 } as Report["summary"],
          not_checked: [
            { check: "security.git_exposed", reason: "a firewall challenge answered /.git/HEAD: not checked" },
            { check: "security.env_file_exposed", reason: "a firewall challenge answered /.env: not checked" },
          ],
          intel: { sources: [], vulnerability_data: { status: "none", message: "No source answered.", unchecked: [] } },
        }),
        BASE,
      ),
      monitor_id: null,
    };
    assertEventData("report.completed", data);
    expect(data.report).toMatchObject({ vulnerability_data: "none", not_checked: 2 });
    expect(describeEvent("report.completed", data).lines).toEqual([
      "Vulnerabilities not checked: no vulnerability data",
      "2 checks could not run",
    ]);
  });

  test("partial: the components not checked are named (the site's slugs cleaned, long lists counted)", () => {
    const unchecked = ["akismet", "a\u202Eb", "c", "d", "e", "f", "g"].map((slug) => ({
      type: "plugin" as const,
      slug,
      reason: "WPVulnerability answered HTTP 502",
    }));
    const data = {
      report: eventReport(
        report({ intel: { sources: [], vulnerability_data: { status: "partial", message: null, unchecked } } }),
        BASE,
      ),
      monitor_id: null,
    };
    expect(describeEvent("report.completed", data).lines).toEqual([
      "Vulnerabilities partly checked: no vulnerability data for plugin akismet, plugin a b, plugin c, plugin d, plugin e and 2 more",
    ]);
  });

  test("an incomplete report: not graded, nothing checked", () => {
    const data = {
      report: eventReport(
        report({
          summary: null,
          errors: [{ stage: "analysis", kind: "incomplete", message: "The homepage asks for credentials (HTTP 401)." }],
        }),
        BASE,
      ),
      monitor_id: null,
    };
    assertEventData("report.completed", data);
    expect(data.report).toMatchObject({ incomplete: true, vulnerability_data: "none", grade: null });
    expect(describeEvent("report.completed", data)).toMatchObject({
      title: "Report incomplete: https://client-a.example/ (production) — not graded",
      lines: ["Vulnerabilities not checked: the report is incomplete"],
    });
  });

  test("an event stored before these fields existed reads as it did", () => {
    expect(describeEvent("report.completed", reportCompleted()).lines).toEqual([]);
  });
});
