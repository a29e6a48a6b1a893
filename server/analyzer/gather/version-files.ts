/**
 * Reading a plugin's public files for its version, one after the other, until they settle it
 * (detect/finders/files.ts weighs them). Used by gather for a passive report and by the
 * aggressive stage (enumeration/enumerate.ts), each with its own way of asking, its order of
 * files and its caps:
 *
 * - passive: only plugins found without a version. Their readme.txt first (already asked for
 *   plugins the page, the REST API or a listing shows), then `languages/<slug>.pot`,
 *   `changelog.txt`, `CHANGELOG.md` — files written at release — stopping at the first that
 *   gives a version no other file contradicts; at most MAX_PASSIVE_FILES_PER_PLUGIN after the
 *   readme, MAX_PASSIVE_VERSION_READS in the whole report.
 * - aggressive: every plugin, also package.json, composer.json, `lang/<slug>.pot` and the
 *   head of its own script or stylesheet; it stops once two independent sources agree.
 *
 * GET, not HEAD-then-GET: a hit needs the body anyway, so HEAD first would double every hit,
 * while a miss on a `.txt`, `.md`, `.json` or `.pot` is usually answered by the web server
 * itself (no WordPress 404 page to render). Changelogs and templates are asked for their
 * first bytes only (Range).
 */
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { confidenceOf, pickVersion, type WeightedEvidence } from "../detect/evidence.ts";
import { Directory } from "../detect/finders/directory.ts";
import { type FileVersions, pluginFileVersions } from "../detect/finders/files.ts";
import { pluginSightings, pluginSlugsFromPage, versionVotes } from "../detect/plugins.ts";
import { componentBase, type SitePaths } from "../detect/site-paths.ts";
import { versionKey } from "../detect/version-sanity.ts";
import { detectWordPress } from "../detect/wordpress.ts";
import type { PatternProbeName } from "../probe-keys.ts";
import { type ProbeSpec, probeAt, probeOf } from "./probes.ts";

export type VersionMode = "passive" | "aggressive";

/** Files after the readme, in the order asked: the likeliest to exist and to be right first. */
export const VERSION_FILE_ORDER: Record<VersionMode, readonly PatternProbeName[]> = {
  passive: ["plugin_pot", "plugin_changelog", "plugin_changelog_md"],
  aggressive: [
    "plugin_pot",
    "plugin_changelog",
    "plugin_changelog_md",
    "plugin_asset",
    "plugin_package_json",
    "plugin_composer_json",
    "plugin_pot_lang",
    // The other names and places some plugins use.
    "plugin_changelog_lower_md",
    "plugin_changelog_upper_txt",
    "plugin_changes_md",
    "plugin_changes_txt",
    "plugin_pot_i18n",
    "plugin_po_en_us",
  ],
};

/** A plugin is reported from this confidence (detect/plugins.ts). */
const FOUND_AT = 50;

export interface VersionFilesOptions {
  artifacts: Artifacts;
  paths: SitePaths;
  mode: VersionMode;
  /**
   * Asks a probe and files its answer (gather's probe runner, or the aggressive stage's
   * budgeted asker, which spends the requests it set aside for `slug`).
   */
  run: (spec: ProbeSpec, slug: string) => Promise<HttpArtifact | undefined>;
  /** Requests this reader may make in all, readmes it has to ask included. */
  maxRequests: number;
  /** Files after the readme, per plugin. */
  perPlugin: number;
  /**
   * What the plugins the site shows are first read from (default `artifacts`): gather's
   * reader is made once the wave is out, and reads the homepage and the names index's
   * answers as they were before any probe answered, whatever answered since.
   */
  seen?: Artifacts;
}

/**
 * One reader per report (or per aggressive phase): it counts the requests it makes against
 * its caps. What the page shows of each plugin is read once, from the homepage, when it is
 * made: later answers only add files.
 */
export class VersionFiles {
  private spent = 0;
  private readonly sightings: Map<string, { name: string | null; votes: WeightedEvidence[]; found: boolean }>;
  private readonly assets: Map<string, string[]>;

  constructor(private readonly options: VersionFilesOptions) {
    this.sightings = new Map();
    this.learn(options.seen);
    this.assets = pluginSlugsFromPage(options.artifacts.homepage, options.paths);
  }

  /**
   * Takes in the plugins the site shows that are not known yet — the REST API's, once its
   * index is in and the names index was asked about its namespaces. What is known stays as
   * it was read.
   */
  learn(artifacts: Artifacts = this.options.artifacts): void {
    const { paths } = this.options;
    const core = detectWordPress(artifacts, paths).version;
    for (const [slug, { signature, presence }] of pluginSightings(artifacts, paths, core)) {
      if (this.sightings.has(slug)) continue;
      this.sightings.set(slug, {
        name: signature?.name ?? null,
        votes: versionVotes(presence),
        found: confidenceOf(presence) >= FOUND_AT,
      });
    }
  }

