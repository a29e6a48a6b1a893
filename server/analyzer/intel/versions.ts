/**
 * Comparing WordPress core, plugin and theme versions, on top of semver.
 *
 * These versions are not semver: core has two-part releases ("6.1"), pre-releases are
 * written "6.5-RC1", and some plugins publish four parts ("4.7.3.1" — All in One SEO, whose
 * advisories are fixed in such versions). semver.coerce (loose, keeping the pre-release)
 * reads the first three numbers; any further numbers become build metadata, which
 * semver.compareBuild orders numerically once everything else is equal. So
 * 4.7.3 < 4.7.3.1 < 4.7.3.2 < 4.7.4, and 6.5-RC1 < 6.5.
 *
 * Known limit: a pre-release written without a hyphen ("1.0rc2") reads as the release
 * (1.0.0), like a version with letters glued on.
 */
import semver, { SemVer } from "semver";

/** A version as semver, or null when the text holds no version number. */
export function parseVersion(version: string): SemVer | null {
  const coerced = semver.coerce(version, { loose: true, includePrerelease: true });
  if (!coerced) return null;
  const extra = /^\s*v?\d+\.\d+\.\d+((?:\.\d+)+)/i.exec(version)?.[1];
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
