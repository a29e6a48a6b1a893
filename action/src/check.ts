/**
 * The one `check` pipeline of the Action and the CLI: wait for the site (optional) → generate a
 * report (with an Idempotency-Key) → the service compares it with the baseline (its rule, its
 * engine: GET /api/report/{id}/diff) → one result. The Action (annotations, job summary, PR
 * comment, outputs) and the CLI (text, JSON, SARIF, exit code) only render it differently.
 */

import { ApiError, type GenerateReportInput, idempotencyKeyFor, type WpreportClient } from "../../shared/client.ts";
import { assertionFor, failingChecks } from "../../shared/diff.ts";
import { type Baseline, diffQuery, isSeverity, type ParsedDiffOptions } from "../../shared/diff-options.ts";
import type { Diff } from "../../shared/diff-schema.ts";
import {
  type AnalysisMode,
  type Check,
  type Report,
  type ReportMetadata,
  SEVERITIES,
  type Severity,
} from "../../shared/report.ts";
import { type UnseenSite, unseenSite } from "../../shared/report-sight.ts";
import type { SiteAuth } from "../../shared/site-auth.ts";
import { oneLine } from "../../shared/untrusted-text.ts";
import { type VulnerabilityDataNotice, vulnerabilityDataNotice } from "../../shared/vulnerability-data.ts";
import { defaultBranchRef } from "./default-branch.ts";
import { type LabRequest, labBody } from "./lab-options.ts";
import { reportApiUrl, reportUrl } from "./links.ts";
import { notWordPressNotice } from "./notices.ts";
import { waitForSite } from "./wait-for-site.ts";

/** What the pipeline asks of the API client: a WpreportClient, or a fake in tests. */
export type CheckClient = Pick<WpreportClient, "generateReport" | "diff">;

export interface CheckRequest {
  /** The service's origin (the Action's `api-url`, WPREPORT_API_URL), for the report's links. */
  apiUrl: string;
  url: string;
  /** Absent: the service's default (passive). */
  mode?: AnalysisMode;
  /** A lab run (lab-options.ts); absent: none. */
  lab?: LabRequest;
  environment?: string;
  baseline: Baseline;
  diffOptions: ParsedDiffOptions;
  /** Seconds to wait for the site to answer before asking for the report; 0 or absent: do not wait. */
  waitForSiteSeconds?: number;
  /** The CI's variables: the report's metadata and the Idempotency-Key come from them. */
  env: Record<string, string | undefined>;
  /** The Action's `matrix` input: part of the Idempotency-Key, so that each matrix job makes its own report. */
  matrix?: string;
  /** Credentials of a protected (staging) site: sent with the request, kept out of the Idempotency-Key. */
  siteAuth?: SiteAuth;
  /** A staging site's certificate rule (inputs tls, tls-ca): its own origin only. */
  tls?: "insecure";
  tlsCa?: string;
}

/** What the pipeline says while it runs; the Action writes it to the log, the CLI to stderr. */
export interface CheckEvents {
  log(line: string): void;
  /** A warning; `title` names it where the output has titles (the Action's annotations). */
  warn(message: string, title?: string): void;
  /**
   * The report exists (and is paid for, unless `replayed`): said before the comparison, so
   * that a failure after this still names the report.
   */
  reported(report: Report, replayed: boolean): void;
}

/**
 * The gate's outcome for one site: the service's verdict (`pass`, `fail`), or `error` when the
 * report could not see the site (report-sight.ts) — whatever the verdict, since a report that
 * graded a 401 or challenge page says nothing about the site, and "pass" would be a claim.
 */
export type Outcome = "pass" | "fail" | "error";

