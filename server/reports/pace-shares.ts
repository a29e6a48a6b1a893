/**
 * How one target's requests per second (TARGET_MAX_RPS) are shared by the analyses that hold
 * its slots (docs/target-policy.md, "Per-target limits").
 *
 * Each numbered slot of a key carries a fixed share, and the shares of a key's slots add up to
 * its rate: whatever analyses hold them, from whichever worker process, and however they come
 * and go, the requests they start together stay within the rate in any one second. No share
 * changes during an analysis, so nothing needs telling while it runs, and no request waits for a
 * round trip to a shared store. A slot stays taken one second past its analysis (Slots.
 * releaseAfter), so the next analysis in it cannot add its first second to the last one's.
 *
 * Slot 0 — the one an analysis alone on the target takes — gets half the rate; the others share
 * the other half evenly. Alone, an analysis keeps the pace it always had (TARGET_MAX_RPS /
 * HOST_CONCURRENCY with the default two slots a host); a crowd on one address (a shared host, a
 * CDN edge) slows down instead of adding up.
 */

/**
 * The whole requests per second of each slot of a key with `limit` slots sharing `rate`:
 * `[rate − rest × (limit − 1), rest, …, rest]` with `rest = ⌊rate / 2 / (limit − 1)⌋`. They add
 * up to `rate`; every slot gets at least 1, so when `rate` is below `2 × (limit − 1)` they add
 * up to `max(rate, limit)`.
 */
export function slotShares(rate: number, limit: number): number[] {
  const whole = Math.floor(rate);
  if (limit <= 1) return [Math.max(1, whole)];
  const rest = Math.max(1, Math.floor(whole / 2 / (limit - 1)));
  const first = Math.max(1, whole - rest * (limit - 1));
  return [first, ...Array.from({ length: limit - 1 }, () => rest)];
}

/**
 * The share of one slot: a slot numbered past the limit (held since the limit was lowered)
 * gets the smallest.
 */
export function slotShare(rate: number, limit: number, slot: number): number {
  const shares = slotShares(rate, limit);
  return shares[Math.min(slot, shares.length - 1)] as number;
}

/**
 * The pace of an analysis holding a slot of each of `keys` (`host:…`, `addr:…`; `slotOf` names
 * their numbers): the smallest of their shares, so that it stays within its share of every key
 * — its host and each of its addresses. A key whose slot number is unknown counts as its last
 * slot, the smallest share. 0 when `rate` is 0: no pace.
 */
export function analysisShare(
  rate: number,
  keys: readonly string[],
  slotOf: ReadonlyMap<string, number>,
  limitOf: (key: string) => number,
): number {
  if (rate <= 0) return 0;
  const shares = keys.map((key) => slotShare(rate, limitOf(key), slotOf.get(key) ?? Number.POSITIVE_INFINITY));
  return shares.length > 0 ? Math.min(...shares) : Math.min(...slotShares(rate, 1));
}
