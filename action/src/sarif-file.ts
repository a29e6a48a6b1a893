/**
 * The Action's SARIF file (output `sarif-file`), made from the reports the step already has —
 * no second report, no second credit — for `github/codeql-action/upload-sarif`. One run per
 * site (each its own code-scanning category, shared/sarif.ts), results attached to line 1 of
 * the workflow file that ran the step unless `sarif-location` names another file.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Log } from "sarif";
import { API_VERSION } from "../../shared/api.ts";
import type { Report } from "../../shared/report.ts";
import { DEFAULT_SARIF_LOCATION, sarifLocationProblem, toSarif } from "../../shared/sarif.ts";

/**
 * The workflow file's path in the repository, from `github.workflow_ref`
 * (`GITHUB_WORKFLOW_REF` = `<owner>/<repo>/.github/workflows/deploy.yml@refs/heads/main`);
 * undefined when the runner does not say or the path is not one a result can sit at.
 */
export function workflowFile(env: Record<string, string | undefined>): string | undefined {
  const ref = env.GITHUB_WORKFLOW_REF;
  if (!ref) return undefined;
  const withoutRef = ref.includes("@") ? ref.slice(0, ref.lastIndexOf("@")) : ref;
  const repository = env.GITHUB_REPOSITORY;
  const file =
    repository && withoutRef.startsWith(`${repository}/`)
      ? withoutRef.slice(repository.length + 1)
      : withoutRef.split("/").slice(2).join("/");
  return file !== "" && sarifLocationProblem(file) === null ? file : undefined;
}

/** Where results attach: the input, else the workflow file, else the service's default name. */
export function sarifLocation(input: string | undefined, env: Record<string, string | undefined>): string {
  return input ?? workflowFile(env) ?? DEFAULT_SARIF_LOCATION;
}

/** The reports as one SARIF log, one run each (the Action's file, the CLI's --format sarif and --sarif-file). */
export function sarifLogOf(reports: Report[], options: { apiUrl: string; location: string }): Log {
  const logs = reports.map((report) => toSarif(report, API_VERSION, `${options.apiUrl}/docs/checks`, options.location));
  const [first] = logs;
  if (!first) throw new Error("no report to write as SARIF");
  return { ...first, runs: logs.flatMap((one) => one.runs) };
}

/**
 * Writes the reports as one SARIF log (one run each) to `file`, else under the runner's
 * temporary folder (`RUNNER_TEMP`, else the system's) named after the first report; returns its path.
 */
export function writeSarifFile(
  reports: Report[],
  options: { apiUrl: string; location: string; env: Record<string, string | undefined>; file?: string },
): string {
  const log = sarifLogOf(reports, options);
  const dir = options.file ? path.dirname(options.file) : options.env.RUNNER_TEMP || tmpdir();
  mkdirSync(dir, { recursive: true });
  const file = options.file ?? path.join(dir, `wpreport-${reports[0]?.id}.sarif`);
  writeFileSync(file, `${JSON.stringify(log, null, 2)}\n`);
  return file;
}
