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
 * - Version files (gather/version-files.ts): what was found is read before anything new is
 *   looked for. First the plugins passive detection found without a version get their
 *   changelogs, translation templates, manifests and own asset read until two sources agree on
 *   their version, within the whole budget; then enumeration starts, and each plugin it finds
 *   without a version gets its files read at once, from requests set aside for it that the
 *   slug probes may not spend. Last, with what is left, the plugins found with one version get
 *   their files read for a second source.
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
import { PROBE_MAX_BYTES, type ProbeSpec, probeUrl } from "../gather/probes.ts";
import { VERSION_FILE_ORDER, VersionFiles } from "../gather/version-files.ts";
import { probeKey } from "../probe-keys.ts";
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

/** Thrown to one plugin's file reads when the requests set aside for them and the free budget are spent. */
class ReadsCut extends Error {}

export interface KnownComponents {
  /** Lower-case slugs passive detection found: not probed again. */
  plugins: ReadonlySet<string>;
  themes: ReadonlySet<string>;
  /** The plugins passive detection found without a version, as written: their files are read before anything else. */
  unversionedPlugins: readonly string[];
  /** The plugins it found with a version: their files are read for a second source with what enumeration left. */
  versionedPlugins: readonly string[];
}

/** Requests set aside for a plugin enumeration found: its readme and every version file aggressive mode reads. */
const FILES_PER_PLUGIN = 1 + VERSION_FILE_ORDER.aggressive.length;

/** Requests set aside for one plugin's files; what is left of them goes back when its reads end. */
interface Reservation {
  left: number;
}

/**
 * The request budget, with requests set aside for the files of the plugins enumeration finds:
 * the slug probes may spend only what nobody set aside, so a plugin found late still gets its
 * files read however many slugs are left.
 */
class RequestBudget {
  spent = 0;
  private reserved = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  /** Sets aside up to `wanted` requests of what is free. */
  reserve(wanted: number): Reservation {
    const left = Math.max(0, Math.min(wanted, this.max - this.spent - this.reserved));
    this.reserved += left;
    return { left };
  }

