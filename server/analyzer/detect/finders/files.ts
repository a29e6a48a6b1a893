/**
 * A plugin's version from its public files — readme.txt (Stable tag, a `Version:` field, the
 * newest changelog entry), changelog.txt and CHANGELOG.md (newest entry), the translation
 * template's Project-Id-Version, package.json and composer.json (`version`, when their
 * name is the plugin's), and the banner of its own script or stylesheet — and which of them
 * wins when they disagree. Pure: it reads the answers gather filed under the probe keys
 * `plugin_readme:`, `plugin_pot:`, `plugin_changelog:`… and the asset sample.
 *
 * Precedence (docs/detection.md, "Versions from files"):
 * 1. Among changelogs (the readme's section, changelog.txt, CHANGELOG.md) the one with the
 *    newest entry speaks for all: the others are archives of older entries (Akismet's
 *    changelog.txt) or stale copies. A changelog that says it is an archive names nothing.
 * 2. Release files — Stable tag, readme `Version:`, the newest changelog entry, the .pot —
 *    are written when a release is made. Build files — package.json, composer.json, asset
 *    banners — are often a build tool's and left behind (`1.0.0` for ever); they only
 *    decide when no release file states a version, and are outvoted by any that does.
 * 3. When release files disagree, the version that more sources state wins (the page's own
 *    versions, like `?ver=`, count as sources here); a tie is a contradiction, and gives no
 *    version rather than a guess: a Stable tag that lags and a changelog that runs ahead are
 *    both common, and nothing tells them apart.
 * Sources that lost keep their evidence, without a vote, saying why.
 */
import { compareDottedVersions } from "../../../../shared/versions.ts";
import type { Artifacts, HttpArtifact } from "../../artifacts.ts";
import { type PatternProbeName, probeKey } from "../../probe-keys.ts";
import { siteText, siteUrl } from "../../untrusted-text.ts";
import { type Changelog, parseChangelog } from "../changelog.ts";
import type { WeightedEvidence } from "../evidence.ts";
import {
  leadingComment,
  namesPlugin,
  parseBanner,
  parseManifest,
  parsePotHeader,
  startsWithPluginName,
} from "../manifests.ts";
import { looksLikeReadme, parsePluginReadme } from "../readme.ts";
import type { SitePaths } from "../site-paths.ts";
import { isBundledLibrary, isFileVersion, versionKey } from "../version-sanity.ts";

/** How a file's version is believed on its own (the readme's weights are the ones detection has always used). */
export const FILE_WEIGHTS = {
  readme: 0.6,
  readme_stable_tag: 0.6,
  readme_version: 0.5,
  readme_changelog: 0.5,
  changelog: 0.5,
  translation_template: 0.45,
  asset_banner: 0.45,
  package_json: 0.35,
  composer_json: 0.35,
} as const;
/** The weight left to the winner's votes when some file disagreed. */
const DISPUTED = 0.8;

type Tier = "release" | "build" | "page";

interface Candidate {
  version: string;
  /** Its evidence; the `version` is taken off when it loses. */
  signal: WeightedEvidence;
  /** True once it lost its vote. */
  out?: boolean;
  tier: Tier;
  /** A changelog's newest entry: changelogs are first weighed among themselves. */
  changelog?: boolean;
}

export type FileVerdict =
  /** A release file states the version, and no other release file outvotes it. */
  | "decided"
  /** Only build files state one (package.json…): a version, but a weak one. */
  | "weak"
  /** Release files disagree and nothing breaks the tie: no version. */
  | "contradictory"
  /** No file read states a version. */
  | "none";

export interface FileVersions {
  /** Evidence of every file read that says something; only the winners vote (`version`). */
  signals: WeightedEvidence[];
  /** The readme's `=== Name ===`. */
  name: string | null;
  verdict: FileVerdict;
}

