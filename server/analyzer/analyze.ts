/**
 * The analyzer's interface: analyze(url, options, signal) → the analysis part of a Report.
 *
 * Pipeline: gather (network → artifacts) → detect (artifacts → components, hosting, users)
 * → extract (performance, SEO and security facts) → audit (facts → checks) → score
 * (checks → summary). Only gather touches the network; everything after it is pure and
 * tested on saved artifacts.
 *
 * With `enumerate` (the opt-in aggressive mode), the enumeration runs between gather and
 * the final detect: it asks only about components that passive detection did not find.
 *
 * Throws TargetNotAllowedError or SiteUnreachableError when there is nothing to report;
 * any other trouble ends up in the report's errors[].
 */
import type { Agent } from "undici/index.js";
import { DEFAULT_ANALYSIS_MODE, type Report, type ThemeInfo, type VulnerabilityData } from "../../shared/report.ts";
import { isEmptySiteAuth, type SiteAuth, siteAuthHeaders } from "../../shared/site-auth.ts";
import type { SiteTls } from "../../shared/site-tls.ts";
import type { Artifacts } from "./artifacts.ts";
import { runAudits } from "./audit/index.ts";
import { notCheckedOf } from "./audit/obstacles.ts";
import {
  completeness,
  INCOMPLETE_KIND,
  incompleteEntry,
  refusedCredentialsText,
  unseenSiteChecks,
} from "./completeness.ts";
import { enumeratedPlugins, installedThemes } from "./detect/enumerated.ts";
import type { NameLookup } from "./detect/finders/directory.ts";
import { askNames } from "./detect/finders/names-question.ts";
import { detectHosting } from "./detect/hosting.ts";
import { detectPlugins } from "./detect/plugins.ts";
import { detectSitePaths } from "./detect/site-paths.ts";
import { notWordPressNotice } from "./detect/stack.ts";
import { detectTheme } from "./detect/theme.ts";
import { detectUsers } from "./detect/users.ts";
import { isChallengePage } from "./detect/waf.ts";
import { detectWordPress } from "./detect/wordpress.ts";
import { enumerate } from "./enumeration/enumerate.ts";
import type { EnumerationPlan } from "./enumeration/plan.ts";
import { extractHomepage } from "./extract/homepage.ts";
import { extractPerformance } from "./extract/performance.ts";
import { extractProbeAnswers } from "./extract/probe-answers.ts";
import { extractSecurity, listedDirectories } from "./extract/security.ts";
import { extractSeo } from "./extract/seo.ts";
import type { Detected, Facts } from "./facts.ts";
import { type ClientLimits, DEFAULT_CLIENT_LIMITS, SafeClient } from "./fetch/safe-client.ts";
import type { TargetPolicy } from "./fetch/target-policy.ts";
import { gather } from "./gather/gather.ts";
import { applyIntel, COMPLETE_COVERAGE, emptyIntel, type Intel, type IntelLookup, intelQuery } from "./intel/index.ts";
import type { LabCapture } from "./lab/capture.ts";
import { summarise } from "./score.ts";

export type AnalysisResult = Pick<
  Report,
  | "final_url"
  | "redirects"
  | "summary"
  | "wordpress"
  | "theme"
  | "plugins"
  | "hosting"
  | "performance"
  | "seo"
  | "security"
  | "checks"
  | "not_checked"
  | "errors"
  | "intel"
  | "mode"
  | "enumeration"
  | "installed_themes"
  | "target_limits"
>;