export interface CheckResult {
  report: Report;
  outcome: Outcome;
  /** Why the report could not see the site, in its own words (then `outcome` is error); null when it did. */
  unseen: UnseenSite | null;
  /** The service answered with the report of an earlier identical request (same Idempotency-Key): not charged again. */
  replayed: boolean;
  /** The service's comparison and verdict; `base_id` is the baseline, null when there was none. */
  diff: Diff;
  links: { report: string; api: string };
  /** The report's own statement that the site is not WordPress (notices.ts), or null. */
  notWordPress: string | null;
  /** The report's statement that no vulnerability source answered, or not for every component; null when complete. */
  vulnerabilityData: VulnerabilityDataNotice | null;
  /** Without a baseline nothing is a regression: the checks failing now, most severe first (else empty). */
  failing: Check[];
  /**
   * Without a baseline: the failing checks at `fail-on` or above that no assertion decides —
   * already present, so fail-on (which judges changes) does not fail on them (else empty).
   */
  present: Check[];
  /** Epoch ms around the report request: the service's share of the run's time. */
  timing: { requested: number; received: number };
}

/**
 * The report's metadata from the CI's variables: GitHub's, then GitLab's, Bitbucket's and
 * Jenkins' (BRANCH_NAME in a multibranch pipeline, else the Git plugin's GIT_BRANCH). Cut to
 * the lengths the service takes, so that a long ref never costs a run. The ref is stored as
 * each system names it (refs/heads/main on GitHub, main elsewhere): default-branch.ts asks
 * for the default branch's reports in the same form.
 */
export function ciMetadata(env: Record<string, string | undefined>, environment: string | undefined): ReportMetadata {
  const metadata: ReportMetadata = {};
  const sha = env.GITHUB_SHA ?? env.CI_COMMIT_SHA ?? env.BITBUCKET_COMMIT ?? env.GIT_COMMIT;
  const ref =
    env.GITHUB_REF ??
    env.CI_COMMIT_REF_NAME ??
    env.BITBUCKET_BRANCH ??
    env.BITBUCKET_TAG ??
    env.BRANCH_NAME ??
    env.GIT_BRANCH;
  if (sha) metadata.git_sha = sha.slice(0, 64);
  if (ref) metadata.git_ref = ref.slice(0, 255);
  if (environment) metadata.environment = environment;
  const githubRun =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
      : undefined;
  // BITBUCKET_GIT_HTTP_ORIGIN is http://bitbucket.org/<workspace>/<repo>; its page is on https.
  const bitbucketRun =
    env.BITBUCKET_GIT_HTTP_ORIGIN && env.BITBUCKET_BUILD_NUMBER
      ? `${env.BITBUCKET_GIT_HTTP_ORIGIN.replace(/^http:/, "https:")}/pipelines/results/${env.BITBUCKET_BUILD_NUMBER}`
      : undefined;
  const runUrl = githubRun ?? env.CI_PIPELINE_URL ?? bitbucketRun ?? env.BUILD_URL;
  if (runUrl) metadata.ci_run_url = runUrl.slice(0, 2048);
  return metadata;
}

