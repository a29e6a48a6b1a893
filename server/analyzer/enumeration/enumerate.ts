/**
 * Aggressive enumeration (opt-in, `"mode": "aggressive"`): asks the site about plugins and
 * themes it does not show, from a plan (plan.ts). Never part of a default report.
 *
 * How presence is told, cheaply and without false positives:
 * - First a calibration: a random plugin directory (and a random theme's style.css) that
 *   cannot exist. Only when the site answers it 404 do answers about real slugs mean
 *   anything; a site that answers every path alike is reported as `unreliable` and not
 *   enumerated.
 * - A plugin: HEAD `<content>/plugins/<slug>/`. A directory that exists answers 403 (no
 *   listing), 200 (index.php or a listing) or 401; a missing one 404. Directory answers
 *   are what WPScan's known-locations finder reads too; they work for plugins without a
 *   readme.txt (Debian's packaged plugins have none). When the calibration directory does
 *   not answer 404, the readme.txt is asked instead.
 * - A theme: HEAD `<content>/themes/<slug>/style.css`, which every theme has.
 * - Found ones get one GET of their readme.txt / style.css (capped) for the name and version.
 * - Version files (gather/version-files.ts): before enumerating, the plugins passive detection
 *   found get their changelogs, translation template, manifests and own asset read until two
 *   sources agree on their version (within PASSIVE_VERSION_SHARE of the budget); after it, the
 *   plugins it found, with what is left.
 * Over HTTP/2 the presence questions are HEADs: WordPress answers a HEAD for a missing path
 * without rendering its theme, so the hundreds of misses cost the site little. Over HTTP/1.1
 * they are GETs read to a few KB: undici closes an HTTP/1.1 connection after every HEAD (a
 * server may send a body anyway), and hundreds of new connections would cost the site more
 * than its 404 pages do (the same rule as gather's HEAD-first probes).
 *
 * Budgets: at most `maxRequests` requests and `timeBudgetMs` of wall time, checked before each
 * request, and the client's own per-site concurrency. Where it stopped is in the summary.
 */
import type { EnumerationSummary } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import type { SitePaths } from "../detect/site-paths.ts";
import { FetchFailure, type FetchResult, type SafeClient } from "../fetch/safe-client.ts";
import { toArtifact } from "../gather/decode.ts";
import { PROBE_MAX_BYTES, type ProbeSpec, probeKey, probeUrl } from "../gather/probes.ts";
import { VersionFiles } from "../gather/version-files.ts";
import type { EnumerationPlan } from "./plan.ts";

/** Statuses that mean "this directory exists" (403: exists, not listable). */
const DIRECTORY_FOUND = new Set([200, 401, 403]);
/** Parallel askers; the client's per-site limit still applies underneath. */
const WORKERS = 6;
/** Consecutive failed requests (timeouts, resets) after which the site is left alone. */
const MAX_CONSECUTIVE_FAILURES = 5;
const README_BYTES = 32 * 1024;
/** Read of a presence answer over HTTP/1.1: a 403 or 404 page's start is all that matters. */
const PRESENCE_BYTES = 2 * 1024;
const STYLE_BYTES = 16 * 1024;

class BudgetSpent extends Error {
  constructor(readonly reason: EnumerationSummary["stopped_by"]) {
    super(reason);
  }
}

/** An asker that hit a budget just stops; anything else is a real failure. */
function stopOnBudget(error: unknown): void {
  if (!(error instanceof BudgetSpent)) throw error;
}

export interface KnownComponents {
  /** Lower-case slugs passive detection found: not probed again. */
  plugins: ReadonlySet<string>;
  themes: ReadonlySet<string>;
  /** The plugins passive detection found, as written: their version files are read first. */
  pluginSlugs: readonly string[];
}

/** Share of the request budget the version files of the plugins passive detection found may take before enumeration starts. */
export const PASSIVE_VERSION_SHARE = 1 / 3;

/**
 * Runs the plan against the site, skipping what passive detection already found. Answers
 * land in `artifacts.probes` (`enum_plugin:<slug>`, `enum_theme:<slug>`, the found ones'
 * `plugin_readme:<slug>` / `theme_style:<slug>`, and version files such as
 * `plugin_changelog:<slug>`), the summary in `artifacts.enumeration` (its `requests` count
 * the version files too).
 */
