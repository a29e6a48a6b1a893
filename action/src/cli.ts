/**
 * `wpreport check` — the Action for any other CI system (GitLab, Jenkins, Bitbucket, cron): the
 * same inputs under the same names (`--url`, `--urls`, `--assert`, …: every input of action.yml
 * is a flag, test/action/cli-parity.test.ts), read by the same code (inputs.ts), the same gate
 * over one or several sites (gate.ts), the same outcome, and the same Markdown summary
 * (`--summary-file`) and SARIF (`--sarif-file`) as the Action's job summary and output.
 *
 *   WPREPORT_API_URL=https://wpreport.example.com WPREPORT_TOKEN=wpr_… \
 *     wpreport check --urls "https://staging.example.com,https://shop.example.com" --fail-on high
 *
 * Installed from a release's tarball (docs/ci.md), never as the unscoped npm name `wpreport`,
 * which the project does not own.
 *
 * Exit codes: 0 passed, 1 failed the thresholds (a regression), 2 could not check (usage,
 * authentication, quota, unreachable site, service error, or a report that could not see the
 * site: a 401/403 homepage, refused credentials, a firewall challenge) — the Action's `result`
 * pass, fail and error.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { type ClientOptions, WpreportClient } from "../../shared/client.ts";
import { DEFAULT_SARIF_LOCATION } from "../../shared/sarif.ts";
import type { Outcome } from "./check.ts";
import { runGate, type Site, siteOutcome, siteVerdict } from "./gate.ts";
import { InputError, type InputNames, type Inputs, readInputs } from "./inputs.ts";
import { sarifLocation, sarifLogOf } from "./sarif-file.ts";
import { renderText } from "./text.ts";
import { VERSION } from "./version.ts";

/** A command-line flag. `input`: it is the Action input of the same name (action.yml). */
interface Flag {
  name: string;
  /** The value's placeholder in the help; absent: a boolean flag. */
  value?: string;
  /** May be given more than once (the values join as the input's lines). */
  multiple?: boolean;
  short?: string;
  /** The environment variable read when the flag is absent. */
  env?: string;
  input: boolean;
  help: string;
}

/**
 * The CLI's flags, in the order of the help. Every input of action.yml is here under its own
 * name (and the reverse: test/action/cli-parity.test.ts), except ACTION_ONLY_INPUTS.
 * A flag without `value` is a boolean one (`--lab`), read as the input "true".
 */
