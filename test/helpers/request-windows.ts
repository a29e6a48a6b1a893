/**
 * Counting what a target saw: the most request arrivals in any window of a given length,
 * wherever it begins (a sliding window, not calendar seconds: a burst across a second boundary
 * counts whole).
 */

/** The most of `times` (ms, any order) that fall within one half-open window [t, t + ms). */
export function busiestWindow(times: readonly number[], ms = 1_000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while ((sorted[last] as number) - (sorted[first] as number) >= ms) first++;
    peak = Math.max(peak, last - first + 1);
  }
  return peak;
}