export async function check(
  client: CheckClient,
  request: CheckRequest,
  events: CheckEvents,
  wait: typeof waitForSite = waitForSite,
): Promise<CheckResult> {
  const seconds = request.waitForSiteSeconds ?? 0;
  if (seconds > 0) {
    events.log(`Waiting up to ${seconds} s for ${request.url} to answer…`);
    if (!(await wait(request.url, seconds, events.log)))
      events.warn(`${request.url} did not answer within ${seconds} s; asking for the report anyway.`);
  }

  const requested = Date.now();
  const body: GenerateReportInput = {
    url: request.url,
    metadata: ciMetadata(request.env, request.environment),
    ...(request.mode ? { mode: request.mode } : {}),
    ...(request.siteAuth ? { site_auth: request.siteAuth } : {}),
    ...(request.tls ? { tls: request.tls } : {}),
    ...(request.tlsCa ? { tls_ca: request.tlsCa } : {}),
    ...labBody(request.lab),
  };
  const { report, replayed } = await client.generateReport(body, {
    idempotencyKey: idempotencyKeyFor(request.env, body, { matrix: request.matrix }),
  });
  const received = Date.now();
  events.reported(report, replayed);
  // A report that could not see the site (a 401, a challenge page) says so itself; its checks
  // graded that page, so "not WordPress" and what "runs on" would be about the page, not the site.
  const unseen = unseenSite(report);
  const notWordPress = unseen ? null : notWordPressNotice(report);
  if (notWordPress) events.warn(notWordPress, "wpreport: not WordPress");
  // "No known vulnerability" must not be read into a report where no source answered.
  const vulnerabilityData = vulnerabilityDataNotice(report);
  if (vulnerabilityData) {
    events.warn(
      oneLine(`${report.final_url ?? report.url}: ${vulnerabilityData.message}`, 1_000),
      `wpreport: ${vulnerabilityData.title.toLowerCase()}`,
    );
  }

  // The service decides the baseline (its one rule) and compares with its one engine; on a
  // pull request it prefers the default branch's passing reports.
  const query = diffQuery(request.diffOptions);
  const preferRef = request.baseline === "last-passing" ? defaultBranchRef(request.env) : undefined;
  if (preferRef !== undefined) query.prefer_ref = preferRef;
  let diff: Diff;
  try {
    diff = await client.diff(report.id, request.baseline, query);
  } catch (error) {
    // A service older than API 1.4.0 reads `last-passing` as a report id and answers 404 for
    // the report just made: compare with its own rule rather than fail a paid-for report, and
    // say so, since that rule lets a failing report become the baseline.
    if (!(request.baseline === "last-passing" && error instanceof ApiError && error.status === 404)) throw error;
    events.warn(
      "The wpreport service does not know the baseline last-passing (it is older than API 1.4.0), so this report is compared with the newest earlier one, whether or not that passed. Update the service.",
      "wpreport: service too old for last-passing",
    );
    delete query.prefer_ref;
    diff = await client.diff(report.id, "latest", query);
  }
  if (diff.assertions.rules.length !== request.diffOptions.assertions.length)
    events.warn(
      "The wpreport service did not apply the assertions (it is older than API 1.4.0): only fail-on, max-score-drop and budgets decided. Update the service.",
      "wpreport: assertions not applied",
    );
  const failing = diff.base_id || unseen ? [] : failingChecks(report);
  const present = alreadyPresent(failing, request.diffOptions.failOn, diff);
  if (present.length > 0) events.warn(alreadyPresentText(report, present, request.diffOptions.failOn), ALREADY_PRESENT);
  return {
    report,
    outcome: unseen ? "error" : diff.verdict.result,
    unseen,
    replayed,
    diff,
    links: { report: reportUrl(request.apiUrl, report.id), api: reportApiUrl(request.apiUrl, report.id) },
    notWordPress,
    vulnerabilityData,
    failing,
    present,
    timing: { requested, received },
  };
}

/** The title of the first run's warning about findings fail-on does not gate. */
export const ALREADY_PRESENT = "wpreport: findings already present (no baseline)";

/** critical = 0 … info = 4: lower is more severe. */
const rank = (severity: Severity) => SEVERITIES.indexOf(severity);

/** Failing checks at fail-on or above that no assertion decides (an `error` one fails on them already). */
export function alreadyPresent(failing: Check[], failOn: string, diff: Pick<Diff, "assertions">): Check[] {
  if (!isSeverity(failOn)) return [];
  return failing.filter(
    (check) => rank(check.severity) <= rank(failOn) && !assertionFor(check.id, diff.assertions.rules),
  );
}

/** At most this many check ids named in the warning (the job summary lists them all). */
const PRESENT_NAMED = 10;

/**
 * The first run's warning: fail-on judges changes against a baseline, so on a first run it
 * fails on nothing — these findings are already there, and this is how to gate on them.
 */
export function alreadyPresentText(report: Report, present: Check[], failOn: string): string {
  const named = present.slice(0, PRESENT_NAMED).map((check) => `${check.id} (${check.severity})`);
  const more = present.length > PRESENT_NAMED ? ` and ${present.length - PRESENT_NAMED} more` : "";
  const [first] = present;
  return oneLine(
    `${report.final_url ?? report.url}: no baseline, and fail-on judges changes against one, so nothing fails this run — but ${present.length} finding${present.length === 1 ? " is" : "s are"} at ${failOn} or above already: ${named.join(", ")}${more}. To fail while they fail, baseline or not, assert them, e.g. assert: "${first?.id ?? "security.*"}: error" (CLI: --assert "${first?.id ?? "security.*"}=error"; docs/diff.md#assertions).`,
    2_000,
  );
}
