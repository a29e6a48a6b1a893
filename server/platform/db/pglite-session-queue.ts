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
}

export class SessionQueue {
  private queue: Item[] = [];
  /** The connection whose exchange (or transaction) is under way, if any. */
  private owner: number | null = null;
  private processing = false;

  constructor(private readonly db: PGlite) {}

  /** Same contract as pglite-socket's QueryQueueManager.enqueue. */
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.process();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  /** The connection went away: drop its queued messages. */
  clearQueueForHandler(handlerId: number): void {
    const mine = this.queue.filter((item) => item.handlerId === handlerId);
    this.queue = this.queue.filter((item) => item.handlerId !== handlerId);
    for (const item of mine) item.reject(new Error("connection closed"));
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
  if (type === SYNC || type === QUERY) return true;
  if (message.length >= 8) {
    const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
    if (view.getInt32(4) === PROTOCOL_3) return true;
  }
  return false;
}
