/**
 * What the on-demand lookups of intel (WordPress.org latest versions, WPVulnerability) share:
 * one request per component at a time however many reports ask for it, a few requests at once
 * to the outside service, and a report that waits for answers only as long as its budget.
 */

/** Runs keyed work: one run per key at a time (later callers share it), at most `concurrency` at once. */
export class LookupPool<T> {
  private readonly inFlight = new Map<string, Promise<T>>();
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly concurrency: number) {}

  run(key: string, work: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = this.limited(work).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private async limited(work: () => Promise<T>): Promise<T> {
    while (this.active >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/**
 * The answers of `pending` that arrive within `budgetMs`, by key; a late or failed one is
 * `missing(key)` — the report says so, and the lookup still lands in the cache when it ends.
 */
export async function answersWithin<T>(
  pending: [string, Promise<T>][],
  budgetMs: number,
  missing: () => T,
): Promise<Map<string, T>> {
  const settled = new Map<string, T>();
  const all = Promise.allSettled(pending.map(([key, promise]) => promise.then((value) => settled.set(key, value))));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, budgetMs);
  });
  await Promise.race([all, deadline]);
  clearTimeout(timer);
  return new Map(pending.map(([key]) => [key, settled.get(key) ?? missing()]));
}
