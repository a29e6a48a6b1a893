/**
 * A JSON object's properties, one record at a time, each assembled within fixed caps — so the
 * memory an import needs is bounded by the caps and the batch, whatever a record's shape.
 *
 * stream-json's object streamer assembles each record whole: one feed record naming 300k
 * plugins peaked at 1.46 GB and then failed (300k rows in one INSERT), and a 50 MB file of a
 * few huge records peaked at 1.6 GB. Here the parser streams every key, string and number in
 * chunks, and the assembler keeps at most:
 * - `maxItems` elements of any one array or object (the rest are read and dropped);
 * - `maxString` characters of any one string or key, `maxChars` characters per record;
 * - `maxNodes` values per record, and nothing deeper than `maxDepth`.
 * A record that hit a cap comes out with `capped: true` (the importer counts them); what was
 * kept is still a well-formed value.
 */
import { getManyValues, isMany, none } from "stream-chain/defs.js";
import { jsonParser } from "stream-json/core/parser.js";

export interface RecordCaps {
  maxItems: number;
  maxString: number;
  maxChars: number;
  maxNodes: number;
  maxDepth: number;
}

/**
 * The feed's largest real records name a few hundred components (a shared library's flaw);
 * 5000 entries, ~16 values each, stay within 100k values. Strings: titles and references are
 * capped at 2 KiB by the importer, licence texts at 2000 characters.
 */
export const RECORD_CAPS: RecordCaps = {
  maxItems: 5_000,
  maxString: 4_096,
  maxChars: 2_000_000,
  maxNodes: 100_000,
  maxDepth: 12,
};

export interface CappedRecord {
  key: string;
  value: unknown;
  capped: boolean;
}

type Token = { name: string; value?: unknown };

interface Frame {
  /** null: this container is dropped (over a cap), its contents are only read. */
  target: Record<string, unknown> | unknown[] | null;
  /** The key waiting for its value, in an object. */
  key: string | null;
  items: number;
}

class RecordAssembler {
  private readonly stack: Frame[] = [];
  private nodes = 0;
  private chars = 0;
  capped = false;
  /** The text of the string, key or number being read, and whether it is kept. */
  private text: string[] = [];
  private textLength = 0;
  private textLimit = 0;
  result: unknown = undefined;
  done = false;

  constructor(private readonly caps: RecordCaps) {}

  /** Feeds one token of the record's value; `done` turns true when the value is complete. */
  push(token: Token): void {
    switch (token.name) {
      case "startObject":
      case "startArray":
        this.open(token.name === "startObject" ? {} : []);
        return;
      case "endObject":
      case "endArray": {
        const frame = this.stack.pop() as Frame;
        this.close(frame.target, true);
        return;
      }
      case "startKey":
      case "startString":
      case "startNumber":
        this.text = [];
        this.textLength = 0;
        this.textLimit = token.name === "startNumber" ? 64 : this.caps.maxString;
        return;
      case "stringChunk":
      case "numberChunk":
        this.chunk(token.value as string);
        return;
      case "endKey": {
        const frame = this.stack.at(-1);
        if (frame) frame.key = this.text.join("");
        return;
      }
      case "endString":
        this.value(this.text.join(""));
        return;
      case "endNumber":
        this.value(Number(this.text.join("")));
        return;
      case "nullValue":
        this.value(null);
        return;
      case "trueValue":
        this.value(true);
        return;
      case "falseValue":
        this.value(false);
        return;
      default:
        return; // packed tokens are not asked for; whitespace carries nothing
    }
  }

  private chunk(value: string): void {
    const room = Math.min(this.textLimit - this.textLength, this.caps.maxChars - this.chars);
    if (room <= 0) {
      if (value.length > 0) this.capped = true;
      return;
    }
    const kept = value.length > room ? value.slice(0, room) : value;
    if (kept.length < value.length) this.capped = true;
    this.text.push(kept);
    this.textLength += kept.length;
    this.chars += kept.length;
  }

  private open(container: Record<string, unknown> | unknown[]): void {
    const parent = this.stack.at(-1);
    const kept = (parent === undefined || this.accepts(parent)) && this.stack.length < this.caps.maxDepth;
    if (!kept) this.capped = true;
    this.stack.push({ target: kept ? container : null, key: null, items: 0 });
  }