/** An answer that is the file: 200, or 206 to a range request; not an HTML page (a soft 404). */
function fileAnswer(artifact: HttpArtifact | undefined): HttpArtifact | undefined {
  if (!artifact || (artifact.status !== 200 && artifact.status !== 206)) return undefined;
  const start = artifact.body.slice(0, 512).trimStart().toLowerCase();
  if (start.startsWith("<!doctype") || start.startsWith("<html") || start.startsWith("<?xml")) return undefined;
  if (/\btext\/html\b/i.test(artifact.headers["content-type"] ?? "")) return undefined;
  return artifact;
}

/** Whether a file was read to its end: only then can an oldest-first changelog give its last entry. */
const complete = (artifact: HttpArtifact) => artifact.status === 200 && !artifact.truncated;

const probe = (artifacts: Artifacts, name: PatternProbeName, slug: string) => artifacts.probes[probeKey(name, slug)];

function vote(
  source: keyof typeof FILE_WEIGHTS,
  version: string,
  value: string,
  url: string,
  tier: Tier,
  changelog = false,
): Candidate {
  return {
    version,
    signal: { source, value: siteText(value, 200), url: siteUrl(url), weight: FILE_WEIGHTS[source], version },
    tier,
    changelog,
  };
}

/** "= 1.2.3 =" of a changelog, or nothing when it has no clear newest release. */
function changelogVote(
  changelog: Changelog | null,
  source: "readme_changelog" | "changelog",
  label: string,
  url: string,
): Candidate | null {
  const newest = changelog?.newest;
  if (!newest) return null;
  return vote(source, newest.version, `${label}: ${newest.heading}`, url, "release", true);
}

/** The banners of the plugin's own scripts and stylesheets: the asset sample's, and the aggressive `plugin_asset:` read. */
function bannerVotes(artifacts: Artifacts, slug: string, paths: SitePaths | null, displayName: string | null) {
  // The plugin's folder in the site's content directory, or on an asset origin serving it (a CDN).
  const prefixes = paths
    ? [paths.contentBase, ...paths.assetBases].map((base) => new URL(`plugins/${slug}/`, base).toString())
    : null;
  const heads: { url: string; head: string }[] = [];
  for (const asset of artifacts.assets) {
    const mine = prefixes
      ? prefixes.some((prefix) => asset.url.startsWith(prefix))
      : asset.url.includes(`/plugins/${slug}/`);
    if (asset.head && mine) heads.push({ url: asset.url, head: asset.head });
  }
  const read = fileAnswer(probe(artifacts, "plugin_asset", slug));
  if (read) heads.push({ url: read.url, head: read.body });
  const found: Candidate[] = [];
  const ignored: WeightedEvidence[] = [];
  for (const { url, head } of heads) {
    // Library folders and files: a banner there is the library's, whoever bundles it.
    if (isBundledLibrary(new URL(url).pathname)) continue;
    const comment = leadingComment(head);
    const banner = comment ? parseBanner(comment) : null;
    if (!banner) continue;
    const path = new URL(url).pathname;
    const mine =
      banner.name &&
      (namesPlugin(banner.name, slug, displayName, true) ||
        (banner.form === "tagged" && startsWithPluginName(banner.name, slug, displayName)));
    if (mine) {
      found.push(vote("asset_banner", banner.version, `${path}: ${banner.text}`, url, "build"));
    } else {
      ignored.push({
        source: "asset_banner",
        value: siteText(`${path}: ${banner.text} (not counted: the banner does not name this plugin)`, 200),
        url: siteUrl(url),
        weight: 0,
      });
    }
  }
  return { found, ignored };
}

function manifestVote(
  artifact: HttpArtifact | undefined,
  source: "package_json" | "composer_json",
  slug: string,
  displayName: string | null,
): { vote?: Candidate; ignored?: WeightedEvidence } {
  const file = fileAnswer(artifact);
  const manifest = file ? parseManifest(file.body) : null;
  if (!file || !manifest) return {};
  const label = source === "package_json" ? "package.json" : "composer.json";
  if (manifest.name && namesPlugin(manifest.name, slug, displayName)) {
    return { vote: vote(source, manifest.version, `${label}: ${manifest.text}`, file.url, "build") };
  }
  return {
    ignored: {
      source,
      value: siteText(`${label}: ${manifest.text} (not counted: its name is not this plugin's)`, 200),
      url: siteUrl(file.url),
      weight: 0,
    },
  };
}

