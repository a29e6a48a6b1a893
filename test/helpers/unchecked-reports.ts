/**
 * Real reports of the WordPress fixture whose vulnerability data is not complete, for the tests
 * that every output says so ("unknown reads as unknown"): the service asks a local stand-in for
 * WPVulnerability (in its real format, test/platform/intel/wpvulnerability-stub.ts) with no
 * Wordfence key, and
 * - "none": the stub answers every lookup with a 502, so no source answered;
 * - "partial": only akismet's lookup fails (core, the theme and xrds-simple are answered; the
 *   stub lists advisories for core and the theme).
 *
 * Each report is a site of its own in the portfolio: the same URL with the environment
 * `none-data` or `partial-data`.
 *
 * Checks that could not run (`not_checked`, report schema 1.5.0) come from the analyzer's
 * challenge and block handling; `markNotChecked` writes them into a stored report, as a report
 * of that schema holds them, for the readers that show them.
 */

import type { Report } from "../../shared/report.ts";
import { startWpvulnerabilityStub, type WpvulnerabilityStub } from "../platform/intel/wpvulnerability-stub.ts";
import { WORDPRESS_URL } from "./env.ts";
import { generateReport } from "./generate.ts";
import type { TestService } from "./service.ts";

export const NONE_ENVIRONMENT = "none-data";
export const PARTIAL_ENVIRONMENT = "partial-data";

/** The service's environment for asking the stub (start the stub first). */
export function stubEnv(stub: WpvulnerabilityStub): Record<string, string> {
  return { WPVULNERABILITY_API_URL: stub.url, INTEL_LOOKUP_BUDGET_MS: "3000" };
}

export { startWpvulnerabilityStub, type WpvulnerabilityStub };

/** A report with vulnerability data "none": every lookup fails. */
export async function noneReport(
  service: TestService,
  stub: WpvulnerabilityStub,
  token: string,
  environment = NONE_ENVIRONMENT,
): Promise<Report> {
  // Answers and failures are cached; a fresh start asks again.
  await service.db.sql`delete from intel_wpvulnerability`;
  stub.mode = "down";
  try {
    const report = await generateReport(service, token, { url: WORDPRESS_URL, metadata: { environment } });
    if (report.intel?.vulnerability_data?.status !== "none")
      throw new Error(`expected no vulnerability data, got ${JSON.stringify(report.intel?.vulnerability_data)}`);
    return report;
  } finally {
    stub.mode = "ok";
  }
}

/** A report with vulnerability data "partial": akismet's lookup fails, the others are answered. */
export async function partialReport(
  service: TestService,
  stub: WpvulnerabilityStub,
  token: string,
  environment = PARTIAL_ENVIRONMENT,
): Promise<Report> {
  await service.db.sql`delete from intel_wpvulnerability`;
  stub.failing.add("akismet");
  try {
    const report = await generateReport(service, token, { url: WORDPRESS_URL, metadata: { environment } });
    const data = report.intel?.vulnerability_data;
    if (data?.status !== "partial" || !data.unchecked.some((gap) => gap.slug === "akismet"))
      throw new Error(`expected akismet unchecked, got ${JSON.stringify(data)}`);
    return report;
  } finally {
    stub.failing.delete("akismet");
  }
}

/** A check that could not run, as the analyzer states it (report schema 1.5.0). */
export const NOT_CHECKED_ENTRY = {
  check: "security.git_exposed",
  reason: "a firewall challenge answered /.git/HEAD: not checked",
};

/** Writes `not_checked` (and `summary.not_checked`) into a stored report, as schema 1.5.0 holds them. */
export async function markNotChecked(service: TestService, reportId: string): Promise<void> {
  const entries = service.db.sql`jsonb_build_array(jsonb_build_object(
    'check', ${NOT_CHECKED_ENTRY.check}::text, 'reason', ${NOT_CHECKED_ENTRY.reason}::text))`;
  const updated = await service.db.sql`
    update reports set body = jsonb_set(jsonb_set(body, '{not_checked}', ${entries}), '{summary,not_checked}', '1'::jsonb)
    where id = ${reportId} returning id`;
  if (updated.length !== 1) throw new Error(`report ${reportId} not found`);
}
