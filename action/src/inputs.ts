/** The Action's inputs, read and validated once; every bad value is reported in plain words. */
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
}

export class InputError extends Error {}

/** The Action's names of the diff's options, for messages. */
const INPUT_NAMES = {
  failOn: "Input fail-on",
  maxScoreDrop: "Input max-score-drop",
  budgets: "Input budgets",
  assert: "Input assert",
  baseline: "Input baseline",
};

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

function checkUrl(name: string, value: string): void {
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error();
  } catch {
    throw new InputError(
      `Input ${name} must be ${name === "urls" ? "a list of" : "an"} http(s) URL${name === "urls" ? "s" : ""}, got "${value}".`,
    );
  }
}

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
  checkUrl("api-url", apiUrl);
  const url = runner.getInput("url").trim();
  const list = urlList(runner.getInput("urls"));
  if (url !== "" && list.length > 0) throw new InputError("Give either url (one site) or urls (several), not both.");
  if (url === "" && list.length === 0) throw new InputError("Input url is required (or urls, for several sites).");
  const urls = url !== "" ? [url] : list;
  for (const value of urls) checkUrl(url !== "" ? "url" : "urls", value);
  if (urls.length > MAX_URLS) throw new InputError(`Input urls takes at most ${MAX_URLS} sites, got ${urls.length}.`);
  const twice = urls.find((value, i) => urls.indexOf(value) !== i);
  if (twice) throw new InputError(`Input urls names ${twice} twice.`);
  const baseline = parseBaseline(runner.getInput("baseline"), "Input baseline");
  // Inputs are case-insensitive where they name a value (fail-on, mode, comment-on-pr).
  const diffOptions = parseDiffOptions(
    {
      failOn: runner.getInput("fail-on").toLowerCase(),
      maxScoreDrop: runner.getInput("max-score-drop"),
      budgets: runner.getInput("budgets"),
      assert: runner.getInput("assert"),
    },
    INPUT_NAMES,
  );
  const sarifLocationInput = runner.getInput("sarif-location").trim() || undefined;
  let sarifLocation: string | undefined;
  try {
    sarifLocation = parseSarifLocation(sarifLocationInput);
  } catch (error) {
    if (!(error instanceof SarifLocationError)) throw error;
    throw new InputError(`Input sarif-location ${error.problem}, got "${sarifLocationInput}".`);
  }
  // Empty: the service's default mode (passive); the Action sends only what was asked for.
  const mode = runner.getInput("mode").trim().toLowerCase() || undefined;
  if (mode !== undefined && !ANALYSIS_MODES.includes(mode as AnalysisMode)) {
    throw new InputError(`Input mode must be passive or aggressive, got "${mode}".`);
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
      { lab: "Input lab", device: "Input lab-device", throttling: "Input lab-throttling", runs: "Input lab-runs" },
    );
  } catch (error) {
    if (error instanceof LabOptionsError) throw new InputError(error.message);
    throw error;
  }
  const siteAuth = readSiteAuth(runner);
  // Credentials belong to one site: with several URLs they would go to each URL's origin, so
  // every URL must be on that one origin (another site would receive this site's secrets).
  const origins = new Set(urls.map((value) => new URL(value).origin));
  if (siteAuth && origins.size > 1) {
    throw new InputError(
      `Inputs http-auth, http-headers and http-cookies are one site's credentials, but urls name ${origins.size} origins (${[...origins].join(", ")}); run one step per protected site.`,
    );
  }
  const commentRaw = runner.getInput("comment-on-pr").trim().toLowerCase() || "false";
  if (!["true", "false"].includes(commentRaw))
    throw new InputError(`Input comment-on-pr must be true or false, got "${commentRaw}".`);
  return {
    apiUrl: apiUrl.replace(/\/+$/, ""),
    token,
    urls,
    baseline,
    diffOptions,
    environment: runner.getInput("environment").trim().slice(0, 64) || undefined,
    commentOnPr: commentRaw === "true",
    githubToken: runner.getInput("github-token").trim(),
    timeoutSeconds: number("timeout", runner.getInput("timeout").trim() || "600", 10, 6 * 3600),
    waitForSiteSeconds: number("wait-for-site", runner.getInput("wait-for-site").trim() || "0", 0, 3600),
    mode: mode as AnalysisMode | undefined,
    ...(lab ? { lab } : {}),
    matrix: runner.getInput("matrix"),
    sarifLocation,
    siteAuth,
  };
}

/**
 * Site credentials: `http-auth` (user:password), `http-headers` (one `Name: value` per line),
 * `http-cookies` (`name=value` pairs separated by `;` or lines) — meant to come from secrets.
 * Every secret part is masked in the log before anything else can print it (the runner masks
 * the whole input only, not the base64 of user:password nor one line of several).
 */
function readSiteAuth(runner: Pick<ActionCore, "getInput" | "setSecret">): SiteAuth | undefined {
  const raw = {
    httpAuth: runner.getInput("http-auth"),
    headers: runner.getInput("http-headers"),
    cookies: runner.getInput("http-cookies"),
  };
  for (const value of Object.values(raw)) if (value.trim()) runner.setSecret(value);
  let siteAuth: SiteAuth | undefined;
  try {
    siteAuth = parseSiteAuthInputs(raw, SITE_AUTH_INPUTS);
  } catch (error) {
    if (error instanceof SiteAuthInputError) throw new InputError(`${error.message}.`);
    throw error;
  }
  for (const secret of siteAuthSecrets(siteAuth)) runner.setSecret(secret);
  return siteAuth;
}

const SITE_AUTH_INPUTS = { httpAuth: "Input http-auth", headers: "Input http-headers", cookies: "Input http-cookies" };