export const FLAGS: readonly Flag[] = [
  { name: "url", value: "<url>", input: true, help: "the site to analyze" },
  {
    name: "urls",
    value: "<list>",
    multiple: true,
    input: true,
    help: "several sites instead of --url, comma- or newline-separated, or repeated (at most 20): one report and one comparison each, one verdict",
  },
  {
    name: "api-url",
    value: "<url>",
    env: "WPREPORT_API_URL",
    input: true,
    help: "URL of the wpreport service (or WPREPORT_API_URL)",
  },
  {
    name: "api-token",
    value: "<token>",
    env: "WPREPORT_TOKEN",
    input: true,
    help: "API token, wpr_… (prefer WPREPORT_TOKEN: command lines show in process lists)",
  },
  {
    name: "fail-on",
    value: "<severity>",
    input: true,
    help: "critical | high (default) | medium | low | info | none: fail when a check regresses (or a new vulnerability appears) at this severity or above",
  },
  {
    name: "baseline",
    value: "<id>",
    input: true,
    help: "last-passing (default: the newest earlier report of the site and environment that passed the gate) | latest | none | a report id (rep_…)",
  },
  {
    name: "max-score-drop",
    value: "<n>",
    input: true,
    help: "fail when the score drops by more than n points",
  },
  {
    name: "budgets",
    value: "<list>",
    input: true,
    help: 'e.g. "ttfb_ms=800ms,html_bytes=250kB,score=80": times in ms or s, sizes in B, kB, MB, KiB or MiB (a plain number: ms, bytes)',
  },
  {
    name: "assert",
    value: "<list>",
    multiple: true,
    input: true,
    help: 'per-check levels replacing --fail-on for the checks they match, e.g. "security.*=error,seo.meta_description=warn" (error | warn | off); may be repeated',
  },
  {
    name: "environment",
    value: "<name>",
    input: true,
    help: "stored with the report; baselines are looked for within it",
  },
  {
    name: "mode",
    value: "<mode>",
    input: true,
    help: "passive (default) | aggressive: also probe for plugins and themes the site does not show (vulnerable ones first), within a budget",
  },
  {
    name: "sarif-location",
    value: "<path>",
    input: true,
    help: `the repository file SARIF results are attached to (line 1), e.g. .gitlab-ci.yml (default ${DEFAULT_SARIF_LOCATION})`,
  },
  { name: "timeout", value: "<seconds>", input: true, help: "overall time limit, retries included (default 600)" },
  {
    name: "wait-for-site",
    value: "<seconds>",
    input: true,
    help: "wait up to this long for the site to answer before asking for the report (default 0: don't wait)",
  },
  {
    name: "matrix",
    value: "<json>",
    input: true,
    help: "this job's matrix values (e.g. GitLab's parallel:matrix variables as JSON): part of the Idempotency-Key, so that each matrix job makes its own report",
  },
  {
    name: "http-auth",
    value: "<user:pass>",
    env: "WPREPORT_HTTP_AUTH",
    input: true,
    help: "HTTP basic auth of a password-protected site (or WPREPORT_HTTP_AUTH)",
  },
  {
    name: "http-headers",
    value: "<h>",
    multiple: true,
    env: "WPREPORT_HTTP_HEADERS",
    input: true,
    help: '"Name: value", repeatable (or WPREPORT_HTTP_HEADERS, one per line): custom X- headers, CF-Access-Client-Id/-Secret',
  },
  {
    name: "http-cookies",
    value: "<c>",
    multiple: true,
    env: "WPREPORT_HTTP_COOKIES",
    input: true,
    help: '"name=value", repeatable (or WPREPORT_HTTP_COOKIES, "a=1; b=2")',
  },
  {
    name: "lab",
    input: true,
    help: "also load the page in the service's browser: LCP, CLS, TBT (performance.lab; the lab checks and budgets such as lcp_ms=2500)",
  },
  { name: "lab-device", value: "<d>", input: true, help: "mobile (default) | desktop" },
  {
    name: "lab-throttling",
    value: "<t>",
    input: true,
    help: "default (Lighthouse's figures) | none (CI on a fast network)",
  },
  { name: "lab-runs", value: "<n>", input: true, help: "loads of the page, 1-5 (default 1): the median is reported" },
  {
    name: "tls",
    value: "<mode>",
    input: true,
    help: "verify (default) | insecure: do not verify the site's TLS certificate (a self-signed staging site), for its own origin only",
  },
  {
    name: "tls-ca",
    value: "<pem|file>",
    input: true,
    help: "a private CA to trust for the site's own origin: a PEM file's path (or its text)",
  },
  // Spelled as before the flags took the inputs' names; still read.
  { name: "http-header", value: "<h>", multiple: true, input: false, help: "the same as --http-headers" },
  { name: "http-cookie", value: "<c>", multiple: true, input: false, help: "the same as --http-cookies" },
  // The CLI's own: where the results go (the Action's outputs, job summary and SARIF file).
  { name: "format", value: "<f>", input: false, help: "stdout: text (default) | json | sarif" },
  {
    name: "summary-file",
    value: "<path>",
    input: false,
    help: "also write the Action's job summary (Markdown) there, e.g. for a merge request note",
  },
  {
    name: "sarif-file",
    value: "<path>",
    input: false,
    help: "also write the SARIF of the reports there (the Action's output sarif-file)",
  },
  { name: "version", short: "v", input: false, help: "print the CLI's version" },
  { name: "help", short: "h", input: false, help: "print this help" },
];

/** Inputs of action.yml that have no flag, and why (test/action/cli-parity.test.ts reads this). */
export const ACTION_ONLY_INPUTS: Readonly<Record<string, string>> = {
  "comment-on-pr":
    "posts to a GitHub pull request; elsewhere, post the --summary-file Markdown as a merge request note (docs/ci.md)",
  "github-token": "the token for that GitHub comment",
};

