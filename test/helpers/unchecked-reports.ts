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
import { startTestService, type TestService } from "./service.ts";

export const NONE_ENVIRONMENT = "none-data";
export const PARTIAL_ENVIRONMENT = "partial-data";

/** The service's environment for asking the stub (start the stub first). */
export function stubEnv(stub: WpvulnerabilityStub): Record<string, string> {
  return { WPVULNERABILITY_API_URL: stub.url, INTEL_LOOKUP_BUDGET_MS: "3000" };
}

export type { WpvulnerabilityStub };

/** The stub, and a real service that asks it (`options` as startTestService's, `env` added to stubEnv's). */
export async function startServiceWithStub(
  options: Parameters<typeof startTestService>[0] = {},
): Promise<{ stub: WpvulnerabilityStub; service: TestService }> {
  const stub = startWpvulnerabilityStub();
  try {
    const service = await startTestService({ ...options, env: { ...stubEnv(stub), ...options.env } });
    return { stub, service };
  } catch (error) {
    stub.stop();
    throw error;
  }
}

/**
 * A report of the fixture made while `fail` has the stub fail some lookups (it returns what
 * undoes that), checked to hold the vulnerability data `expected` asks for.
 */
async function reportWhile(
  service: TestService,
  token: string,
  environment: string,
  fail: () => () => void,
  expected: { status: "none" | "partial"; unchecked?: string },
): Promise<Report> {
  // Answers and failures are cached; a fresh start asks again.
  await service.db.sql`delete from intel_wpvulnerability`;
  const undo = fail();
  try {
    const report = await generateReport(service, token, { url: WORDPRESS_URL, metadata: { environment } });
    const data = report.intel?.vulnerability_data;
    const gap = expected.unchecked;
    if (data?.status !== expected.status || (gap !== undefined && !data.unchecked.some(({ slug }) => slug === gap)))
      throw new Error(`expected vulnerability data ${JSON.stringify(expected)}, got ${JSON.stringify(data)}`);
    return report;
  } finally {
    undo();
  }
}

/** How each report is made to lack data: what makes the stub fail (returning what undoes it), and the data it then holds. */
const GAPS = {
  /** Every lookup fails: no source answered. */
  none: {
    environment: NONE_ENVIRONMENT,
    fail: (stub: WpvulnerabilityStub) => {
      stub.mode = "down";
      return () => {
        stub.mode = "ok";
      };
    },
    expected: { status: "none" },
  },
  /** Akismet's lookup fails, the others are answered. */
  partial: {
    environment: PARTIAL_ENVIRONMENT,
    fail: (stub: WpvulnerabilityStub) => {
      stub.failing.add("akismet");
      return () => stub.failing.delete("akismet");
    },
    expected: { status: "partial", unchecked: "akismet" },
  },
} as const;

/**
 * The two reports the views are tested with, for the account of `token`: "none", and
 * "partial" — with one check that could not run when `notChecked` (markNotChecked).
 */
export async function uncheckedReports(
  service: TestService,
  stub: WpvulnerabilityStub,
  token: string,
  options: { notChecked?: boolean } = {},
): Promise<{ none: Report; partial: Report }> {
  const make = ({ environment, fail, expected }: (typeof GAPS)[keyof typeof GAPS]) =>
    reportWhile(service, token, environment, () => fail(stub), expected);
  const none = await make(GAPS.none);
  const partial = await make(GAPS.partial);
  if (options.notChecked) await markNotChecked(service, partial.id);
  return { none, partial };
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
