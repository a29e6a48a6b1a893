/**
 * The Action: generate a report, compare it with the baseline, annotate, summarise,
 * optionally comment on the PR, set outputs, and fail the job exactly when the verdict says.
 */
import * as core from "@actions/core";
import { ApiError, explain, type GenerateReportInput, idempotencyKeyFor, WpreportClient } from "../../shared/client.ts";
import { failingChecks } from "../../shared/diff.ts";
import { diffQuery } from "../../shared/diff-options.ts";
import type { ReportMetadata } from "../../shared/report.ts";
import { annotate } from "./annotations.ts";
import { InputError, type Inputs, readInputs } from "./inputs.ts";
import { reportApiUrl, reportUrl } from "./links.ts";
import { renderMarkdown } from "./markdown.ts";
import { notWordPressNotice } from "./notices.ts";
import { upsertPrComment } from "./pr-comment.ts";
import { VERSION } from "./version.ts";
import { waitForSite } from "./wait-for-site.ts";

export const ACTION_VERSION = VERSION;

/**
 * Site text for a log line: one line (no control characters) and no `##[` (the runner's
 * legacy command prefix). The line starts with our own text, so `::` in the site text cannot
 * start a workflow command either.
 */
function logSafe(text: string, max: number): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
    .slice(0, max)
    .replace(/##\[/g, "##\u200b[");
}

/** Log lines shown without a baseline: the checks failing now, most severe first. */
const FAILING_LOG_LINES = 20;

function metadataFrom(env: NodeJS.ProcessEnv, inputs: Inputs): ReportMetadata {
  const metadata: ReportMetadata = {};
  if (env.GITHUB_SHA) metadata.git_sha = env.GITHUB_SHA.slice(0, 64);
  if (env.GITHUB_REF) metadata.git_ref = env.GITHUB_REF.slice(0, 255);
  if (inputs.environment) metadata.environment = inputs.environment.slice(0, 64);
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID) {
    metadata.ci_run_url = `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  }
  return metadata;
}

export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const started = Date.now();
  let inputs: Inputs;
  try {
    inputs = readInputs();
  } catch (error) {
    core.setOutput("result", "error");
    core.setFailed(error instanceof InputError ? error.message : (error as Error).message);
    return;
  }
  const client = new WpreportClient({
    apiUrl: inputs.apiUrl,
    token: inputs.token,
    userAgent: `wpreport-action/${ACTION_VERSION}`,
    deadline: started + inputs.timeoutSeconds * 1000,
    onRetry: ({ attempt, waitMs, reason }) =>
      core.info(`wpreport: ${reason}; retrying in ${Math.round(waitMs / 1000)} s (attempt ${attempt})`),
  });
  try {
    if (inputs.waitForSiteSeconds > 0) {
      core.info(`Waiting up to ${inputs.waitForSiteSeconds} s for ${inputs.url} to answer…`);
      if (!(await waitForSite(inputs.url, inputs.waitForSiteSeconds, (line) => core.info(line)))) {
        core.warning(
          `${inputs.url} did not answer within ${inputs.waitForSiteSeconds} s; asking for the report anyway.`,
        );
      }
    }

    const requested = Date.now();
    const request: GenerateReportInput = {
      url: inputs.url,
      metadata: metadataFrom(env, inputs),
      ...(inputs.mode === "aggressive" ? { mode: inputs.mode } : {}),
    };
    const { report, replayed } = await client.generateReport(request, {
      idempotencyKey: idempotencyKeyFor(env, request, { matrix: inputs.matrix }),
    });
    const received = Date.now();
    core.info(
      `wpreport: report ${report.id}${replayed ? " (this step already made the same request in this run attempt: its report, not charged again)" : ""}: score ${report.summary?.score ?? "—"} (${report.summary?.grade ?? "—"})`,
    );
    const notWordPress = notWordPressNotice(report);
    if (notWordPress) core.warning(notWordPress, { title: "wpreport: not WordPress" });

    // The service decides the baseline (its one rule) and compares with its one engine.
    const result = await client.diff(report.id, inputs.baseline, diffQuery(inputs.diffOptions));
    if (result.base_id) core.info(`wpreport: comparing with ${result.base_id}`);
    else {
      const failing = failingChecks(report);
      core.info(
        `wpreport: no baseline to compare with, so nothing is a regression; ${failing.length === 0 ? "no check fails" : `${failing.length} check${failing.length === 1 ? " fails" : "s fail"} now:`}`,
      );
      for (const check of failing.slice(0, FAILING_LOG_LINES))
        core.info(`  [${check.severity}] ${check.id}: ${check.status} — ${logSafe(check.message, 300)}`);
      if (failing.length > FAILING_LOG_LINES)
        core.info(`  …and ${failing.length - FAILING_LOG_LINES} more (see the job summary)`);
    }

    const url = reportUrl(inputs.apiUrl, report.id);
    annotate(result);
    const markdown = renderMarkdown({ report, diff: result, reportUrl: url, failOn: inputs.diffOptions.failOn });
    await core.summary.addRaw(markdown, true).write();

    if (inputs.commentOnPr) {
      try {
        const outcome = await upsertPrComment(
          inputs.githubToken,
          inputs.url,
          renderMarkdown({ report, diff: result, reportUrl: url, failOn: inputs.diffOptions.failOn }, { limit: 20 }),
        );
        if (outcome) core.info(`wpreport: PR comment ${outcome}`);
        else core.info("wpreport: not a pull request event; no comment posted");
      } catch (error) {
        core.warning(
          `Could not post the PR comment: ${(error as Error).message}. Does the workflow grant pull-requests: write?`,
        );
      }
    }

    core.setOutput("report-id", report.id);
    core.setOutput("report-url", url);
    core.setOutput("report-api-url", reportApiUrl(inputs.apiUrl, report.id));
    core.setOutput("score", String(report.summary?.score ?? ""));
    core.setOutput("grade", report.summary?.grade ?? "");
    core.setOutput("regressions", String(result.regressions.length));
    core.setOutput("result", result.verdict.result);
    const overhead = requested - started + (Date.now() - received);
    core.info(`wpreport: action overhead ${overhead} ms (service ${received - requested} ms)`);
    if (result.verdict.result === "fail") core.setFailed(`wpreport: ${result.verdict.reasons.join("; ")}`);
  } catch (error) {
    core.setOutput("result", "error");
    core.setFailed(error instanceof ApiError ? explain(error) : `wpreport: ${(error as Error).message}`);
  } finally {
    client.close();
  }
}