/** A flag's lines in the help: its name, then its text wrapped at 100 columns beside it. */
function flagLine(flag: Flag): string {
  const name = `  ${flag.short ? `-${flag.short}, ` : ""}--${flag.name}${flag.value ? ` ${flag.value}` : ""}`;
  const indent = " ".repeat(27);
  const lines: string[] = [];
  let line = "";
  for (const word of flag.help.split(" ")) {
    if (line !== "" && indent.length + line.length + 1 + word.length > 100) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  const head = name.length < indent.length ? name.padEnd(indent.length) : `${name}\n${indent}`;
  return `${head}${lines.join(`\n${indent}`)}`;
}

const USAGE = `Usage: wpreport check --url <site> [options]
       wpreport check --urls <site>,<site>… [options]
       wpreport --version | --help

Options (the GitHub Action's inputs, under the same names):
${FLAGS.filter((flag) => flag.input && !flag.name.startsWith("http-"))
  .map(flagLine)
  .join("\n")}

Password-protected (staging) sites — sent to the site's origin only; prefer the environment
variables in CI, since command lines show in process lists:
${FLAGS.filter((flag) => flag.name.startsWith("http-") && flag.input)
  .map(flagLine)
  .join("\n")}

Output:
${FLAGS.filter((flag) => !flag.input && !flag.name.startsWith("http-"))
  .map(flagLine)
  .join("\n")}

Environment:
  WPREPORT_API_URL         URL of the wpreport service (required, or --api-url)
  WPREPORT_TOKEN           API token, wpr_… (required, or --api-token)
  CI variables (GITHUB_*, CI_* of GitLab, BUILD_*/JENKINS_*/CHANGE_* of Jenkins, BITBUCKET_*)
  make retries idempotent, name the commit, branch and run, and on a merge/pull request make
  the default branch's passing report the baseline (docs/ci.md).

Exit codes: 0 passed · 1 failed the thresholds · 2 could not check (usage, service, or a
report that could not see the site: a 401/403 homepage, refused credentials, a challenge)`;

const EXIT: Record<Outcome, number> = { pass: 0, fail: 1, error: 2 };

class UsageError extends Error {}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** How the CLI's messages name an input: its flag, or the variable it came from. */
function cliNames(values: Values): InputNames {
  const from = (flag: string, legacy: string, variable: string) =>
    values[flag] !== undefined ? `--${flag}` : values[legacy] !== undefined ? `--${legacy}` : variable;
  return {
    input: (name) => `--${name}`,
    bare: (name) => `--${name}`,
    siteAuth: {
      httpAuth: values["http-auth"] !== undefined ? "--http-auth" : "WPREPORT_HTTP_AUTH",
      headers: from("http-headers", "http-header", "WPREPORT_HTTP_HEADERS"),
      cookies: from("http-cookies", "http-cookie", "WPREPORT_HTTP_COOKIES"),
    },
  };
}

/** The flags as the Action's getInput: a repeated flag's values as lines, else its variable, else empty. */
function inputReader(values: Values, env: NodeJS.ProcessEnv) {
  const joined = (name: string, separator: string) => {
    const given = values[name];
    return Array.isArray(given) ? given.map(String).join(separator) : undefined;
  };
  return {
    getInput(name: string, options?: { required?: boolean }): string {
      const flag = FLAGS.find((one) => one.name === name && one.input);
      let value: string | undefined;
      if (name === "http-headers") value = joined("http-headers", "\n") ?? joined("http-header", "\n");
      else if (name === "http-cookies") value = joined("http-cookies", "; ") ?? joined("http-cookie", "; ");
      else if (flag?.multiple) value = joined(name, "\n");
      // A boolean flag (h8-lab's `--lab`) reads as the Action's "true".
      else if (typeof values[name] === "boolean") value = String(values[name]);
      else value = values[name] as string | undefined;
      value ??= flag?.env ? env[flag.env] : undefined;
      if (options?.required && !value?.trim())
        throw new UsageError(flag?.env ? `${flag.env} is not set (or give --${name})` : `--${name} is required`);
      return value ?? "";
    },
    // Nothing to mask: the CLI never prints its inputs' values.
    setSecret() {},
  };
}

interface Options {
  inputs: Inputs;
  format: "text" | "json" | "sarif";
  summaryFile?: string;
  sarifFile?: string;
}

function parse(argv: string[], env: NodeJS.ProcessEnv): Options | "help" | "version" {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: Object.fromEntries(
      FLAGS.map((flag) => [
        flag.name,
        {
          type: flag.value ? ("string" as const) : ("boolean" as const),
          ...(flag.multiple ? { multiple: true } : {}),
          ...(flag.short ? { short: flag.short } : {}),
        },
      ]),
    ),
  });
  if (values.help || positionals[0] === "help") return "help";
  if (values.version) return "version";
  if (positionals[0] !== "check")
    throw new UsageError(positionals[0] ? `unknown command "${positionals[0]}"` : "missing command");
  const format = (values.format as string | undefined) ?? "text";
  if (!["text", "json", "sarif"].includes(format)) throw new UsageError("--format must be text, json or sarif");
  let inputs: Inputs;
  try {
    inputs = readInputs(inputReader(values, env), cliNames(values));
  } catch (error) {
    if (error instanceof InputError) throw new UsageError(error.message.replace(/\.$/, ""));
    throw error;
  }
  return {
    inputs,
    format: format as Options["format"],
    summaryFile: values["summary-file"] as string | undefined,
    sarifFile: values["sarif-file"] as string | undefined,
  };
}

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: (s: string) => void,
  err: (s: string) => void,
  createClient: (options: ClientOptions) => WpreportClient = (options) => new WpreportClient(options),
): Promise<number> {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv, env);
  } catch (error) {
    err(`${(error as Error).message}\n\n${USAGE}`);
    return EXIT.error;
  }
  if (options === "help") {
    out(USAGE);
    return 0;
  }
  if (options === "version") {
    out(VERSION);
    return 0;
  }
  const { inputs } = options;
  const several = inputs.urls.length > 1;
  const client = createClient({
    apiUrl: inputs.apiUrl,
    token: inputs.token,
    userAgent: `wpreport-cli/${VERSION}`,
    deadline: Date.now() + inputs.timeoutSeconds * 1000,
    onRetry: ({ waitMs, reason }) => err(`wpreport: ${reason}; retrying in ${Math.round(waitMs / 1000)} s`),
  });
  try {
    const { sites, outcome, reports, failure, summary } = await runGate(
      client,
      { ...inputs, env },
      {
        log: err,
        warn: (message) => err(`wpreport: warning: ${message}`),
        reported: (site, made, replayed) => {
          if (replayed)
            err(
              `wpreport: ${several ? `${site.url}: ` : ""}this CI job already made the same request (same Idempotency-Key): ${made.id}, not charged again`,
            );
        },
        done: () => {},
      },
    );
    const location = sarifLocation(inputs.sarifLocation, env);
    if (options.format === "json") out(JSON.stringify(jsonOf(sites, outcome, several), null, 2));
    else if (options.format === "sarif") {
      if (reports.length > 0) out(JSON.stringify(sarifLogOf(reports, { apiUrl: inputs.apiUrl, location }), null, 2));
    } else out(textOf(sites, outcome, inputs.diffOptions.failOn));
    if (options.summaryFile) writeFile(options.summaryFile, summary());
    if (options.sarifFile && reports.length > 0)
      writeFile(
        options.sarifFile,
        `${JSON.stringify(sarifLogOf(reports, { apiUrl: inputs.apiUrl, location }), null, 2)}\n`,
      );
    // The last thing said, as the Action's failing step says it.
    if (failure) err(failure.startsWith("wpreport: ") ? failure : `wpreport: ${failure}`);
    return EXIT[outcome];
  } catch (error) {
    err(`wpreport: ${(error as Error).message}`);
    return EXIT.error;
  } finally {
    client.close();
  }
}

