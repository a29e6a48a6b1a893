/**
 * `wpreport check` — the Action's job for any other CI system (GitLab, Jenkins, cron): the
 * Action's check pipeline (check.ts), the result printed as text, JSON or SARIF, and an exit status.
 *
 *   WPREPORT_API_URL=https://wpreport.example.com WPREPORT_TOKEN=wpr_… \
 *     wpreport check --url https://staging.example.com --fail-on high
 *
 * Installed from a release's tarball (docs/action.md, "GitLab CI, Jenkins, cron: the CLI"), never as
 * the unscoped npm name `wpreport`, which the project does not own.
 *
 * Exit codes: 0 passed, 1 failed the thresholds (a regression), 2 could not check (usage,
 * authentication, quota, unreachable site, service error).
 */
import { parseArgs } from "node:util";
import { API_VERSION } from "../../shared/api.ts";
import { ApiError, explain, WpreportClient } from "../../shared/client.ts";
import { parseBaseline, parseDiffOptions } from "../../shared/diff-options.ts";
import { ANALYSIS_MODES, type AnalysisMode } from "../../shared/report.ts";
import { DEFAULT_SARIF_LOCATION, parseSarifLocation, SarifLocationError, toSarif } from "../../shared/sarif.ts";
import { parseSiteAuthInputs, type SiteAuth, SiteAuthInputError } from "../../shared/site-auth.ts";
import { check } from "./check.ts";
import { LabOptionsError, type LabRequest, parseLabOptions } from "./lab-options.ts";
import { renderText } from "./text.ts";
import { VERSION } from "./version.ts";

const USAGE = `Usage: wpreport check --url <site> [options]
       wpreport --version | --help

Options:
  --url <url>              site to analyze (required)
  --fail-on <severity>     critical | high (default) | medium | low | info | none
  --baseline <id>          last-passing (default: the newest earlier report of the site and
                           environment that passed the gate) | latest | none | a report id (rep_…)
  --max-score-drop <n>     fail when the score drops by more than n points
  --budgets <list>         e.g. "ttfb_ms=800ms,html_bytes=250kB,score=80": times in ms or s,
                           sizes in B, kB, MB, KiB or MiB (a plain number: ms, bytes)
  --assert <list>          per-check levels replacing --fail-on for the checks they match, e.g.
                           "security.*=error,seo.meta_description=warn" (error | warn | off);
                           may be given more than once
  --environment <name>     stored with the report; baselines are looked for within it
  --mode <mode>            passive (default) | aggressive: also probe for plugins and themes
                           the site does not show (vulnerable ones first), within a budget
  --lab                    also load the page in the service's browser: LCP, CLS, TBT
                           (performance.lab; the lab checks and budgets such as lcp_ms=2500)
  --lab-device <d>         mobile (default) | desktop
  --lab-throttling <t>     default (Lighthouse's figures) | none (CI on a fast network)
  --lab-runs <n>           loads of the page, 1-5 (default 1): the median is reported
  --format <f>             text (default) | json | sarif
  --sarif-location <path>  sarif: the repository file alerts are attached to (line 1),
                           e.g. .github/workflows/deploy.yml (default ${DEFAULT_SARIF_LOCATION})
  --timeout <seconds>      overall time limit, retries included (default 600)

Password-protected (staging) sites — sent to the site's origin only; prefer the environment
variables in CI, since command lines show in process lists:
  --http-auth <user:pass>  HTTP basic auth              (or WPREPORT_HTTP_AUTH)
  --http-header <h>        "Name: value", repeatable     (or WPREPORT_HTTP_HEADERS, one per line)
                           custom X- headers, CF-Access-Client-Id/-Secret
  --http-cookie <c>        "name=value", repeatable      (or WPREPORT_HTTP_COOKIES, "a=1; b=2")
  -v, --version            print the CLI's version
  -h, --help               print this help

Environment:
  WPREPORT_API_URL         URL of the wpreport service (required)
  WPREPORT_TOKEN           API token, wpr_… (required)
  CI variables (GITHUB_RUN_ID, CI_PIPELINE_ID, BUILD_TAG, …) make retries idempotent.

Exit codes: 0 passed · 1 failed the thresholds · 2 could not check`;

class UsageError extends Error {}

/** The CLI's names of the diff's options, for messages. */
const FLAG_NAMES = {
  failOn: "--fail-on",
  maxScoreDrop: "--max-score-drop",
  budgets: "--budgets",
  assert: "--assert",
  baseline: "--baseline",
};

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv, env);
  } catch (error) {
    err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === "help") {
    out(USAGE);
    return 0;
  }
  if (options === "version") {
    out(VERSION);
    return 0;
  }
  const client = new WpreportClient({
    apiUrl: options.apiUrl,
    token: options.token,
    userAgent: `wpreport-cli/${VERSION}`,
    deadline: Date.now() + options.timeout * 1000,
    onRetry: ({ waitMs, reason }) => err(`wpreport: ${reason}; retrying in ${Math.round(waitMs / 1000)} s`),
  });
  try {
    const { report, diff, links } = await check(
      client,
      { ...options, env },
      {
        log: err,
        warn: (message) => err(`wpreport: warning: ${message}`),
        reported: (made, replayed) => {
          if (replayed)
            err(
              `wpreport: this CI job already made the same request (same Idempotency-Key): ${made.id}, not charged again`,
            );
        },
      },
    );
    if (options.format === "json")
      out(JSON.stringify({ report, report_url: links.report, baseline_id: diff.base_id, diff }, null, 2));
    else if (options.format === "sarif")
      out(
        JSON.stringify(toSarif(report, API_VERSION, `${options.apiUrl}/docs/checks`, options.sarifLocation), null, 2),
      );
    else out(renderText(report, diff, options.diffOptions.failOn, links.report));
    return diff.verdict.result === "pass" ? 0 : 1;
  } catch (error) {
    err(error instanceof ApiError ? `wpreport: ${explain(error)}` : `wpreport: ${(error as Error).message}`);
    return 2;
  } finally {
    client.close();
  }
}