  /** Requests made so far. */
  get requests(): number {
    return this.spent;
  }

  /** Plugins the page shows without a version (not those whose files the page loads: their readme is asked anyway). */
  unversionedOnPage(): string[] {
    return [...this.sightings.entries()]
      .filter(([slug, seen]) => seen.found && seen.votes.length === 0 && !this.assets.has(slug))
      .map(([slug]) => slug);
  }

  /** Every plugin the page shows. */
  sighted(): string[] {
    return [...this.sightings.entries()].filter(([, seen]) => seen.found).map(([slug]) => slug);
  }

  private files(slug: string): { files: FileVersions; votes: WeightedEvidence[] } {
    const seen = this.sightings.get(slug);
    const votes = seen?.votes ?? [];
    const files = pluginFileVersions(this.options.artifacts, slug, {
      paths: this.options.paths,
      displayName: seen?.name ?? null,
      pageVotes: votes,
      directoryName: new Directory(this.options.artifacts.directory).slug("plugin", slug)?.name ?? null,
    });
    return { files, votes };
  }

  /**
   * Whether what is known settles the plugin's version. Passive: a version from the page, or
   * from a release file that nothing contradicts. Aggressive: two independent sources (the
   * page's or the files') state it, and the files do not contradict each other.
   */
  settled(slug: string): boolean {
    const { files, votes } = this.files(slug);
    if (files.verdict === "contradictory") return false;
    const { version } = pickVersion([...votes, ...files.signals]);
    if (!version) return false;
    if (this.options.mode === "passive") return votes.length > 0 || files.verdict === "decided";
    const sources = new Set(
      [...votes, ...files.signals]
        .filter((signal) => signal.version && versionKey(signal.version) === versionKey(version))
        .map((signal) => signal.source),
    );
    return sources.size >= 2;
  }

  /** Whether what is known gives the plugin a version at all (one source is enough here). */
  versioned(slug: string): boolean {
    const { files, votes } = this.files(slug);
    return files.verdict !== "contradictory" && pickVersion([...votes, ...files.signals]).version !== null;
  }

  private take(): boolean {
    if (this.spent >= this.options.maxRequests) return false;
    this.spent += 1;
    return true;
  }

  /**
   * The site as seen from one plugin: its files are asked in the content directory its own
   * files came from — the site's, or an asset origin's (a CDN, a pull zone).
   */
  private siteOf(slug: string): SitePaths {
    const { paths } = this.options;
    return { ...paths, contentBase: componentBase(paths, this.assets.get(slug) ?? []) };
  }

  /** The request for one of the plugin's files, or null when it has none to ask (no own asset on the page). */
  private spec(kind: PatternProbeName, slug: string): ProbeSpec | null {
    const { artifacts, paths } = this.options;
    if (kind !== "plugin_asset") return probeOf(kind, this.siteOf(slug), slug);
    // The plugin's own script or stylesheet on the site's origin or an asset origin, unless the asset sample read one.
    const urls = this.assets.get(slug) ?? [];
    if (artifacts.assets.some((asset) => asset.status === 200 && urls.includes(asset.url))) return null;
    const origins = new Set([paths.origin, ...paths.assetBases.map((base) => new URL(base).origin)]);
    const own = urls.find((raw) => {
      const url = new URL(raw);
      return origins.has(url.origin) && /\.(?:js|css)$/i.test(url.pathname);
    });
    return own ? probeAt("plugin_asset", own, slug) : null;
  }

  /**
   * Reads the plugin's files until its version is settled or a cap is reached. `readmeAsked`:
   * the readme is asked anyway for this plugin (the page, the REST API or a listing led to
   * it), so it does not count against this reader's caps.
   */
  follow(slug: string, readmeAsked: boolean): Promise<void> {
    // A plugin both the page and the REST API name is followed once.
    let following = this.following.get(slug);
    if (!following) {
      following = this.read(slug, readmeAsked);
      this.following.set(slug, following);
    }
    return following;
  }

  private readonly following = new Map<string, Promise<void>>();

  private async read(slug: string, readmeAsked: boolean): Promise<void> {
    const { artifacts, mode, run } = this.options;
    const readme = probeOf("plugin_readme", this.siteOf(slug), slug);
    if (readmeAsked) await run(readme, slug);
    else if (!(readme.key in artifacts.probes)) {
      if (this.settled(slug) || !this.take()) return;
      await run(readme, slug);
    }
    let read = 0;
    for (const kind of VERSION_FILE_ORDER[mode]) {
      if (this.settled(slug) || read >= this.options.perPlugin) return;
      const spec = this.spec(kind, slug);
      if (!spec || spec.key in artifacts.probes) continue;
      if (!this.take()) return;
      read += 1;
      await run(spec, slug);
    }
  }
}