function writeFile(file: string, text: string): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, text);
}

/** One site: as before `--urls` (report, report_url, baseline_id, diff, with result); several: the outcome and each site. */
function jsonOf(sites: Site[], outcome: Outcome, several: boolean) {
  const one = (site: Site) => ({
    ...(several ? { url: site.url } : {}),
    ...siteVerdict(site),
    report: site.report ?? null,
    report_url: site.result?.links.report ?? null,
    baseline_id: site.result?.diff.base_id ?? null,
    diff: site.result?.diff ?? null,
  });
  const [first] = sites;
  return several || !first ? { result: outcome, sites: sites.map(one) } : one(first);
}

/** The text output: each site's (text.ts), after a line with the one verdict when there are several. */
function textOf(sites: Site[], outcome: Outcome, failOn: string): string {
  const parts = sites.map((site) =>
    site.result
      ? renderText(site.result.report, site.result.diff, failOn, site.result.links.report)
      : `wpreport: COULD NOT CHECK — ${site.url}\n  ✗ ${site.error ?? ""}`,
  );
  if (sites.length > 1) {
    const failed = sites.filter((site) => siteOutcome(site) !== "pass").length;
    parts.unshift(
      `wpreport: ${outcome === "pass" ? "PASSED" : outcome === "fail" ? "FAILED" : "COULD NOT CHECK"} — ${failed === 0 ? `all ${sites.length} sites passed` : `${failed} of ${sites.length} sites did not pass`}`,
    );
  }
  return parts.join("\n\n");
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
