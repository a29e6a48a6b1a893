/**
 * Comparing WordPress core, plugin and theme versions, on top of semver, and matching them
 * against affected-version ranges.
 *
 * These versions are not semver: core has two-part releases ("6.1" = "6.1.0"), pre-releases
 * are written "6.5-RC1" or "5.0-beta", and some plugins publish four parts ("4.7.3.1" — All
 * in One SEO, whose advisories are fixed in such versions). semver.coerce (loose, keeping the
 * pre-release) reads the first three numbers; any further numbers become build metadata,
 * which semver.compareBuild orders numerically once everything else is equal. So
 * 4.7.3 < 4.7.3.1 < 4.7.3.2 < 4.7.4, 4.7.3 = 4.7.3.0, and 5.0-beta < 5.0-RC1 < 5.0.
 *
 * Known limit: a pre-release written without a hyphen ("1.0rc2") reads as the release
 * (1.0.0), like a version with letters glued on.
 */
import semver, { SemVer } from "semver";

/** A version as semver, or null when the text holds no version number. */
export function parseVersion(text: string): SemVer | null {
  // Lower case, so that pre-releases order as WordPress names them: alpha < beta < RC.
  const version = text.toLowerCase();
  const coerced = semver.coerce(version, { loose: true, includePrerelease: true });
  if (!coerced) return null;
  // Numbers after the third, without trailing zeros: "1.2.3.0" is "1.2.3".
  const extra = /^\s*v?\d+\.\d+\.\d+((?:\.\d+)+)/i.exec(version)?.[1]?.replace(/(?:\.0+)+$/, "");
  // Strict (non-loose) instances: semver re-parses a loose one from `.version`, dropping the build.
  return new SemVer(extra ? `${coerced.version}+${extra.slice(1)}` : coerced.version);
}

/** <0, 0 or >0 like a comparator; null when either side is not a version. */
export function compareVersions(a: string, b: string): number | null {
  const left = parseVersion(a);
  const right = parseVersion(b);
  return left && right ? semver.compareBuild(left, right) : null;
}

/** What a data file may write as a version: numbers with dots, optionally "-pre.release". */
export function isDataVersion(value: string): boolean {
  return /^\d{1,9}(?:\.\d{1,9}){0,4}(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?$/.test(value) && parseVersion(value) !== null;
}

/**
 * Versions an advisory affects. A null bound is open ("*" in Wordfence's feed): every
 * version below `to`, or from `from` on. Wordfence gives both bounds with their
 * inclusiveness; our file format's `introduced` / `fixed_in` / `last_affected` map onto
 * [from, to) and [from, to].
 */
export interface VersionRange {
  from: string | null;
  from_inclusive: boolean;
  to: string | null;
  to_inclusive: boolean;
}

/**
 * Whether `version` falls in the range. A bound that is not a version never matches: we do
 * not claim a vulnerability on a guess.
 */
export function inRange(version: string, range: VersionRange): boolean {
  if (range.from !== null) {
    const order = compareVersions(version, range.from);
    if (order === null || order < 0 || (order === 0 && !range.from_inclusive)) return false;
  }
  if (range.to !== null) {
    const order = compareVersions(version, range.to);
    if (order === null || order > 0 || (order === 0 && !range.to_inclusive)) return false;
  }
  return range.from !== null || range.to !== null || parseVersion(version) !== null;
}

/** The range as people write it: "<= 5.0.2", ">= 6.1, < 6.1.10", "all versions". */
export function describeRange(range: VersionRange): string {
  const parts: string[] = [];
  if (range.from !== null) parts.push(`${range.from_inclusive ? ">=" : ">"} ${range.from}`);
  if (range.to !== null) parts.push(`${range.to_inclusive ? "<=" : "<"} ${range.to}`);
  return parts.length > 0 ? parts.join(", ") : "all versions";
}

/**
 * The release to update to from `version`: the oldest patched version newer than it that is
 * not itself affected. Core backports fixes to old branches (6.1.10 and 6.4.2 may both fix
 * one advisory), so a site on 6.1.5 is told 6.1.10, not the newest branch.
 */
export function firstFix(
  version: string,
  patched: readonly string[],
  affected: readonly VersionRange[],
): string | null {
  const candidates = patched
    .filter((candidate) => (compareVersions(candidate, version) ?? 0) > 0)
    .filter((candidate) => !affected.some((range) => inRange(candidate, range)))
    .sort((a, b) => compareVersions(a, b) ?? 0);
  return candidates[0] ?? null;
}
