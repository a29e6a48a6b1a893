/** Runs the committed Action bundle exactly as the GitHub runner does: `node action/dist/index.js` with INPUT_* variables and the GITHUB_* files. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { ROOT, runProcess } from "../helpers/processes.ts";

export interface ActionRun {
  code: number;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
  /** Workflow commands the Action printed, e.g. ["error", "title=…", "message"]. */
  commands: { command: string; properties: string; message: string }[];
  wallMs: number;
}

/** Parses GITHUB_OUTPUT's `name<<delimiter` blocks. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i] ?? "");
    if (!match) continue;
    const [, name = "", delimiter] = match;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? "");
    outputs[name] = value.join("\n");
  }
  return outputs;
}

/**
 * Runs the bundle with `inputs` and the runner's variables; `env` adds or overrides variables,
 * and a variable set to undefined is left out (a runner without GITHUB_STEP_SUMMARY).
 */
export async function runAction(
  inputs: Record<string, string>,
  env: Record<string, string | undefined> = {},
): Promise<ActionRun> {
  const dir = mkdtempSync(path.join(tmpdir(), "wpreport-action-"));
  const outputFile = path.join(dir, "output");
  const summaryFile = path.join(dir, "summary");
  writeFileSync(outputFile, "");
  writeFileSync(summaryFile, "");
  const inputEnv = Object.fromEntries(
    Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
  );
  const started = performance.now();
  const variables: Record<string, string | undefined> = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    GITHUB_ACTIONS: "true",
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_REPOSITORY: "acme/site",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567",
    GITHUB_REF: "refs/heads/main",
    GITHUB_RUN_ID: String(Math.floor(Math.random() * 1e9)),
    GITHUB_RUN_ATTEMPT: "1",
    // What the runner sets for a `uses: acme/wpreport@v1` step without an id in job "wpreport".
    GITHUB_JOB: "wpreport",
    GITHUB_ACTION: "__acme_wpreport",
    GITHUB_EVENT_NAME: "push",
    RUNNER_TEMP: dir,
    ...inputEnv,
    ...env,
  };
  const { stdout, stderr, code } = await runProcess(["node", path.join(ROOT, "action/dist/index.js")], {
    cwd: dir,
    env: Object.fromEntries(
      Object.entries(variables).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  });
  const wallMs = performance.now() - started;
  const commands = [...`${stdout}\n${stderr}`.matchAll(/^::([a-z-]+)(?: ([^:]*))?::(.*)$/gm)].map((match) => ({
    command: match[1] ?? "",
    properties: match[2] ?? "",
    message: match[3] ?? "",
  }));
  return {
    code,
    stdout: `${stdout}${stderr}`,
    outputs: parseOutputs(readFileSync(outputFile, "utf8")),
    summary: readFileSync(summaryFile, "utf8"),
    commands,
    wallMs,
  };
}
