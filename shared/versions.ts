/**
 * Ordering of dotted version strings as WordPress and its plugins write them ("5.10" > "5.9",
 * "6.1" < "6.1.1"); non-numeric parts count as 0. For ranges and pre-releases the analyzer's
 * component intelligence uses semver (server/analyzer/intel/versions.ts).
 */
export function compareDottedVersions(a: string, b: string): number {
  const left = a.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  const right = b.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}
