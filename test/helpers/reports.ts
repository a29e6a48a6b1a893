/**
 * A report built by hand, for tests of what reads a stored report (events, pages, exports):
 * every field a report has, with nothing found and nothing checked; the test's `fields` set
 * what it is about.
 */
import type { Report } from "../../shared/report.ts";

/** The findings a report holds as null when it found nothing (shared/report.ts). */
const NOT_FOUND = ["summary", "wordpress", "theme", "hosting", "performance", "seo", "security", "intel"] as const;

export function reportWith(fields: Partial<Report>): Report {
  return {
    ...Object.fromEntries(NOT_FOUND.map((field) => [field, null])),
    plugins: [],
    checks: [],
    errors: [],
    redirects: [],
    metadata: {},
    ...fields,
  } as Report;
}