export async function enumerate(
  client: SafeClient,
  artifacts: Artifacts,
  paths: SitePaths,
  plan: EnumerationPlan,
  known: KnownComponents,
  signal?: AbortSignal,
): Promise<EnumerationSummary> {
  const started = performance.now();
  const deadline = started + plan.timeBudgetMs;
  let requests = 0;
  let failures = 0;
  /** Set by the first asker that hits a budget: every other asker stops at its next request. */
  let halted: BudgetSpent | undefined;
  const halt = (reason: EnumerationSummary["stopped_by"]) => {
    halted ??= new BudgetSpent(reason);
    throw halted;
  };

  // HEAD over HTTP/2 only (see above); a GET that answers a presence question is read just far
  // enough to hold a readme's or stylesheet's header, so a found one needs no second request.
  const presenceMethod = artifacts.homepage.http_version === "2" ? "HEAD" : "GET";
  const ask = async (
    url: string,
    method: "HEAD" | "GET",
    maxBodyBytes = 0,
    options: { headers?: Readonly<Record<string, string>>; follow?: boolean } = {},
  ): Promise<FetchResult | undefined> => {
    if (halted) throw halted;
    if (signal?.aborted) halt("deadline");
    if (requests >= plan.maxRequests) halt("request_budget");
    const left = deadline - performance.now();
    if (left <= 0) halt("time_budget");
    requests += 1;
    try {
      const result = await client.fetch(url, {
        method,
        follow: options.follow ?? false,
        headers: options.headers,
        maxBodyBytes,
        timeoutMs: Math.max(1, Math.min(left, 5_000)),
      });
      failures = 0;
      return result;
    } catch (error) {
      if (error instanceof FetchFailure && error.kind === "aborted") halt("deadline");
      // The analysis's byte budget: nothing more may be read from this site.
      if (error instanceof FetchFailure && error.kind === "budget") halt("request_budget");
      failures += 1;
      if (failures >= MAX_CONSECUTIVE_FAILURES) halt("site_errors");
      return undefined;
    }
  };

  const random = () => `wpreport-${crypto.randomUUID().slice(0, 8)}`;
  // The URLs of the catalogue's records (gather/probe-kinds.ts), whose keys the answers are kept under.
  const pluginDir = (slug: string) => probeUrl("enum_plugin", paths, slug);
  const pluginReadme = (slug: string) => probeUrl("plugin_readme", paths, slug);
  const themeStyle = (slug: string) => probeUrl("enum_theme", paths, slug);

  const summary: EnumerationSummary = {
    budget: { max_requests: plan.maxRequests, time_budget_ms: plan.timeBudgetMs },
    requests: 0,
    duration_ms: 0,
    stopped_by: "finished",
    plugins: {
      method: "unreliable",
      candidates: plan.plugins.length,
      vulnerable_candidates: plan.vulnerable.plugins,
      probed: 0,
      found: [],
    },
    themes: {
      method: "unreliable",
      candidates: plan.themes.length,
      vulnerable_candidates: plan.vulnerable.themes,
      probed: 0,
      found: [],
    },
  };

  /** A version file (gather/version-files.ts), asked within the budget and filed under its key. */
  const runProbe = async (spec: ProbeSpec): Promise<HttpArtifact | undefined> => {
    const result = await ask(spec.url, "GET", spec.maxBytes ?? PROBE_MAX_BYTES, {
      headers: spec.headers,
      follow: spec.follow ?? true,
    });
    if (result) artifacts.probes[spec.key] = toArtifact(result);
    return artifacts.probes[spec.key];
  };
  /** Reads the version files of `slugs`, WORKERS plugins at a time, within `maxRequests`. */
  const readVersions = async (slugs: readonly string[], maxRequests: number) => {
    const reader = new VersionFiles({
      artifacts,
      paths,
      mode: "aggressive",
      run: runProbe,
      maxRequests,
      perPlugin: 100,
    });
    let next = 0;
    const worker = async () => {
      while (next < slugs.length && !halted) await reader.follow(slugs[next++] as string, false);
    };
    await Promise.all(Array.from({ length: WORKERS }, () => worker().catch(stopOnBudget)));
  };

  try {
    // The plugins the page shows are the ones that run: their versions matter most, so their
    // files are read first, within a share of the budget that leaves enumeration the rest.
    await readVersions(known.pluginSlugs, Math.floor(plan.maxRequests * PASSIVE_VERSION_SHARE));

    // Calibration: how does this site answer for a component that cannot exist?
    const [dirMiss, readmeMiss, styleMiss] = await Promise.all([
      ask(pluginDir(random()), presenceMethod, PRESENCE_BYTES),
      ask(pluginReadme(random()), presenceMethod, PRESENCE_BYTES),
      ask(themeStyle(random()), presenceMethod, PRESENCE_BYTES),
    ]);
    const isMiss = (result: FetchResult | undefined) => result?.status === 404 || result?.status === 410;
    summary.plugins.method = isMiss(dirMiss) ? "directory" : isMiss(readmeMiss) ? "readme" : "unreliable";
    summary.themes.method = isMiss(styleMiss) ? "style_css" : "unreliable";

    type Task = { kind: "plugin" | "theme"; slug: string };
    /** The kind's candidates not found passively, split into the vulnerable lead and the rest. */
    const wanted = (kind: Task["kind"], slugs: readonly string[], vulnerable: number, skip: ReadonlySet<string>) => {
      const tasks = (from: readonly string[]) =>
        from.filter((slug) => !skip.has(slug.toLowerCase())).map((slug): Task => ({ kind, slug }));
      return { lead: tasks(slugs.slice(0, vulnerable)), rest: tasks(slugs.slice(vulnerable)) };
    };
    const none = { lead: [], rest: [] };
    const plugins =
      summary.plugins.method === "unreliable"
        ? none
        : wanted("plugin", plan.plugins, plan.vulnerable.plugins, known.plugins);
    const themes =
      summary.themes.method === "unreliable"
        ? none
        : wanted("theme", plan.themes, plan.vulnerable.themes, known.themes);
    // Vulnerable candidates of both kinds before the popular ones: they matter most if a budget runs out.
    const queue: Task[] = [...plugins.lead, ...themes.lead, ...plugins.rest, ...themes.rest];

    const probePlugin = async (slug: string) => {
      const byDirectory = summary.plugins.method === "directory";
      const readmeUrl = pluginReadme(slug);
      const presence = await ask(
        byDirectory ? pluginDir(slug) : readmeUrl,
        presenceMethod,
        byDirectory ? PRESENCE_BYTES : README_BYTES,
      );
      summary.plugins.probed += 1;
      if (!presence || !(byDirectory ? DIRECTORY_FOUND.has(presence.status) : presence.status === 200)) return;
      artifacts.probes[probeKey("enum_plugin", slug)] = toArtifact(presence);
      summary.plugins.found.push(slug);
      if (artifacts.probes[probeKey("plugin_readme", slug)]) return;
      const readme = !byDirectory && presenceMethod === "GET" ? presence : await ask(readmeUrl, "GET", README_BYTES);
      if (readme) artifacts.probes[probeKey("plugin_readme", slug)] = toArtifact(readme);
    };
    const probeTheme = async (slug: string) => {
      const presence = await ask(themeStyle(slug), presenceMethod, STYLE_BYTES);
      summary.themes.probed += 1;
      if (presence?.status !== 200) return;
      artifacts.probes[probeKey("enum_theme", slug)] = toArtifact(presence);
      summary.themes.found.push(slug);
      if (artifacts.probes[probeKey("theme_style", slug)]) return;
      const style = presenceMethod === "GET" ? presence : await ask(themeStyle(slug), "GET", STYLE_BYTES);
      if (style) artifacts.probes[probeKey("theme_style", slug)] = toArtifact(style);
    };

    let next = 0;
    const worker = async () => {
      while (next < queue.length && !halted) {
        const task = queue[next++] as Task;
        await (task.kind === "plugin" ? probePlugin(task.slug) : probeTheme(task.slug));
      }
    };
    // Every asker returns before this does, so nothing writes to the artifacts afterwards.
    await Promise.all(Array.from({ length: WORKERS }, () => worker().catch(stopOnBudget)));

    // The plugins enumeration found: their readme is in; their other files with what is left.
    await readVersions(summary.plugins.found, Number.POSITIVE_INFINITY);
  } catch (error) {
    if (!(error instanceof BudgetSpent)) throw error;
  }
  const stoppedBy = halted?.reason ?? "finished";
  summary.requests = requests;
  summary.duration_ms = Math.round(performance.now() - started);
  summary.stopped_by = stoppedBy;
  summary.plugins.found.sort();
  summary.themes.found.sort();
  if (stoppedBy !== "finished") {
    artifacts.errors.push({
      stage: "enumeration",
      kind: stoppedBy,
      message: STOPPED_MESSAGES[stoppedBy],
    });
  }
  artifacts.enumeration = summary;
  return summary;
}

const STOPPED_MESSAGES: Record<EnumerationSummary["stopped_by"], string> = {
  finished: "",
  request_budget: "Aggressive enumeration stopped at its request budget; the slugs after that point were not probed.",
  time_budget: "Aggressive enumeration stopped at its time budget; the slugs after that point were not probed.",
  deadline: "Aggressive enumeration stopped at the report's deadline.",
  site_errors: "Aggressive enumeration stopped: the site failed several requests in a row, so it was left alone.",
};
