/** The Action's inputs, read and validated once; every bad value is reported in plain words. */

import { readFileSync } from "node:fs";
import { type Baseline, type ParsedDiffOptions, parseBaseline, parseDiffOptions } from "../../shared/diff-options.ts";
import { ANALYSIS_MODES, type AnalysisMode } from "../../shared/report.ts";
import { parseSarifLocation, SarifLocationError } from "../../shared/sarif.ts";
import { parseSiteAuthInputs, type SiteAuth, SiteAuthInputError, siteAuthSecrets } from "../../shared/site-auth.ts";
import { type ActionCore, actionsCore } from "./action-core.ts";
import { LabOptionsError, type LabRequest, parseLabOptions } from "./lab-options.ts";

/** At most this many sites a step: the SARIF file holds one run per site, and code scanning takes 20 runs a file. */
export const MAX_URLS = 20;

export interface Inputs {
  apiUrl: string;
  token: string;
  /** The sites to analyze: `url`, or the list `urls` (one report, one diff each; one verdict). */
  urls: string[];
  baseline: Baseline;
  diffOptions: ParsedDiffOptions;
  environment: string | undefined;
  commentOnPr: boolean;
  githubToken: string;
  timeoutSeconds: number;
  waitForSiteSeconds: number;
  /** Absent: the service's default. */
  mode?: AnalysisMode;
  /** Inputs lab, lab-device, lab-throttling, lab-runs; absent: no lab run. */
  lab?: LabRequest;
  /** The job's matrix values as JSON (`toJSON(matrix)`, the input's default): part of the Idempotency-Key. */
  matrix: string;
  /** The repository file SARIF results attach to; undefined: the workflow file (sarif-file.ts). */
  sarifLocation: string | undefined;
  /** Credentials of a protected site (http-auth, http-headers, http-cookies), from secrets. */
  siteAuth: SiteAuth | undefined;
  /** `tls: insecure`: the site's certificate is not verified (its own origin only). */
  tls?: "insecure";
  /** `tls-ca`: the PEM of a private CA the site's certificate is verified against. */
  tlsCa?: string;
}

export class InputError extends Error {}

/**
 * How messages name an input: the Action's `Input fail-on` (and `url` in running text), the
 * CLI's `--fail-on` — the same inputs, read by the same code (cli.ts passes its flags as inputs).
 */
export interface InputNames {
  /** The input at the start of a message: "Input fail-on", "--fail-on". */
  input(name: string): string;
  /** The input in running text: "urls", "--urls". */
  bare(name: string): string;
  /** The names of the site credentials' inputs, for parseSiteAuthInputs' messages. */
  siteAuth: { httpAuth: string; headers: string; cookies: string };
}

export const ACTION_NAMES: InputNames = {
  input: (name) => `Input ${name}`,
  bare: (name) => name,
  siteAuth: { httpAuth: "Input http-auth", headers: "Input http-headers", cookies: "Input http-cookies" },
};

/** The names of the diff's options, for parseDiffOptions' messages. */
const diffNames = (names: InputNames) => ({
  failOn: names.input("fail-on"),
  maxScoreDrop: names.input("max-score-drop"),
  budgets: names.input("budgets"),
  assert: names.input("assert"),
  baseline: names.input("baseline"),
});

/**
 * The `urls` input: one URL a line or comma-separated; a YAML list written into the block
 * scalar (`- https://…`) reads the same, blank lines and `#` comments are skipped.
 */
function urlList(raw: string): string[] {
  return raw
    .split(/[\n,]/)
    .map((line) => line.trim().replace(/^-\s+/, ""))
    .filter((line) => line !== "" && !line.startsWith("#"));
}

function checkUrl(names: InputNames, name: string, value: string): void {
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error();
  } catch {
    throw new InputError(
      `${names.input(name)} must be ${name === "urls" ? "a list of" : "an"} http(s) URL${name === "urls" ? "s" : ""}, got "${value}".`,
    );
  }
}

