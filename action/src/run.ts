/**
 * The Action: the check pipeline (check.ts: generate a report, the service compares it with
 * the baseline) for each site — `url`, or each of `urls` —, then set the outputs, write the
 * SARIF file from the same reports, annotate, summarise, optionally comment on the PR, and
 * fail the job exactly when a verdict says (one verdict for the step: it fails when any site
 * fails or could not be checked).
 */
import { type ClientOptions, WpreportClient } from "../../shared/client.ts";
import type { Report } from "../../shared/report.ts";
import { oneLine } from "../../shared/untrusted-text.ts";
import { type ActionCore, actionsCore } from "./action-core.ts";
import { annotate, annotationsFor, annotationsForSites } from "./annotations.ts";
import type { CheckClient, CheckResult } from "./check.ts";
import { errorText, type Gate, runGate, type Site, siteVerdict } from "./gate.ts";
import { type Inputs, readInputs } from "./inputs.ts";
import { reportApiUrl, reportUrl } from "./links.ts";
import { upsertPrComment } from "./pr-comment.ts";
import { sarifLocation, writeSarifFile } from "./sarif-file.ts";
import { VERSION } from "./version.ts";

export const ACTION_VERSION = VERSION;

/**
 * Site text for a log line: one line (no control characters) and no `##[` (the runner's
 * legacy command prefix). The line starts with our own text, so `::` in the site text cannot
 * start a workflow command either.
 */