  /** Gives back what a reservation did not spend, and wakes the probes that waited for it. */
  release(reservation: Reservation): void {
    this.reserved -= reservation.left;
    reservation.left = 0;
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** Takes one request: from the reservation while it has some, else from what is free. */
  take(reservation?: Reservation): boolean {
    if (reservation && reservation.left > 0) {
      reservation.left -= 1;
      this.reserved -= 1;
    } else if (this.spent + this.reserved >= this.max) return false;
    this.spent += 1;
    return true;
  }

  /** Whether some requests are set aside (and may come back). */
  get setAside(): boolean {
    return this.reserved > 0;
  }

  /** Resolves when a reservation gives back what it did not spend. */
  released(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

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
  const budget = new RequestBudget(plan.maxRequests);
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
  /**
   * One request within the budgets. `reservation`: the requests set aside for one found
   * plugin's files — when they and the free budget are spent, only that plugin's reads end
   * (ReadsCut). Without one (a slug probe), a request waits while found plugins' reads hold
   * what is left, and the enumeration stops once nothing is left.
   */
  const ask = async (
    url: string,
    method: "HEAD" | "GET",
    maxBodyBytes = 0,
    options: { headers?: Readonly<Record<string, string>>; follow?: boolean } = {},
    reservation?: Reservation,
  ): Promise<FetchResult | undefined> => {
    for (;;) {
      if (halted) throw halted;
      if (signal?.aborted) halt("deadline");
      if (deadline - performance.now() <= 0) halt("time_budget");
      if (budget.take(reservation)) break;
      if (reservation) throw new ReadsCut();
      if (!budget.setAside) halt("request_budget");
      await budget.released();
    }
    const left = deadline - performance.now();
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
  // The URLs of the catalogue's records (probe-kinds.ts), whose keys the answers are kept under.
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

  /** The requests set aside for the files of each plugin enumeration found, while they are read. */
  const reservations = new Map<string, Reservation>();
  /** Every request for a plugin's files, counted for the summary. */
  let fileRequests = 0;
  /** A GET of one of a plugin's files (its readme, a version file): counted apart in the summary too. */
  const askFile = (
    url: string,
    maxBodyBytes: number,
    options: { headers?: Readonly<Record<string, string>>; follow?: boolean },
    reservation?: Reservation,
  ) => {
    const before = budget.spent;
    const asked = ask(url, "GET", maxBodyBytes, options, reservation);
    // A file read never waits for the budget (it has a reservation, or nobody has one), so
    // `ask` took its request before returning the promise.
    if (budget.spent > before) fileRequests += 1;
    return asked;
  };
  /** A version file (gather/version-files.ts), asked within the budget and filed under its key. */
  const runProbe = async (spec: ProbeSpec, slug: string): Promise<HttpArtifact | undefined> => {
    const result = await askFile(
      spec.url,
      spec.maxBytes ?? PROBE_MAX_BYTES,
      { headers: spec.headers, follow: spec.follow ?? true },
      reservations.get(slug),
    );
    if (result) artifacts.probes[spec.key] = toArtifact(result);
    return artifacts.probes[spec.key];
  };
  // One reader for the whole stage: a plugin's files are followed once, whichever phase asks.
  const reader = new VersionFiles({
    artifacts,
    paths,
    mode: "aggressive",
    run: runProbe,
    maxRequests: Number.POSITIVE_INFINITY,
    perPlugin: Number.POSITIVE_INFINITY,
  });
  /** Plugins found without a version whose files were read for one, and those whose reads a budget cut short. */
  const readFor: string[] = [];
  const cut = new Set<string>();
  /** Reads a plugin's files until its version is settled (two sources) or they run out; a plugin whose reads a budget ended is noted as not read. */
  const follow = async (slug: string, forVersion: boolean) => {
    if (forVersion) readFor.push(slug);
    try {
      await reader.follow(slug, false);
    } catch (error) {
      if (forVersion) cut.add(slug);
      if (!(error instanceof ReadsCut)) throw error;
    }
  };
  /** Reads the files of `slugs`, WORKERS plugins at a time, until a budget runs out. */
  const readVersions = async (slugs: readonly string[], forVersion: boolean) => {
    let next = 0;
    const worker = async () => {
      while (next < slugs.length && !halted) await follow(slugs[next++] as string, forVersion);
    };
    await Promise.all(Array.from({ length: WORKERS }, () => worker().catch(stopOnBudget)));
    // Those never started: their versions stay unknown.
    if (forVersion) for (const slug of slugs.slice(next)) cut.add(slug);
  };
  /** Found plugins with a version, whose files may give a second source at the end. */
  const corroborate = [...known.versionedPlugins];
  /** Slugs to probe, per kind (for the account of what was skipped): the candidates not found passively, until calibration tells. */
  const queued = {
    plugins: plan.plugins.filter((slug) => !known.plugins.has(slug.toLowerCase())).length,
    themes: plan.themes.filter((slug) => !known.themes.has(slug.toLowerCase())).length,
  };

  try {
    // What was found comes first: the plugins the page shows without a version run, and their
    // versions are what the vulnerability checks need. Their files get the whole budget.
    await readVersions(known.unversionedPlugins, true);
    if (halted) throw halted;

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
    queued.plugins = plugins.lead.length + plugins.rest.length;
    queued.themes = themes.lead.length + themes.rest.length;

    /**
     * A plugin enumeration found: its readme, then — when that gives no version — its other
     * files, before this worker probes another slug, from requests set aside for it (the other
     * workers' slug probes cannot spend them).
     */
    const readFound = async (slug: string, presence: FetchResult, byDirectory: boolean) => {
      const reservation = budget.reserve(FILES_PER_PLUGIN);
      reservations.set(slug, reservation);
      try {
        if (!artifacts.probes[probeKey("plugin_readme", slug)]) {
          const readme =
            !byDirectory && presenceMethod === "GET"
              ? presence
              : await askFile(pluginReadme(slug), README_BYTES, {}, reservation);
          if (readme) artifacts.probes[probeKey("plugin_readme", slug)] = toArtifact(readme);
        }
        if (reader.versioned(slug)) corroborate.push(slug);
        else await follow(slug, true);
      } catch (error) {
        // Its readme was not read: what it would have said is unknown.
        cut.add(slug);
        if (!(error instanceof ReadsCut)) throw error;
      } finally {
        reservations.delete(slug);
        budget.release(reservation);
      }
    };

    const probePlugin = async (slug: string) => {
      const byDirectory = summary.plugins.method === "directory";
      const presence = await ask(
        byDirectory ? pluginDir(slug) : pluginReadme(slug),
        presenceMethod,
        byDirectory ? PRESENCE_BYTES : README_BYTES,
      );
      summary.plugins.probed += 1;
      if (!presence || !(byDirectory ? DIRECTORY_FOUND.has(presence.status) : presence.status === 200)) return;
      artifacts.probes[probeKey("enum_plugin", slug)] = toArtifact(presence);
      summary.plugins.found.push(slug);
      await readFound(slug, presence, byDirectory);
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

    // With what is left: a second source for the plugins found with one version.
    await readVersions(corroborate, false);
  } catch (error) {
    if (!(error instanceof BudgetSpent)) throw error;
  }
  const stoppedBy = halted?.reason ?? "finished";
  summary.requests = budget.spent;
  summary.duration_ms = Math.round(performance.now() - started);
  summary.stopped_by = stoppedBy;
  summary.plugins.found.sort();
  summary.themes.found.sort();
  summary.version_files = {
    plugins: [...new Set(readFor)].sort(),
    requests: fileRequests,
    // A plugin whose files gave a version before the stop is not counted as unread.
    not_read: [...cut].filter((slug) => !reader.versioned(slug)).sort(),
  };
  if (stoppedBy !== "finished") {
    artifacts.errors.push({
      stage: "enumeration",
      kind: stoppedBy,
      message: stoppedMessage(stoppedBy, summary, queued),
    });
  }
  artifacts.enumeration = summary;
  return summary;
}

const STOPPED_BY: Record<Exclude<EnumerationSummary["stopped_by"], "finished">, string> = {
  request_budget: "Aggressive enumeration stopped at its request budget",
  time_budget: "Aggressive enumeration stopped at its time budget",
  deadline: "Aggressive enumeration stopped at the report's deadline",
  site_errors: "Aggressive enumeration stopped because the site failed several requests in a row (it was left alone)",
};

/** What a stopped enumeration skipped, in words: the slugs not probed and the found plugins whose files were not read. */
function stoppedMessage(
  reason: Exclude<EnumerationSummary["stopped_by"], "finished">,
  summary: EnumerationSummary,
  queued: { plugins: number; themes: number },
): string {
  const files = summary.version_files;
  const read = files?.plugins.filter((slug) => !files.not_read.includes(slug)).length ?? 0;
  const first =
    read > 0 ? ` after reading the files of the ${read} plugin${read === 1 ? "" : "s"} found without a version` : "";
  const plugins = queued.plugins - summary.plugins.probed;
  const themes = queued.themes - summary.themes.probed;
  const skipped =
    plugins + themes > 0
      ? `; ${plugins} of ${queued.plugins} plugin slugs and ${themes} of ${queued.themes} theme slugs were not probed`
      : "";
  const unread = files?.not_read ?? [];
  const notRead =
    unread.length > 0
      ? `; the files of ${unread.length} plugin${unread.length === 1 ? "" : "s"} found without a version were not read (${unread.join(", ")}), so ${unread.length === 1 ? "its version is" : "their versions are"} unknown`
      : "";
  return `${STOPPED_BY[reason]}${first}${skipped}${notRead}.`;
}