function number(names: InputNames, name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value < min || value > max) {
    throw new InputError(`${names.input(name)} must be a number from ${min} to ${max}, got "${raw}".`);
  }
  return value;
}

export function readInputs(
  runner: Pick<ActionCore, "getInput" | "setSecret"> = actionsCore,
  names: InputNames = ACTION_NAMES,
): Inputs {
  const apiUrl = runner.getInput("api-url", { required: true }).trim();
  const token = runner.getInput("api-token", { required: true }).trim();
  // Mask it before anything else can print it.
  runner.setSecret(token);
  checkUrl(names, "api-url", apiUrl);
  const url = runner.getInput("url").trim();
  const list = urlList(runner.getInput("urls"));
  if (url !== "" && list.length > 0)
    throw new InputError(`Give either ${names.bare("url")} (one site) or ${names.bare("urls")} (several), not both.`);
  if (url === "" && list.length === 0)
    throw new InputError(`${names.input("url")} is required (or ${names.bare("urls")}, for several sites).`);
  const urls = url !== "" ? [url] : list;
  for (const value of urls) checkUrl(names, url !== "" ? "url" : "urls", value);
  if (urls.length > MAX_URLS)
    throw new InputError(`${names.input("urls")} takes at most ${MAX_URLS} sites, got ${urls.length}.`);
  const twice = urls.find((value, i) => urls.indexOf(value) !== i);
  if (twice) throw new InputError(`${names.input("urls")} names ${twice} twice.`);
  const baseline = parseBaseline(runner.getInput("baseline"), names.input("baseline"));
  // Inputs are case-insensitive where they name a value (fail-on, mode, comment-on-pr).
  const diffOptions = parseDiffOptions(
    {
      failOn: runner.getInput("fail-on").toLowerCase(),
      maxScoreDrop: runner.getInput("max-score-drop"),
      budgets: runner.getInput("budgets"),
      assert: runner.getInput("assert"),
    },
    diffNames(names),
  );
  const sarifLocationInput = runner.getInput("sarif-location").trim() || undefined;
  let sarifLocation: string | undefined;
  try {
    sarifLocation = parseSarifLocation(sarifLocationInput);
  } catch (error) {
    if (!(error instanceof SarifLocationError)) throw error;
    throw new InputError(`${names.input("sarif-location")} ${error.problem}, got "${sarifLocationInput}".`);
  }
  // Empty: the service's default mode (passive); the Action sends only what was asked for.
  const mode = runner.getInput("mode").trim().toLowerCase() || undefined;
  if (mode !== undefined && !ANALYSIS_MODES.includes(mode as AnalysisMode)) {
    throw new InputError(`${names.input("mode")} must be passive or aggressive, got "${mode}".`);
  }
  let lab: LabRequest | undefined;
  try {
    lab = parseLabOptions(
      {
        lab: runner.getInput("lab"),
        device: runner.getInput("lab-device"),
        throttling: runner.getInput("lab-throttling"),
        runs: runner.getInput("lab-runs"),
      },
      {
        lab: names.input("lab"),
        device: names.input("lab-device"),
        throttling: names.input("lab-throttling"),
        runs: names.input("lab-runs"),
      },
    );
  } catch (error) {
    if (error instanceof LabOptionsError) throw new InputError(error.message);
    throw error;
  }
  const siteAuth = readSiteAuth(runner, names);
  // Credentials belong to one site: with several URLs they would go to each URL's origin, so
  // every URL must be on that one origin (another site would receive this site's secrets).
  const origins = new Set(urls.map((value) => new URL(value).origin));
  if (siteAuth && origins.size > 1) {
    throw new InputError(
      `${names === ACTION_NAMES ? "Inputs http-auth, http-headers and http-cookies are" : "--http-auth, --http-headers and --http-cookies are"} one site's credentials, but ${names.bare("urls")} name ${origins.size} origins (${[...origins].join(", ")}); run one step per protected site.`,
    );
  }
  const { tls, tlsCa } = readSiteTls(runner, names);
  const commentRaw = runner.getInput("comment-on-pr").trim().toLowerCase() || "false";
  if (!["true", "false"].includes(commentRaw))
    throw new InputError(`${names.input("comment-on-pr")} must be true or false, got "${commentRaw}".`);
  return {
    apiUrl: apiUrl.replace(/\/+$/, ""),
    token,
    urls,
    baseline,
    diffOptions,
    environment: runner.getInput("environment").trim().slice(0, 64) || undefined,
    commentOnPr: commentRaw === "true",
    githubToken: runner.getInput("github-token").trim(),
    timeoutSeconds: number(names, "timeout", runner.getInput("timeout").trim() || "600", 10, 6 * 3600),
    waitForSiteSeconds: number(names, "wait-for-site", runner.getInput("wait-for-site").trim() || "0", 0, 3600),
    mode: mode as AnalysisMode | undefined,
    ...(lab ? { lab } : {}),
    matrix: runner.getInput("matrix"),
    sarifLocation,
    siteAuth,
    ...(tls ? { tls } : {}),
    ...(tlsCa ? { tlsCa } : {}),
  };
}