export interface AnalyzeOptions {
  agent: Agent;
  policy: TargetPolicy;
  userAgent: string;
  limits?: ClientLimits;
  /**
   * Latest versions and known vulnerabilities: fixed data, or a lookup asked about the
   * detected components between detect and audit (the service's database). None by default.
   */
  intel?: Intel | IntelLookup;
  /** Aggressive mode: the enumeration's candidates and budgets (enumeration/plan.ts). Passive when absent. */
  enumerate?: EnumerationPlan;
  /**
   * The WordPress.org names index, asked about every name the site shows (the service's
   * database; detect/finders/names-question.ts): once the homepage is in, and after gather for
   * what the probes added. Without it, names map only through the signature table and the
   * site's own readmes.
   */
  names?: NameLookup;
  /** Credentials of a protected site, sent to the origin of `url` only (fetch/safe-client.ts). */
  siteAuth?: SiteAuth;
  /** The lab run's capture (lab/lab-run.ts, made beforehand in the worker): kept with the artifacts. */
  lab?: LabCapture;
  /**
   * How the site's certificate was checked when not by the public roots: `agent` must be one made
   * for it (createSafeAgent's `siteTls`); the report states it and its TLS checks skip.
   */
  siteTls?: SiteTls;
  /** A site that gave no answer lately: the quick check's deadline, before anything else (gather.ts). */
  quickCheckMs?: number;
  /**
   * Handed the artifacts once gathered (and enumerated), before detection: what the detection
   * evaluation (scripts/eval-detection.ts) saves, so its figures can be recomputed without a network.
   */
  onArtifacts?: (artifacts: Artifacts) => void;
}

/**
 * What one analysis asks for besides its URL, as a report's options become it for the analyzer
 * (server/reports/analyze-site.ts): plain data, since it crosses to an analysis thread.
 */
export interface AnalysisRun {
  /** Aggressive mode: the enumeration's plan; passive when absent. */
  enumerate?: EnumerationPlan;
  /** Requests per second to the site (absent: no pace). */
  requestsPerSecond?: number;
  /** Credentials of a protected site. */
  siteAuth?: SiteAuth;
  /** A staging site's certificate: not verified, or by a private CA (shared/site-tls.ts). */
  siteTls?: SiteTls;
  /** The lab run's capture, when one was asked for (made in the worker, handed over as data). */
  lab?: LabCapture;
  /** A site that gave no answer lately: check it answers within this many ms first. */
  quickCheckMs?: number;
}

export async function analyze(url: string, options: AnalyzeOptions, signal: AbortSignal): Promise<AnalysisResult> {
  const credentials = isEmptySiteAuth(options.siteAuth)
    ? undefined
    : { origin: new URL(url).origin, headers: siteAuthHeaders(options.siteAuth as SiteAuth) };
  const client = new SafeClient(
    options.agent,
    options.policy,
    signal,
    options.userAgent,
    options.limits ?? DEFAULT_CLIENT_LIMITS,
    credentials,
  );
  const artifacts = await gather(url, client, { names: options.names, signal, quickCheckMs: options.quickCheckMs });
  if (options.siteTls) artifacts.tls_verification = options.siteTls.mode;
  if (credentials) noteCredentialsOrigin(artifacts, credentials.origin);
  if (options.lab) artifacts.lab = options.lab;
  // What the probes added (REST namespaces, redirects' credit headers), if anything new.
  if (options.names) await askNames(artifacts, options.names, signal);
  if (options.enumerate) await enumerateComponents(client, artifacts, options.enumerate, signal);
  options.onArtifacts?.(artifacts);
  const detected = detect(artifacts);
  const source = options.intel ?? emptyIntel();
  let intel = emptyIntel();
  try {
    intel = typeof source === "function" ? await source(intelQuery(detected)) : source;
  } catch (error) {
    // The site's report still stands without component data; the checks then skip.
    const reason = (error as Error).message.replace(/\.+$/, "");
    const message = `Latest versions and known vulnerabilities could not be looked up: ${reason}`;
    artifacts.errors.push({ stage: "intel", kind: "intel_unavailable", message });
    intel = emptyIntel(
      `${message}: the known vulnerabilities of its components are unknown, and an empty list does not mean there are none.`,
    );
  }
  const result = resultFrom(detected, intel);
  if (credentials) noteRefusedCredentials(result, artifacts, credentials.origin);
  // The pace is the analyzer's part of the per-target limits; the worker adds the rest.
  if (client.pace > 0) {
    result.target_limits = {
      host: new URL(url).hostname,
      hit: client.pacedRequests > 0 ? ["requests_per_second"] : [],
      waited_ms: 0,
      requests_per_second: client.pace,
      aggressive_requests: options.enumerate ? options.enumerate.maxRequests : null,
    };
  }
  return result;
}

