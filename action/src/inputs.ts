/** The Action's inputs, read and validated once; every bad value is reported in plain words. */
import { type Baseline, type ParsedDiffOptions, parseBaseline, parseDiffOptions } from "../../shared/diff-options.ts";
import { ANALYSIS_MODES, type AnalysisMode } from "../../shared/report.ts";
import { type ActionCore, actionsCore } from "./action-core.ts";

export interface Inputs {
  apiUrl: string;
  token: string;
  url: string;
  baseline: Baseline;
  diffOptions: ParsedDiffOptions;
  environment: string | undefined;
  commentOnPr: boolean;
  githubToken: string;
  timeoutSeconds: number;
  waitForSiteSeconds: number;
  mode: AnalysisMode;
  /** The job's matrix values as JSON (`toJSON(matrix)`, the input's default): part of the Idempotency-Key. */
  matrix: string;
}

export class InputError extends Error {}

/** The Action's names of the diff's options, for messages. */
const INPUT_NAMES = {
  failOn: "Input fail-on",
  maxScoreDrop: "Input max-score-drop",
  budgets: "Input budgets",
  baseline: "Input baseline",
};

function number(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value < min || value > max) {
    throw new InputError(`Input ${name} must be a number from ${min} to ${max}, got "${raw}".`);
  }
  return value;
}

export function readInputs(runner: Pick<ActionCore, "getInput" | "setSecret"> = actionsCore): Inputs {
  const apiUrl = runner.getInput("api-url", { required: true }).trim();
  const token = runner.getInput("api-token", { required: true }).trim();
  // Mask it before anything else can print it.
  runner.setSecret(token);
  const url = runner.getInput("url", { required: true }).trim();
  for (const [name, value] of [
    ["api-url", apiUrl],
    ["url", url],
  ] as const) {
    try {
      const parsed = new URL(value);
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error();
    } catch {
      throw new InputError(`Input ${name} must be an http(s) URL, got "${value}".`);
    }
  }
  const baseline = parseBaseline(runner.getInput("baseline"), "Input baseline");
  // Inputs are case-insensitive where they name a value (fail-on, mode, comment-on-pr).
  const diffOptions = parseDiffOptions(
    {
      failOn: runner.getInput("fail-on").toLowerCase(),
      maxScoreDrop: runner.getInput("max-score-drop"),
      budgets: runner.getInput("budgets"),
    },
    INPUT_NAMES,
  );
  const mode = (runner.getInput("mode").trim() || "passive").toLowerCase();
  if (!ANALYSIS_MODES.includes(mode as AnalysisMode)) {
    throw new InputError(`Input mode must be passive or aggressive, got "${mode}".`);
  }
  const commentRaw = runner.getInput("comment-on-pr").trim().toLowerCase() || "false";
  if (!["true", "false"].includes(commentRaw))
    throw new InputError(`Input comment-on-pr must be true or false, got "${commentRaw}".`);
  return {
    apiUrl: apiUrl.replace(/\/+$/, ""),
    token,
    url,
    baseline,
    diffOptions,
    environment: runner.getInput("environment").trim().slice(0, 64) || undefined,
    commentOnPr: commentRaw === "true",
    githubToken: runner.getInput("github-token").trim(),
    timeoutSeconds: number("timeout", runner.getInput("timeout").trim() || "600", 10, 6 * 3600),
    waitForSiteSeconds: number("wait-for-site", runner.getInput("wait-for-site").trim() || "0", 0, 3600),
    mode: mode as AnalysisMode,
    matrix: runner.getInput("matrix"),
  };
}