/**
 * A staging site's certificate rule: `tls` (verify, the default, or insecure) and `tls-ca` (a
 * PEM, or the path of a PEM file — a workspace file is easier to keep than a multi-line input).
 * Checked here, so a typo fails the step before any request.
 */
function readSiteTls(runner: Pick<ActionCore, "getInput">, names: InputNames): { tls?: "insecure"; tlsCa?: string } {
  const tls = runner.getInput("tls").trim().toLowerCase();
  if (tls !== "" && tls !== "verify" && tls !== "insecure")
    throw new InputError(`${names.input("tls")} must be verify or insecure, got "${tls.slice(0, 40)}".`);
  const raw = runner.getInput("tls-ca").trim();
  let tlsCa: string | undefined;
  if (raw) {
    if (raw.includes("-----BEGIN")) tlsCa = raw;
    else {
      try {
        tlsCa = readFileSync(raw, "utf8");
      } catch (error) {
        throw new InputError(
          `${names.input("tls-ca")} is neither a PEM nor a readable file (${(error as NodeJS.ErrnoException).code ?? "error"}: ${raw.slice(0, 200)}).`,
        );
      }
    }
    if (!tlsCa.includes("-----BEGIN CERTIFICATE-----"))
      throw new InputError(`${names.input("tls-ca")} holds no PEM certificate (-----BEGIN CERTIFICATE-----).`);
  }
  if (tls === "insecure" && tlsCa)
    throw new InputError(
      `${names.input("tls-ca")} cannot be given with tls: insecure (a certificate that is not verified needs no CA).`,
    );
  return { ...(tls === "insecure" ? { tls: "insecure" as const } : {}), ...(tlsCa ? { tlsCa } : {}) };
}

/**
 * Site credentials: `http-auth` (user:password), `http-headers` (one `Name: value` per line),
 * `http-cookies` (`name=value` pairs separated by `;` or lines) — meant to come from secrets.
 * Every secret part is masked in the log before anything else can print it (the runner masks
 * the whole input only, not the base64 of user:password nor one line of several).
 */
function readSiteAuth(runner: Pick<ActionCore, "getInput" | "setSecret">, names: InputNames): SiteAuth | undefined {
  const raw = {
    httpAuth: runner.getInput("http-auth"),
    headers: runner.getInput("http-headers"),
    cookies: runner.getInput("http-cookies"),
  };
  for (const value of Object.values(raw)) if (value.trim()) runner.setSecret(value);
  let siteAuth: SiteAuth | undefined;
  try {
    siteAuth = parseSiteAuthInputs(raw, names.siteAuth);
  } catch (error) {
    if (error instanceof SiteAuthInputError) throw new InputError(`${error.message}.`);
    throw error;
  }
  for (const secret of siteAuthSecrets(siteAuth)) runner.setSecret(secret);
  return siteAuth;
}