/** An archive of old entries says so at its top ("Archived Changelog Entries", "older changelog entries"). */
const ARCHIVE = /\barchived?\s+(?:changelog|entries)|\bolder\s+(?:changelog\s+)?entries\b|\bchangelog\s+archive\b/i;

/**
 * Everything the plugin's files say about its version, weighed (see the top of this file).
 * `pageVotes` are the version signals the page itself gave (asset `?ver=`, a generator…):
 * they break ties between files, and are not returned.
 */
export function pluginFileVersions(
  artifacts: Artifacts,
  slug: string,
  options: {
    paths: SitePaths | null;
    displayName: string | null;
    pageVotes: readonly WeightedEvidence[];
    /** The name the WordPress.org directory lists it under, when the names index was asked: the last resort for telling a file's name is the plugin's. */
    directoryName?: string | null;
  },
): FileVersions {
  const signals: WeightedEvidence[] = [];
  const candidates: Candidate[] = [];
  let name: string | null = null;

  const readmeFile = probe(artifacts, "plugin_readme", slug);
  if (readmeFile?.status === 200 && looksLikeReadme(readmeFile.body)) {
    const readme = parsePluginReadme(readmeFile.body, complete(readmeFile));
    name = readme.name ? siteText(readme.name, 100) : null;
    signals.push({
      source: "readme",
      value: siteText(readme.name ?? "readme.txt", 200),
      url: readmeFile.url,
      weight: FILE_WEIGHTS.readme,
    });
    if (readme.stableTag && isFileVersion(readme.stableTag)) {
      candidates.push(
        vote("readme_stable_tag", readme.stableTag, `Stable tag: ${readme.stableTag}`, readmeFile.url, "release"),
      );
    }
    // A Version: field repeating the Stable tag is the same statement, not a second one.
    if (readme.version && (!readme.stableTag || versionKey(readme.version) !== versionKey(readme.stableTag))) {
      candidates.push(vote("readme_version", readme.version, `Version: ${readme.version}`, readmeFile.url, "release"));
    }
    const newest = changelogVote(readme.changelog, "readme_changelog", "Changelog", readmeFile.url);
    if (newest) {
      // The evidence has always read "Changelog: 1.2.3".
      newest.signal.value = siteText(`Changelog: ${newest.version}`, 200);
      candidates.push(newest);
    }
  }
  const displayName = options.displayName ?? name ?? options.directoryName ?? null;

  for (const [kind, label] of [
    ["plugin_changelog", "changelog.txt"],
    ["plugin_changelog_md", "CHANGELOG.md"],
    ["plugin_changelog_lower_md", "changelog.md"],
    ["plugin_changelog_upper_txt", "CHANGELOG.txt"],
    ["plugin_changes_md", "CHANGES.md"],
    ["plugin_changes_txt", "changes.txt"],
  ] as const) {
    const file = fileAnswer(probe(artifacts, kind, slug));
    if (!file) continue;
    if (ARCHIVE.test(file.body.slice(0, 1_024))) {
      signals.push({
        source: "changelog",
        value: `${label}: an archive of older entries (not counted)`,
        url: siteUrl(file.url),
        weight: 0,
      });
      continue;
    }
    const entry = changelogVote(parseChangelog(file.body, complete(file)), "changelog", label, file.url);
    if (entry) candidates.push(entry);
  }

  for (const kind of ["plugin_pot", "plugin_pot_lang", "plugin_pot_i18n", "plugin_po_en_us"] as const) {
    const file = fileAnswer(probe(artifacts, kind, slug));
    const header = file ? parsePotHeader(file.body) : null;
    if (!file || !header) continue;
    if (header.name && !namesPlugin(header.name, slug, displayName)) {
      signals.push({
        source: "translation_template",
        value: siteText(`${header.text} (not counted: it names another project)`, 200),
        url: siteUrl(file.url),
        weight: 0,
      });
      continue;
    }
    candidates.push(vote("translation_template", header.version, header.text, file.url, "release"));
    break; // languages/, lang/ and i18n/ hold the same template (and an en_US translation its header)
  }

  for (const [kind, source] of [
    ["plugin_package_json", "package_json"],
    ["plugin_composer_json", "composer_json"],
  ] as const) {
    const found = manifestVote(probe(artifacts, kind, slug), source, slug, displayName);
    if (found.vote) candidates.push(found.vote);
    if (found.ignored) signals.push(found.ignored);
  }

  const banners = bannerVotes(artifacts, slug, options.paths, displayName);
  signals.push(...banners.ignored);
  // Banners of several files that disagree say nothing; agreeing ones are one statement.
  const bannerKeys = new Set(banners.found.map((found) => versionKey(found.version)));
  if (bannerKeys.size === 1 && banners.found[0]) candidates.push(banners.found[0]);

  const verdict = weigh(candidates, options.pageVotes);
  signals.push(...candidates.map((candidate) => candidate.signal));
  return { signals, name, verdict };
}