/**
 * A site whose homepage lives on another origin than the URL given (http → https, www. added, a
 * login gateway) got no credentials there: the report says so, so that a page of 401s is not
 * mistaken for the site.
 */
function noteCredentialsOrigin(artifacts: Artifacts, origin: string): void {
  const landed = new URL(artifacts.homepage.url).origin;
  if (landed === origin) return;
  artifacts.errors.push({
    stage: "homepage",
    url: artifacts.homepage.url,
    kind: "site_auth_not_sent",
    message: `The site redirected to ${landed}, another origin than the one the site credentials are for (${origin}); they are sent to that origin only, so requests to ${landed} went without them. Give the URL the site is served at.`,
  });
}

/**
 * Credentials were sent and the homepage still asks for them (401, 407) or refuses (403): the
 * incomplete report says the credentials were refused, not that the site wants some.
 */
function noteRefusedCredentials(result: AnalysisResult, artifacts: Artifacts, origin: string): void {
  const { status, url } = artifacts.homepage;
  if (new URL(url).origin !== origin) return;
  const entry = result.errors.find((error) => error.kind === INCOMPLETE_KIND && error.stage === "analysis");
  const refused = status === 401 || status === 403 || status === 407 ? refusedCredentialsText(status) : null;
  if (entry && refused) entry.message = refused;
}

/** Aggressive mode: enumeration of what passive detection did not find, on WordPress sites only. */
async function enumerateComponents(
  client: SafeClient,
  artifacts: Artifacts,
  plan: EnumerationPlan,
  signal: AbortSignal,
): Promise<void> {
  artifacts.mode = "aggressive";
  // Only what enumeration needs to know of passive detection: where WordPress is, and what it found.
  if (isChallengePage(artifacts.homepage)) return;
  const paths = detectSitePaths(artifacts);
  const wordpress = detectWordPress(artifacts, paths);
  if (!wordpress.detected) {
    artifacts.errors.push({
      stage: "enumeration",
      kind: "not_wordpress",
      message: "Aggressive enumeration was skipped: the site does not look like WordPress.",
    });
    return;
  }
  const plugins = detectPlugins(artifacts, paths, wordpress.version);
  const known = {
    plugins: lowerSlugs(plugins),
    themes: lowerSlugs(activeThemes(detectTheme(artifacts, paths))),
    unversionedPlugins: plugins.filter((plugin) => !plugin.version).map((plugin) => plugin.slug),
    versionedPlugins: plugins.filter((plugin) => plugin.version).map((plugin) => plugin.slug),
  };
  await enumerate(client, artifacts, paths, plan, known, signal);
}

const lowerSlugs = (components: readonly { slug: string }[]) =>
  new Set(components.map((component) => component.slug.toLowerCase()));
/** The active theme and its parent. */
const activeThemes = (theme: ThemeInfo | null) => (theme ? [theme, ...(theme.parent ? [theme.parent] : [])] : []);

/** Detect stage: components, hosting and users from the artifacts. */
export function detect(artifacts: Artifacts): Detected {
  const paths = detectSitePaths(artifacts);
  const hosting = detectHosting(artifacts);
  const wordpress = detectWordPress(artifacts, paths);
  const isWordPress = wordpress.detected;
  const theme = isWordPress ? detectTheme(artifacts, paths) : null;
  const passivePlugins = isWordPress ? detectPlugins(artifacts, paths, wordpress.version) : [];
  return {
    artifacts,
    paths,
    wordpress,
    hosting,
    theme,
    plugins: isWordPress ? [...passivePlugins, ...enumeratedPlugins(artifacts, lowerSlugs(passivePlugins))] : [],
    installedThemes: isWordPress ? installedThemes(artifacts, lowerSlugs(activeThemes(theme))) : [],
    users: isWordPress ? detectUsers(artifacts) : [],
  };
}

/**
 * Extract stage: the facts audits read — the report's performance, SEO and security facts,
 * and the internal ones (facts.ts). The artifacts stay behind: audits read facts only.
 */
export function extract(detected: Detected): Facts {
  const { artifacts: _artifacts, ...found } = detected;
  const security = extractSecurity(detected);
  return {
    ...found,
    performance: extractPerformance(detected),
    seo: extractSeo(detected),
    security,
    homepage: extractHomepage(detected),
    probes: extractProbeAnswers(detected),
    listedDirectories: listedDirectories(detected, security),
  };
}

