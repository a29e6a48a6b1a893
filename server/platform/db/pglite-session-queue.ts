/**
 * A replacement for pglite-socket's query queue that keeps each client's protocol
 * exchange whole.
 *
 * PGlite is one PostgreSQL session. pglite-socket (0.2.x) schedules the frontend messages
 * of all connections one message at a time and only keeps a connection's messages
 * together while a transaction is open, so two clients' extended-protocol sequences
 * (Parse/Bind/Execute/Sync) interleave and clobber each other's unnamed statement and
 * portal: "portal does not exist", or rows for the wrong query. Upstream:
 * https://github.com/electric-sql/pglite/issues/1046 (open) and PR #977.
 *
 * Here a connection *owns* the session from its first message until the session is
 * ready for a new query and outside a transaction: after a Sync or a simple Query with
 * no transaction open. Other connections wait their turn, in arrival order. A client
 * that disconnects while owning the session has its transaction rolled back, and a
 * failing message never stalls the queue (the other defect of issue 1046).
 *
 * The session being one, a connection's open transaction locks the whole database for
 * everyone else, and PostgreSQL's `lock_timeout` cannot fire: no statement waits inside the
 * engine, they wait here. So the wait is bounded here (`waitLimitMs`, the server's
 * LOCK_TIMEOUT_MS), and answered as PostgreSQL answers a lock wait past `lock_timeout`: an
 * ErrorResponse 55P03 (lock_not_available), which the API answers 503 with Retry-After
 * (platform/db/transient.ts) — before, a request behind a 25 s transaction answered 200 after
 * 24 s. Only a connection that is not the owner waits, so the error never lands inside a
 * transaction of its own. The connection stays open (closing it instead left postgres.js
 * reservations waiting forever for a connection), so the rest of the failed exchange is
 * treated as PostgreSQL's loop treats it: every message of that connection up to its next
 * Sync is discarded — those already queued behind it too, since pglite-socket enqueues each
 * socket read on its own and one connection may have several messages queued — and the Sync
 * gets ReadyForQuery. A startup packet is never timed out (that needs the connection closed):
 * the client's connect timeout bounds it, as before.
 */
import type { PGlite } from "@electric-sql/pglite";

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const PROTOCOL_3 = 196608;

interface Item {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: Error) => void;
  /** Fires when the item waited `waitLimitMs` for the session. */
  timer?: ReturnType<typeof setTimeout>;
}

export interface SessionQueueOptions {
  /** How long an exchange may wait for the session before it fails with 55P03; 0 = forever. */
  waitLimitMs?: number;
}

export class SessionQueue {
  private queue: Item[] = [];
  /** The connection whose exchange (or transaction) is under way, if any. */
  private owner: number | null = null;
  private processing = false;
  /** Connections whose exchange failed waiting: their messages are discarded up to the next Sync. */
  private readonly discarding = new Set<number>();
  private readonly waitLimitMs: number;

  constructor(
    private readonly db: PGlite,
    options: SessionQueueOptions = {},
  ) {
    this.waitLimitMs = options.waitLimitMs ?? 0;
  }