/** Removes a candidate's vote, saying why in its evidence. */
function outvote(candidate: Candidate, why: string): void {
  const { signal } = candidate;
  candidate.out = true;
  delete signal.version;
  signal.weight = 0;
  signal.value = siteText(`${signal.value} (not counted: ${why})`, 240);
}

/** Applies the precedence to the candidates in place (losers lose their vote) and says what came of it. */
function weigh(candidates: Candidate[], pageVotes: readonly WeightedEvidence[]): FileVerdict {
  // 1. Changelogs among themselves: the newest entry speaks for all.
  const changelogs = candidates.filter((candidate) => candidate.changelog);
  if (changelogs.length > 1) {
    const newest = changelogs.reduce((best, candidate) =>
      compareDottedVersions(candidate.version, best.version) > 0 ? candidate : best,
    );
    for (const candidate of changelogs) {
      if (versionKey(candidate.version) !== versionKey(newest.version))
        outvote(candidate, `an older entry than ${newest.version} in another changelog`);
    }
  }
  const voting = candidates.filter((candidate) => !candidate.out);
  if (voting.length === 0) return "none";

  const groups = new Map<string, Candidate[]>();
  for (const candidate of voting) {
    const key = versionKey(candidate.version);
    groups.set(key, [...(groups.get(key) ?? []), candidate]);
  }
  const release = [...groups.entries()].filter(([, members]) => members.some((member) => member.tier === "release"));
  let winner: string | undefined;
  let verdict: FileVerdict;
  if (release.length === 0) {
    // 2. Build files alone: one version if they agree, none if they do not.
    if (groups.size > 1) {
      for (const candidate of voting) outvote(candidate, "build files disagree");
      return "contradictory";
    }
    winner = [...groups.keys()][0];
    verdict = "weak";
  } else if (release.length === 1) {
    winner = release[0]?.[0];
    verdict = "decided";
  } else {
    // 3. Release files disagree: the version more sources state, the page's included.
    const pageCount = (key: string) =>
      pageVotes.filter((signal) => signal.version && versionKey(signal.version) === key).length;
    const counted = release
      .map(([key, members]) => ({ key, count: members.length + pageCount(key) }))
      .sort((a, b) => b.count - a.count);
    const [first, second] = counted;
    if (first && first.count >= 2 && (!second || first.count > second.count)) {
      winner = first.key;
      verdict = "decided";
    } else {
      for (const candidate of voting) outvote(candidate, "the plugin's files disagree on the version");
      return "contradictory";
    }
  }
  const disputed = groups.size > 1;
  for (const candidate of voting) {
    if (versionKey(candidate.version) !== winner) {
      outvote(
        candidate,
        candidate.tier === "build" ? "a build file, outvoted by the release files" : "outvoted by the other files",
      );
    } else if (disputed) {
      candidate.signal.weight *= DISPUTED;
    }
  }
  return verdict;
}