/** Everything after gathering: pure, so saved artifacts reproduce a report exactly. */
export function buildResult(artifacts: Artifacts, intel: Intel = emptyIntel()): AnalysisResult {
  return resultFrom(detect(artifacts), intel);
}

function resultFrom(found: Detected, given: Intel): AnalysisResult {
  // Nothing detected to look up (not WordPress): no source was needed, so none is missing.
  const query = intelQuery(found);
  const nothingToCheck = !query.wordpress && query.plugins.length === 0 && query.themes.length === 0;
  const intel = nothingToCheck ? { ...given, coverage: COMPLETE_COVERAGE } : given;
  // Intel fills latest_version/outdated/vulnerabilities before the audits read them.
  const detected = applyIntel(found, intel);
  const { artifacts } = detected;
  const { homepage } = artifacts;
  const base = {
    final_url: homepage.url,
    redirects: homepage.redirects,
    wordpress: detected.wordpress,
    theme: detected.theme,
    plugins: detected.plugins,
    hosting: detected.hosting,
    intel: { sources: intel.sources, vulnerability_data: intel.coverage },
    mode: artifacts.mode ?? DEFAULT_ANALYSIS_MODE,
    enumeration: artifacts.enumeration ?? null,
    installed_themes: detected.installedThemes,
  };
  if (detected.hosting.blocked_by_waf) {
    // The homepage is a challenge page: reporting its "findings" would be reporting on the WAF.
    return {
      ...base,
      intel: { sources: intel.sources, vulnerability_data: unseenCoverage("was a firewall's challenge page") },
      summary: null,
      performance: null,
      seo: null,
      security: null,
      checks: [],
      not_checked: [],
      errors: [
        ...artifacts.errors,
        {
          stage: "homepage",
          url: homepage.url,
          kind: "blocked_by_waf",
          message: `The site answered with a ${detected.hosting.waf ?? "firewall"} challenge page instead of its homepage, so it could not be analysed. Allow the analyzer's User-Agent or IP in the firewall.`,
        },
      ],
    };
  }
  const facts = extract(detected);
  // Most probes got no answer, or the homepage is an error page: what was learnt stays, but no
  // grade is given (completeness.ts) — and behind an error page nothing passes.
  const complete = completeness(facts.probes, facts.homepage.status);
  const audited = runAudits(facts);
  const checks = complete.homepageError === null ? audited : unseenSiteChecks(audited, complete.homepageError);
  // A site that is not WordPress gets a report that says so, with what it runs on instead —
  // unless the homepage was an error page (a 401 of a protected staging site): that page does
  // not look like WordPress, and what it "runs on" is the proxy's, so nothing is said about it.
  const notWordPress =
    detected.wordpress.detected || complete.homepageError !== null
      ? []
      : [notWordPressNotice(detected.wordpress.confidence, detected.hosting)];
  const incomplete = complete.incomplete ? [incompleteEntry(complete)] : [];
  return {
    ...base,
    // No component seen behind an error page is not "no component, so nothing to check".
    ...(complete.homepageError === null
      ? {}
      : {
          intel: {
            sources: intel.sources,
            vulnerability_data: unseenCoverage(`answered HTTP ${complete.homepageError}`),
          },
        }),
    summary: complete.incomplete ? null : summarise(checks),
    performance: facts.performance,
    seo: facts.seo,
    security: facts.security,
    checks,
    not_checked: notCheckedOf(checks),
    errors: [...incomplete, ...notWordPress, ...artifacts.errors],
  };
}

/**
 * The vulnerability data of a report whose homepage was not the site (an error page, a firewall's
 * challenge): the site's components were never seen, so their vulnerabilities are unknown —
 * never "complete" because the page in front of it named no component.
 */
function unseenCoverage(homepage: string): VulnerabilityData {
  return {
    status: "none",
    message: `The site's homepage ${homepage}, so its components were not seen: their known vulnerabilities are unknown, and an empty list does not mean there are none.`,
    unchecked: [],
  };
}