  /** Same contract as pglite-socket's QueryQueueManager.enqueue. */
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    // Nothing of this connection is queued while it discards (timeOut took all of it).
    if (this.discarding.has(handlerId)) return Promise.resolve(this.discard(handlerId, message, onData));
    return new Promise((resolve, reject) => {
      const item: Item = { handlerId, message, onData, resolve, reject };
      if (this.waitLimitMs > 0 && !isStartup(message)) {
        item.timer = setTimeout(() => this.timeOut(item), this.waitLimitMs);
        item.timer.unref?.();
      }
      this.queue.push(item);
      void this.process();
    });
  }

  /**
   * An item waited past the limit while another connection held the session: it gets 55P03
   * instead of running, and so does the rest of its exchange (see the top of this file).
   */
  private timeOut(item: Item): void {
    const mine = this.queue.filter((queued) => queued.handlerId === item.handlerId);
    // Only the connection's oldest message fails; its owner's never do.
    if (mine[0] !== item || item.handlerId === this.owner) return;
    this.queue = this.queue.filter((queued) => queued.handlerId !== item.handlerId);
    const error = errorResponse(
      "55P03",
      `waited more than ${this.waitLimitMs} ms for the embedded database, which another connection holds (a transaction or a long statement)`,
    );
    item.onData(error);
    // A simple Query or a Sync ends its exchange at once; anything else discards up to its Sync.
    if (item.message[0] === QUERY || item.message[0] === SYNC) item.onData(READY_IDLE);
    else this.discarding.add(item.handlerId);
    item.resolve(error.length);
    // The messages queued behind it, in order: discarded up to the Sync, then queued again.
    const rest = mine.slice(1);
    while (this.discarding.has(item.handlerId) && rest.length > 0) {
      const next = rest.shift() as Item;
      clearTimeout(next.timer);
      next.resolve(this.discard(next.handlerId, next.message, next.onData));
    }
    if (rest.length > 0) {
      this.queue.push(...rest);
      void this.process();
    }
  }

  /** A message of an exchange that failed: not run; its Sync gets ReadyForQuery and ends the discarding. */
  private discard(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): number {
    if (message[0] !== SYNC) return 0;
    this.discarding.delete(handlerId);
    onData(READY_IDLE);
    return READY_IDLE.length;
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  /** The connection went away: drop its queued messages. */
  clearQueueForHandler(handlerId: number): void {
    const mine = this.queue.filter((item) => item.handlerId === handlerId);
    this.queue = this.queue.filter((item) => item.handlerId !== handlerId);
    this.discarding.delete(handlerId);
    for (const item of mine) {
      clearTimeout(item.timer);
      item.reject(new Error("connection closed"));
    }
  }

  /** The connection went away: undo its open transaction and hand the session on. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec("ROLLBACK").catch(() => {});
    this.owner = null;
    void this.process();
  }

  /**
   * One loop runs at a time. It takes the owner's next message, or — with no owner —
   * the oldest message of any connection, which makes that connection the owner. When
   * the owner has nothing queued (it is between statements of a transaction), the loop
   * stops and the owner's next message restarts it; other connections wait meanwhile.
   */
  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      for (;;) {
        const index = this.owner === null ? 0 : this.queue.findIndex((item) => item.handlerId === this.owner);
        if (this.queue.length === 0 || index === -1) return;
        const [item] = this.queue.splice(index, 1) as [Item];
        clearTimeout(item.timer);
        this.owner = item.handlerId;
        try {
          let bytes = 0;
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
          if (endsExchange(item.message) && !this.db.isInTransaction()) this.owner = null;
          item.resolve(bytes);
        } catch (error) {
          if (this.db.isInTransaction()) await this.db.exec("ROLLBACK").catch(() => {});
          this.owner = null;
          item.reject(error as Error);
        }
      }
    } finally {
      this.processing = false;
    }
  }
}

/** Sync and simple Query end an exchange with ReadyForQuery; so does the startup packet. */
function endsExchange(message: Uint8Array): boolean {
  const type = message[0];
  return type === SYNC || type === QUERY || isStartup(message);
}

function isStartup(message: Uint8Array): boolean {
  if (message.length < 8) return false;
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  return view.getInt32(4) === PROTOCOL_3;
}

/** ReadyForQuery, idle (outside a transaction). */
const READY_IDLE = new Uint8Array([0x5a, 0, 0, 0, 5, 0x49]);

/** A backend ErrorResponse of severity ERROR: the SQLSTATE and the message (protocol 3). */
function errorResponse(code: string, message: string): Uint8Array {
  const fields = new TextEncoder().encode(`SERROR\0VERROR\0C${code}\0M${message}\0\0`);
  const out = new Uint8Array(1 + 4 + fields.length);
  out[0] = 0x45; // 'E'
  new DataView(out.buffer).setInt32(1, 4 + fields.length);
  out.set(fields, 5);
  return out;
}