  /** Whether the frame takes one more element. */
  private accepts(frame: Frame): boolean {
    return frame.target !== null && frame.items < this.caps.maxItems && this.nodes < this.caps.maxNodes;
  }

  private value(value: unknown): void {
    this.close(value, false);
  }

  /** A complete value: into its parent (if kept), or the record's value when it is the top. */
  private close(value: unknown, container: boolean): void {
    const parent = this.stack.at(-1);
    if (!parent) {
      this.result = value;
      this.done = true;
      return;
    }
    const key = parent.key;
    parent.key = null;
    if (value === null && container) return; // a dropped container: nothing to attach
    if (!this.accepts(parent)) {
      if (parent.target !== null) this.capped = true;
      return;
    }
    parent.items += 1;
    this.nodes += 1;
    if (Array.isArray(parent.target)) parent.target.push(value);
    else (parent.target as Record<string, unknown>)[key ?? ""] = value;
  }
}

/**
 * The top level of the feed: `{`, then keys each followed by one record, then `}`. Tokens go
 * in synchronously (the parser is driven chunk by chunk, without a stream per token), and
 * each completed record is handed to `emit`.
 */
class FeedReader {
  private state: "before" | "key" | "value" | "between" | "after" = "before";
  private key: string[] = [];
  private keyLength = 0;
  private record: RecordAssembler | undefined;

  constructor(
    private readonly caps: RecordCaps,
    private readonly emit: (record: CappedRecord) => void,
  ) {}

  get complete(): boolean {
    return this.state === "after";
  }

  push(token: Token): void {
    if (this.state === "value" && this.record) {
      this.record.push(token);
      if (this.record.done) {
        this.emit({ key: this.key.join(""), value: this.record.result, capped: this.record.capped });
        this.record = undefined;
        this.state = "between";
      }
      return;
    }
    switch (token.name) {
      case "startObject":
        if (this.state !== "before") throw new Error("expected a key, got an object");
        this.state = "between";
        return;
      case "startKey":
        if (this.state !== "between") throw new Error("unexpected key");
        this.key = [];
        this.keyLength = 0;
        this.state = "key";
        return;
      case "stringChunk":
        if (this.state === "key" && this.keyLength < MAX_KEY) {
          const kept = (token.value as string).slice(0, MAX_KEY - this.keyLength);
          this.key.push(kept);
          this.keyLength += kept.length;
        }
        return;
      case "endKey":
        this.record = new RecordAssembler(this.caps);
        this.state = "value";
        return;
      case "endObject":
        if (this.state !== "between") throw new Error("unexpected end of object");
        this.state = "after";
        return;
      default:
        if (this.state === "before") throw new Error(`Top-level value must be an object, got ${token.name}`);
    }
  }
}

/** Characters of a record's key kept (feed keys are UUIDs). */
const MAX_KEY = 200;

/**
 * The properties of the one JSON object in `bytes`, each within `caps`. Throws when the bytes
 * are not one complete JSON object (a truncated download ends in an error, never a silent stop).
 */
export async function* readCappedRecords(
  bytes: AsyncIterable<Uint8Array>,
  caps: RecordCaps = RECORD_CAPS,
): AsyncGenerator<CappedRecord> {
  // Keys, strings and numbers in chunks only: the parser never holds a whole huge string.
  const parse = jsonParser({ packValues: false, streamValues: true });
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const ready: CappedRecord[] = [];
  const reader = new FeedReader(caps, (record) => ready.push(record));
  const feed = (result: unknown) => {
    if (isMany(result)) for (const token of getManyValues(result) as Token[]) reader.push(token);
  };
  for await (const chunk of bytes) {
    const text = decoder.decode(chunk, { stream: true });
    if (text) feed(parse(text));
    // Records are yielded between chunks: at most one chunk's worth of records waits here.
    yield* ready.splice(0);
  }
  const rest = decoder.decode();
  if (rest) feed(parse(rest));
  feed(parse(none as never));
  yield* ready.splice(0);
  if (!reader.complete) throw new Error("unexpected end of the feed: expected the closing }");
}
