/**
 * The Action: the check pipeline (check.ts: generate a report, the service compares it with
 * the baseline), then annotate, summarise, optionally comment on the PR, set outputs, and fail
 * the job exactly when the verdict says.
 */
import { ApiError, type ClientOptions, explain, WpreportClient } from "../../shared/client.ts";
import { oneLine } from "../../shared/untrusted-text.ts";
import { type ActionCore, actionsCore } from "./action-core.ts";
import { annotate } from "./annotations.ts";
import { type CheckClient, check } from "./check.ts";
import { type Inputs, readInputs } from "./inputs.ts";
import { renderMarkdown } from "./markdown.ts";
import { upsertPrComment } from "./pr-comment.ts";
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
  try {
    const { report, diff, links, failing, timing } = await check(
      client,
      { ...inputs, env },
      {
        log: (line) => core.info(line),
        warn: (message, title) => core.warning(message, title ? { title } : {}),
        reported: (made, replayed) =>
          core.info(
            `wpreport: report ${made.id}${replayed ? " (this step already made the same request in this run attempt: its report, not charged again)" : ""}: score ${made.summary?.score ?? "—"} (${made.summary?.grade ?? "—"})`,
          ),
      },
    );
    if (diff.base_id) core.info(`wpreport: comparing with ${diff.base_id}`);
    else {
      core.info(
        `wpreport: no baseline to compare with, so nothing is a regression; ${failing.length === 0 ? "no check fails" : `${failing.length} check${failing.length === 1 ? " fails" : "s fail"} now:`}`,
      );
      for (const failed of failing.slice(0, FAILING_LOG_LINES))
        core.info(`  [${failed.severity}] ${failed.id}: ${failed.status} — ${logSafe(failed.message, 300)}`);
      if (failing.length > FAILING_LOG_LINES)
        core.info(`  …and ${failing.length - FAILING_LOG_LINES} more (see the job summary)`);
    }

    annotate(diff, core);
    const context = { report, diff, reportUrl: links.report, failOn: inputs.diffOptions.failOn };
    const markdown = renderMarkdown(context);
    await core.writeSummary(markdown);

    if (inputs.commentOnPr) {
      try {
        const outcome = await deps.upsertPrComment(
          inputs.githubToken,
          inputs.url,
          renderMarkdown(context, { limit: 20 }),
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
    core.setOutput("report-url", links.report);
    core.setOutput("report-api-url", links.api);
    core.setOutput("score", String(report.summary?.score ?? ""));
    core.setOutput("grade", report.summary?.grade ?? "");
    core.setOutput("regressions", String(diff.regressions.length));
    core.setOutput("result", diff.verdict.result);
    const overhead = timing.requested - started + (Date.now() - timing.received);
    core.info(`wpreport: action overhead ${overhead} ms (service ${timing.received - timing.requested} ms)`);
    if (diff.verdict.result === "fail") core.setFailed(`wpreport: ${diff.verdict.reasons.join("; ")}`);
  } catch (error) {
    core.setOutput("result", "error");
    core.setFailed(error instanceof ApiError ? explain(error) : `wpreport: ${(error as Error).message}`);
  } finally {
    client.close();
  }
}
