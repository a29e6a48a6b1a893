/**
 * The fair order of a target's slots (docs/target-policy.md, "Fair slot order"), as a pure
 * function of what the database holds: which jobs wait for which keys, and which accounts hold
 * which keys' slots. Slots.claimTargets runs it under one lock, so every worker process hands
 * out slots in the same order.
 *
 * The rules, per key (a target: `host:…` or `addr:…`):
 * - its next free slot goes to the waiting account holding the fewest of its slots; ties go to
 *   the oldest job (the report's creation), then the smaller report id;
 * - while another account waits for it, no account takes more than half of its slots
 *   (at least one);
 * - a job needs a slot of every one of its keys at once, or none (no holding while waiting, so
 *   no deadlock). A job that needs several keys is ranked by the most it holds of any of them.
 *
 * Jobs are granted one at a time, each grant counted before the next is chosen, so an account
 * with many jobs waiting gets one slot per round like everyone else. A job that cannot take all
 * its keys now is passed over: it never keeps a free slot from a job that can use it.
 */

export interface Waiter {
  reportId: string;
  accountId: string;
  /** The report's creation: older first on ties. */
  since: Date;
  /** Every key the job needs (its host and addresses). */
  keys: readonly string[];
}

export interface HeldSlot {
  key: string;
  slot: number;
  accountId: string | null;
}

export interface Grant {
  reportId: string;
  accountId: string;
  /** The slot number taken of each key. */
  slots: { key: string; slot: number }[];
}

/** Most slots one account may hold of a key while another account waits for it. */
export function fairShare(limit: number): number {
  return Math.max(1, Math.floor(limit / 2));
}

export function fairGrants(
  waiters: readonly Waiter[],
  held: readonly HeldSlot[],
  limitOf: (key: string) => number,
): Grant[] {
  /** key → slot numbers taken. */
  const taken = new Map<string, Set<number>>();
  /** key → account → slots held. */
  const holds = new Map<string, Map<string, number>>();
  const hold = (key: string, slot: number, accountId: string | null) => {
    const slots = taken.get(key) ?? new Set<number>();
    slots.add(slot);
    taken.set(key, slots);
    if (accountId === null) return;
    const byAccount = holds.get(key) ?? new Map<string, number>();
    byAccount.set(accountId, (byAccount.get(accountId) ?? 0) + 1);
    holds.set(key, byAccount);
  };
  for (const slot of held) hold(slot.key, slot.slot, slot.accountId);
  const heldBy = (key: string, accountId: string) => holds.get(key)?.get(accountId) ?? 0;

  let pending = [...waiters];
  /** Whether an account other than `accountId` still waits for `key`. */
  const othersWait = (key: string, accountId: string) =>
    pending.some((waiter) => waiter.accountId !== accountId && waiter.keys.includes(key));
  const canTake = (waiter: Waiter) =>
    waiter.keys.every((key) => {
      const limit = limitOf(key);
      if ((taken.get(key)?.size ?? 0) >= limit) return false;
      return !othersWait(key, waiter.accountId) || heldBy(key, waiter.accountId) < fairShare(limit);
    });
  const rank = (waiter: Waiter) => Math.max(0, ...waiter.keys.map((key) => heldBy(key, waiter.accountId)));
  const before = (a: Waiter, b: Waiter) =>
    rank(a) - rank(b) || a.since.getTime() - b.since.getTime() || (a.reportId < b.reportId ? -1 : 1);

  const grants: Grant[] = [];
  for (;;) {
    const eligible = pending.filter(canTake);
    if (eligible.length === 0) return grants;
    const next = eligible.reduce((best, waiter) => (before(waiter, best) < 0 ? waiter : best));
    const slots = next.keys.map((key) => {
      const used = taken.get(key) ?? new Set<number>();
      let slot = 0;
      while (used.has(slot)) slot++;
      hold(key, slot, next.accountId);
      return { key, slot };
    });
    grants.push({ reportId: next.reportId, accountId: next.accountId, slots });
    pending = pending.filter((waiter) => waiter !== next);
  }
}
