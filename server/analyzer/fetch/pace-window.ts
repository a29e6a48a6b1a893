/**
 * The pace of one analysis (ClientLimits.requestsPerSecond): at most `limit` of its requests
 * reach the site in any one second, wherever that second begins — as the site counts them, not
 * only as they leave.
 *
 * A request reaches the site after it is let through (a new connection's handshake, a busy
 * thread, the network in between) and before its answer comes back. So request n + limit is
 * let through only a full second after request n — and every request before it — was
 * answered: it then arrives at least a second after each of them did, and no one-second window
 * at the site can hold limit + 1 of them. Counting from the moment requests were let through
 * instead let 14 of a pace of 10 into one second at a loopback site, the first ones held up by
 * their connections' setup. The cost is a slower pace for a slow site (`limit` per second plus
 * its answer time), which errs on its side.
 *
 * A token bucket of one second's worth (the pace before issue 30) let twice its rate through
 * across a second boundary; this window never does.
 */

/** The window: at most `limit` requests reach the site in any this long. */
export const PACE_WINDOW_MS = 1_000;

interface Ticket {
  /** When the request's answer (or its failure) came back; undefined while in flight. */
  answeredAt?: number;
  answered: Promise<void>;
  markAnswered: () => void;
}

export class PaceWindow {
  /** The last `limit` requests let through, oldest first. */
  private readonly recent: Ticket[] = [];
  /** The latest answer of the requests that left `recent`: the next ones wait a second past it. */
  private horizon = Number.NEGATIVE_INFINITY;
  /** Requests waiting take their turn one after the other, in the order they asked. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Requests that had to wait (the report says the limit was hit). */
  waited = 0;

  constructor(
    readonly limit: number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  /**
   * Waits until one more request may go, then lets it through. The returned function must be
   * called when its answer's headers arrive or it fails (only the first call counts): later
   * requests are paced from that moment. Rejects when `sleep` does (the analysis's deadline).
   */
  take(): Promise<() => void> {
    const mine = this.turn.then(() => this.admit());
    // The next request waits for this one's turn, whatever became of it.
    this.turn = mine.catch(() => {});
    return mine;
  }

  private async admit(): Promise<() => void> {
    let counted = false;
    const count = () => {
      if (!counted) this.waited += 1;
      counted = true;
    };
    if (this.recent.length >= this.limit) {
      const oldest = this.recent[0] as Ticket;
      if (oldest.answeredAt === undefined) count();
      await oldest.answered;
      const from = Math.max(this.horizon, oldest.answeredAt as number);
      for (let now = performance.now(); now < from + PACE_WINDOW_MS; now = performance.now()) {
        count();
        await this.sleep(Math.ceil(from + PACE_WINDOW_MS - now));
      }
      this.horizon = from;
      this.recent.shift();
    }
    let markAnswered = () => {};
    const answered = new Promise<void>((resolve) => {
      markAnswered = resolve;
    });
    const ticket: Ticket = { answered, markAnswered };
    this.recent.push(ticket);
    return () => {
      if (ticket.answeredAt !== undefined) return;
      ticket.answeredAt = performance.now();
      ticket.markAnswered();
    };
  }
}