function logSafe(text: string, max: number): string {
  return oneLine(text, max).replace(/##\[/g, "##\u200b[");
}

/** Log lines shown without a baseline: the checks failing now, most severe first. */
const FAILING_LOG_LINES = 20;

/** What run() works with: the runner, the API client, GitHub's API. Fakes in test/action/run.test.ts. */
export interface ActionDeps {
  core: ActionCore;
  createClient(options: ClientOptions): CheckClient & { close(): void };
  upsertPrComment: typeof upsertPrComment;
}

const RUNNER: ActionDeps = {
  core: actionsCore,
  createClient: (options) => new WpreportClient(options),
  upsertPrComment,
};

export async function run(env: NodeJS.ProcessEnv = process.env, deps: ActionDeps = RUNNER): Promise<void> {
  const { core } = deps;
  const started = Date.now();
  let inputs: Inputs;
  try {
    inputs = readInputs(core);
  } catch (error) {
    core.setOutput("result", "error");
    core.setFailed((error as Error).message);
    return;
  }
  const client = deps.createClient({
    apiUrl: inputs.apiUrl,
    token: inputs.token,
    userAgent: `wpreport-action/${ACTION_VERSION}`,
    deadline: started + inputs.timeoutSeconds * 1000,
    onRetry: ({ attempt, waitMs, reason }) =>
      core.info(`wpreport: ${reason}; retrying in ${Math.round(waitMs / 1000)} s (attempt ${attempt})`),
  });
  // With several sites, every line, annotation and output names its site.
  const several = inputs.urls.length > 1;
  try {
    const gate = await runGate(
      client,
      { ...inputs, env },
      {
        log: (line) => core.info(line),
        warn: (message, title) => core.warning(message, title ? { title } : {}),
        reported: (site, made, replayed) => {
          core.info(
            `wpreport: ${several ? `${site.url}: ` : ""}report ${made.id}${replayed ? " (this step already made the same request in this run attempt: its report, not charged again)" : ""}: score ${made.summary?.score ?? "—"} (${made.summary?.grade ?? "—"})`,
          );
        },
        done: (site) => {
          const named = several ? `${site.url}: ` : "";
          if (site.result) logBaseline(core, site.result, named);
          else if (several) core.info(`wpreport: ${named}could not check: ${site.error}`);
        },
      },
    );

    // Outputs first: whatever happens to the SARIF file, the summary or the PR comment, later
    // steps can read what this step made (and paid for).
    setOutputs(core, gate, inputs);
    writeSarif(core, gate.reports, inputs, env);
    const { sites, summary } = gate;

    const checked = sites.filter((site): site is Site & { result: CheckResult } => site.result !== undefined);
    // A report that could not see its site graded a 401 or challenge page: its regressions are
    // that page's, not the site's. Its own error is the annotation (the failure message, last).
    const seen = checked.filter((site) => site.result.unseen === null);
    const [only] = seen;
    annotate(
      several
        ? annotationsForSites(seen.map(({ url, result }) => ({ url, diff: result.diff })))
        : only
          ? annotationsFor(only.result.diff)
          : [],
      core,
    );
    try {
      await core.writeSummary(summary());
    } catch (error) {
      // No GITHUB_STEP_SUMMARY (a runner or a local runner without it): the report, the
      // outputs and the verdict do not depend on it.
      core.warning(
        `Could not write the job summary: ${(error as Error).message.replace(/\.$/, "")}. The outputs are set and the verdict stands; the log has the result.`,
        { title: "wpreport: no job summary" },
      );
    }

    if (inputs.commentOnPr && (several || checked.length > 0)) {
      try {
        const outcome = await deps.upsertPrComment(inputs.githubToken, inputs.urls.join("\n"), summary(20));
        if (outcome) core.info(`wpreport: PR comment ${outcome}`);
        else core.info("wpreport: not a pull request event; no comment posted");
      } catch (error) {
        core.warning(
          `Could not post the PR comment: ${(error as Error).message}. Does the workflow grant pull-requests: write?`,
        );
      }
    }

    const first = checked[0]?.result.timing;
    if (first && !several) {
      const overhead = first.requested - started + (Date.now() - first.received);
      core.info(`wpreport: action overhead ${overhead} ms (service ${first.received - first.requested} ms)`);
    }
    if (gate.failure) core.setFailed(gate.failure);
  } catch (error) {
    core.setOutput("result", "error");
    core.setFailed(errorText(error));
  } finally {
    client.close();
  }
}

/** What the log says about the baseline: which report and why, or — without one — the checks failing now. */
function logBaseline(core: ActionCore, { diff, failing, unseen }: CheckResult, named: string): void {
  if (diff.base_id)
    core.info(
      `wpreport: ${named}comparing with ${diff.base_id} (${diff.baseline.rule}): ${logSafe(diff.baseline.reason, 500)}`,
    );
  else core.info(`wpreport: ${named}no baseline (${diff.baseline.rule}): ${logSafe(diff.baseline.reason, 500)}`);
  // Its checks graded the page the site answered with (a 401, a challenge): not "no check fails".
  if (unseen) {
    core.info(`wpreport: ${named}the report could not see the site: ${logSafe(unseen.message, 1_000)}`);
    return;
  }
  if (diff.base_id) return;
  core.info(
    `wpreport: ${named}no baseline to compare with, so nothing is a regression; ${failing.length === 0 ? "no check fails" : `${failing.length} check${failing.length === 1 ? " fails" : "s fail"} now:`}`,
  );
  for (const failed of failing.slice(0, FAILING_LOG_LINES))
    core.info(`  [${failed.severity}] ${failed.id}: ${failed.status} — ${logSafe(failed.message, 300)}`);
  if (failing.length > FAILING_LOG_LINES)
    core.info(`  …and ${failing.length - FAILING_LOG_LINES} more (see the job summary)`);
}

/**
 * The outputs. One site: its values. Several: `report-id`, `report-url`, `report-api-url`,
 * `score` and `grade` hold one line per site in the order of `urls` (empty for a site without
 * a report), `regressions` the total; `reports` is a JSON array naming each site. `result` is
 * `error` when a site could not be checked, else `fail` when one failed, else `pass`.
 */
function setOutputs(core: ActionCore, { sites, outcome }: Gate, inputs: Inputs): void {
  const made = sites.filter((site) => site.report !== undefined);
  if (made.length > 0) {
    const each = (value: (site: Site, report: Report) => string) =>
      sites.map((site) => (site.report ? value(site, site.report) : "")).join("\n");
    core.setOutput(
      "report-id",
      each((_, report) => report.id),
    );
    core.setOutput(
      "report-url",
      each((_, report) => reportUrl(inputs.apiUrl, report.id)),
    );
    core.setOutput(
      "report-api-url",
      each((_, report) => reportApiUrl(inputs.apiUrl, report.id)),
    );
    core.setOutput(
      "score",
      each((_, report) => String(report.summary?.score ?? "")),
    );
    core.setOutput(
      "grade",
      each((_, report) => report.summary?.grade ?? ""),
    );
    const checked = sites.filter((site) => site.result !== undefined);
    if (checked.length > 0)
      core.setOutput(
        "regressions",
        String(checked.reduce((sum, site) => sum + (site.result?.diff.regressions.length ?? 0), 0)),
      );
    core.setOutput(
      "reports",
      JSON.stringify(
        sites.map((site) => ({
          url: site.url,
          report_id: site.report?.id ?? null,
          report_url: site.report ? reportUrl(inputs.apiUrl, site.report.id) : null,
          report_api_url: site.report ? reportApiUrl(inputs.apiUrl, site.report.id) : null,
          score: site.report?.summary?.score ?? null,
          grade: site.report?.summary?.grade ?? null,
          baseline_id: site.result?.diff.base_id ?? null,
          regressions: site.result?.diff.regressions.length ?? null,
          ...siteVerdict(site),
        })),
      ),
    );
  }
  core.setOutput("result", outcome);
}

/** The SARIF file from the reports this step made (no new request), as output `sarif-file`. */
function writeSarif(core: ActionCore, reports: Report[], inputs: Inputs, env: NodeJS.ProcessEnv): void {
  if (reports.length === 0) return;
  const location = sarifLocation(inputs.sarifLocation, env);
  try {
    const file = writeSarifFile(reports, { apiUrl: inputs.apiUrl, location, env });
    core.setOutput("sarif-file", file);
    core.info(`wpreport: SARIF for code scanning in ${file} (results at ${location}, line 1)`);
  } catch (error) {
    core.warning(`Could not write the SARIF file: ${(error as Error).message}.`, { title: "wpreport: no SARIF file" });
  }
}