function parse(argv: string[], env: NodeJS.ProcessEnv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: "string" },
      // fail-on, baseline, max-score-drop, budgets, assert: defaults in parseDiffOptions and parseBaseline.
      "fail-on": { type: "string" },
      baseline: { type: "string" },
      "max-score-drop": { type: "string" },
      budgets: { type: "string" },
      assert: { type: "string", multiple: true },
      environment: { type: "string" },
      // mode: absent asks for the service's default (passive).
      mode: { type: "string" },
      lab: { type: "boolean" },
      "lab-device": { type: "string" },
      "lab-throttling": { type: "string" },
      "lab-runs": { type: "string" },
      format: { type: "string", default: "text" },
      // sarif-location: default in toSarif (DEFAULT_SARIF_LOCATION).
      "sarif-location": { type: "string" },
      timeout: { type: "string", default: "600" },
      "http-auth": { type: "string" },
      "http-header": { type: "string", multiple: true },
      "http-cookie": { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
  if (values.help || positionals[0] === "help") return "help" as const;
  if (values.version) return "version" as const;
  if (positionals[0] !== "check")
    throw new UsageError(positionals[0] ? `unknown command "${positionals[0]}"` : "missing command");
  const apiUrl = env.WPREPORT_API_URL?.replace(/\/+$/, "");
  if (!apiUrl) throw new UsageError("WPREPORT_API_URL is not set");
  const token = env.WPREPORT_TOKEN;
  if (!token) throw new UsageError("WPREPORT_TOKEN is not set");
  if (!values.url) throw new UsageError("--url is required");
  const baseline = parseBaseline(values.baseline, "--baseline");
  const diffOptions = parseDiffOptions(
    {
      failOn: values["fail-on"],
      maxScoreDrop: values["max-score-drop"],
      budgets: values.budgets,
      assert: (values.assert ?? []).join("\n"),
    },
    FLAG_NAMES,
  );
  if (values.mode !== undefined && !ANALYSIS_MODES.includes(values.mode as AnalysisMode))
    throw new UsageError("--mode must be passive or aggressive");
  let lab: LabRequest | undefined;
  try {
    lab = parseLabOptions(
      {
        lab: values.lab === true,
        device: values["lab-device"],
        throttling: values["lab-throttling"],
        runs: values["lab-runs"],
      },
      { lab: "--lab", device: "--lab-device", throttling: "--lab-throttling", runs: "--lab-runs" },
    );
  } catch (error) {
    if (error instanceof LabOptionsError) throw new UsageError(error.message.replace(/\.$/, ""));
    throw error;
  }
  if (!["text", "json", "sarif"].includes(values.format)) throw new UsageError("--format must be text, json or sarif");
  let sarifLocation: string | undefined;
  try {
    sarifLocation = parseSarifLocation(values["sarif-location"]);
  } catch (error) {
    if (error instanceof SarifLocationError) throw new UsageError(`--sarif-location ${error.problem}`);
    throw error;
  }
  const timeout = Number(values.timeout);
  if (!(timeout >= 10)) throw new UsageError("--timeout must be at least 10 seconds");
  let siteAuth: SiteAuth | undefined;
  try {
    // A flag replaces its environment variable; each kind is read from one or the other.
    siteAuth = parseSiteAuthInputs(
      {
        httpAuth: values["http-auth"] ?? env.WPREPORT_HTTP_AUTH,
        headers: values["http-header"] ?? env.WPREPORT_HTTP_HEADERS,
        cookies: values["http-cookie"] ?? env.WPREPORT_HTTP_COOKIES,
      },
      {
        httpAuth: values["http-auth"] !== undefined ? "--http-auth" : "WPREPORT_HTTP_AUTH",
        headers: values["http-header"] !== undefined ? "--http-header" : "WPREPORT_HTTP_HEADERS",
        cookies: values["http-cookie"] !== undefined ? "--http-cookie" : "WPREPORT_HTTP_COOKIES",
      },
    );
  } catch (error) {
    if (error instanceof SiteAuthInputError) throw new UsageError(error.message);
    throw error;
  }
  return {
    apiUrl,
    token,
    url: values.url,
    baseline,
    diffOptions,
    environment: values.environment,
    mode: values.mode as AnalysisMode | undefined,
    ...(lab ? { lab } : {}),
    format: values.format as "text" | "json" | "sarif",
    sarifLocation,
    timeout,
    siteAuth,
  };
}

if (import.meta.main || process.argv[1]?.endsWith("cli.js")) {
  const code = await main(
    process.argv.slice(2),
    process.env,
    (s) => process.stdout.write(`${s}\n`),
    (s) => process.stderr.write(`${s}\n`),
  );
  process.exit(code);
}
