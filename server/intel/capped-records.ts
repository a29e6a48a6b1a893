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
import { pipeline, Readable } from "node:stream";
import parser from "stream-json/parser.js";

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
 * The properties of the one JSON object in `bytes`, each within `caps`. Throws when the bytes
 * are not one complete JSON object (a truncated download ends in an error, never a silent stop).
 */
export async function* readCappedRecords(
  bytes: AsyncIterable<Uint8Array>,
  caps: RecordCaps = RECORD_CAPS,
): AsyncGenerator<CappedRecord> {
  const tokens = parser.asStream({ packValues: false, streamValues: true });
  // pipeline() destroys the parser with the source's error, so a failed download throws here.
  pipeline(Readable.from(bytes, { objectMode: false }), tokens, () => {});
  let state: "before" | "key" | "value" | "between" | "after" = "before";
  let key: string[] = [];
  let keyLength = 0;
  let record: RecordAssembler | undefined;
  for await (const token of tokens as AsyncIterable<Token>) {
    if (state === "value" && record) {
      record.push(token);
      if (record.done) {
        yield { key: key.join(""), value: record.result, capped: record.capped };
        record = undefined;
        state = "between";
      }
      continue;
    }
    switch (token.name) {
      case "startObject":
        if (state === "before") state = "between";
        else if (state === "between") throw new Error("expected a key, got an object");
        break;
      case "startKey":
        if (state !== "between") throw new Error("unexpected key");
        key = [];
        keyLength = 0;
        state = "key";
        break;
      case "stringChunk":
        if (state === "key" && keyLength < 200) {
          const kept = (token.value as string).slice(0, 200 - keyLength);
          key.push(kept);
          keyLength += kept.length;
        }
        break;
      case "endKey":
        record = new RecordAssembler(caps);
        state = "value";
        break;
      case "endObject":
        if (state !== "between") throw new Error("unexpected end of object");
        state = "after";
        break;
      default:
        if (state === "before") throw new Error(`Top-level value must be an object, got ${token.name}`);
    }
  }
  if (state !== "after") throw new Error("unexpected end of the feed: expected the closing }");
}
