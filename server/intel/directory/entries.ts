/**
 * Directory entries (slug, display name, installs, last update) in the two forms they
 * arrive in (docs/intel.md, "The names index"):
 *
 * - the WordPress.org API's own answers, pages of
 *   `GET /plugins/info/1.2/?action=query_plugins&request[page]=N&request[per_page]=M` →
 *   `{ "info": { "page", "pages", "results" }, "plugins": [ { "name", "slug", "version",
 *   "active_installs", "last_updated": "2024-05-14 2:37pm GMT", … } ] }`, and of
 *   `…/themes/info/1.2/?action=query_themes…` → `{ "info": {…}, "themes": [ { "name", "slug",
 *   "last_updated": "2024-05-14", "last_updated_time": "2024-05-14 14:37:00", … } ] }`. A file
 *   may hold one page, several one after another (concatenated or one per line), or an array
 *   of pages; it is stream-parsed (stream-json), keeping only the few fields used, so a dump
 *   with every field (descriptions, sections) costs no more memory than a lean one;
 * - a line format: `<slug> <Display Name>` per line, `#` comments and blank lines ignored.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { pipeline, Readable } from "node:stream";
import parser from "stream-json/parser.js";
import type { DirectoryType } from "../../analyzer/detect/finders/directory.ts";
import { SLUG_SHAPE } from "../../analyzer/detect/finders/name-keys.ts";

export interface DirectoryEntry {
  type: DirectoryType;
  slug: string;
  name: string;
  installs: number | null;
  updatedAt: Date | null;
}

export class DirectoryFormatError extends Error {
  override name = "DirectoryFormatError";
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "\u2013",
  mdash: "\u2014",
  hellip: "\u2026",
  lsquo: "\u2018",
  rsquo: "\u2019",
  ldquo: "\u201c",
  rdquo: "\u201d",
  laquo: "\u00ab",
  raquo: "\u00bb",
  copy: "\u00a9",
  reg: "\u00ae",
  trade: "\u2122",
};

/** The directory writes names HTML-escaped ("All in One SEO &#8211; …", "Foo &amp; Bar"). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, entity: string) => {
    if (entity[0] === "#") {
      const code =
        entity[1] === "x" || entity[1] === "X" ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

const MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split(" ");

/**
 * The directory's dates: "2024-05-14 2:37pm GMT" (plugins), "2024-05-14 14:37:00" and
 * "2024-05-14" (themes), all UTC; null for anything else.
 */
export function directoryDate(value: unknown): Date | null {
  if (typeof value !== "string") return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm)?)?/i.exec(value.trim());
  if (!match) {
    // "14 May 2024" (older answers)
    const words = /^(\d{1,2}) ([A-Za-z]{3})[a-z]* (\d{4})$/.exec(value.trim());
    const month = words ? MONTHS.indexOf((words[2] ?? "").toLowerCase()) : -1;
    return words && month >= 0 ? new Date(Date.UTC(Number(words[3]), month, Number(words[1]))) : null;
  }
  let hour = Number(match[4] ?? 0);
  const meridiem = match[7]?.toLowerCase();
  if (meridiem === "pm" && hour < 12) hour += 12;
  if (meridiem === "am" && hour === 12) hour = 0;
  const date = new Date(
    Date.UTC(
      Number(match[1]),
      Number(match[2]) - 1,
      Number(match[3]),
      hour,
      Number(match[5] ?? 0),
      Number(match[6] ?? 0),
    ),
  );
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The fields of an API entry that are read; anything else in it is skipped unread. */
export const ENTRY_FIELDS = new Set(["name", "slug", "active_installs", "last_updated", "last_updated_time"]);

/** An entry from the API's fields, or why it is not one. */
export function directoryEntry(type: DirectoryType, raw: Record<string, unknown>): DirectoryEntry | string {
  const slug = typeof raw.slug === "string" ? raw.slug.trim() : "";
  if (!SLUG_SHAPE.test(slug)) return `slug ${JSON.stringify(raw.slug ?? null)} is not a directory slug`;
  const name = typeof raw.name === "string" ? decodeEntities(raw.name).replace(/\s+/g, " ").trim() : "";
  if (!name) return `${slug} has no name`;
  const installs = typeof raw.active_installs === "number" ? raw.active_installs : Number(raw.active_installs);
  return {
    type,
    slug,
    name: name.slice(0, 200),
    installs: Number.isFinite(installs) && installs >= 0 ? Math.min(Math.round(installs), 2_000_000_000) : null,
    updatedAt: directoryDate(raw.last_updated_time) ?? directoryDate(raw.last_updated),
  };
}

/** The list of one parsed API page: its type, entries and paging. */
export interface DirectoryPage {
  type: DirectoryType;
  page: number;
  pages: number;
  entries: DirectoryEntry[];
  /** Entries that were not usable (why, for the first few). */
  invalid: string[];
}

export function parsePage(data: unknown): DirectoryPage {
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw new DirectoryFormatError(
      "the answer is not a query_plugins / query_themes page (an object with info and plugins or themes)",
    );
  const record = data as Record<string, unknown>;
  const type: DirectoryType | null = Array.isArray(record.plugins)
    ? "plugin"
    : Array.isArray(record.themes)
      ? "theme"
      : null;
  if (!type) throw new DirectoryFormatError("the page has no plugins or themes list");
  const info = (typeof record.info === "object" && record.info !== null ? record.info : {}) as Record<string, unknown>;
  const list = (type === "plugin" ? record.plugins : record.themes) as unknown[];
  const entries: DirectoryEntry[] = [];
  const invalid: string[] = [];
  for (const item of list) {
    const entry =
      typeof item === "object" && item !== null
        ? directoryEntry(type, item as Record<string, unknown>)
        : "an entry is not an object";
    if (typeof entry === "string") invalid.push(entry);
    else entries.push(entry);
  }
  return { type, page: Number(info.page) || 1, pages: Number(info.pages) || 0, entries, invalid };
}

type Token = { name: string; value?: unknown };
type Role = "page" | "pages" | "list" | "entry" | "other";

/**
 * Entries of API pages from a byte stream, one at a time. Throws DirectoryFormatError on a
 * document that is not JSON, holds no plugins/themes list, or (strict) an unusable entry.
 */
export async function* readApiPages(bytes: AsyncIterable<Uint8Array>, strict = true): AsyncGenerator<DirectoryEntry> {
  const tokens = parser.asStream({ jsonStreaming: true, packValues: true, streamValues: false });
  // pipeline() destroys the parser with the source's error, so a failed read throws here.
  pipeline(Readable.from(bytes, { objectMode: false }), tokens, () => {});
  const roles: Role[] = [];
  const keys: (string | null)[] = [];
  let listType: DirectoryType = "plugin";
  // Set by open() when an entry object starts (a holder: TypeScript does not follow the closure).
  const current: { entry: Record<string, unknown> | null } = { entry: null };
  let lists = 0;
  let pages = 0;
  let count = 0;
  const open = (container: "object" | "array") => {
    const parent = roles.at(-1);
    const key = keys.at(-1) ?? null;
    let role: Role = "other";
    if (parent === undefined) role = container === "object" ? "page" : "pages";
    else if (parent === "pages" && container === "object") role = "page";
    else if (parent === "page" && container === "array" && (key === "plugins" || key === "themes")) {
      role = "list";
      listType = key === "plugins" ? "plugin" : "theme";
      lists++;
    } else if (parent === "list" && container === "object") {
      role = "entry";
      current.entry = {};
    }
    if (role === "page") pages++;
    roles.push(role);
    keys.push(null);
  };
  try {
    for await (const token of tokens as AsyncIterable<Token>) {
      switch (token.name) {
        case "startObject":
          open("object");
          break;
        case "startArray":
          open("array");
          break;
        case "endObject":
        case "endArray": {
          const role = roles.pop();
          keys.pop();
          if (role === "entry" && current.entry) {
            const found = directoryEntry(listType, current.entry);
            current.entry = null;
            if (typeof found === "string") {
              if (strict) throw new DirectoryFormatError(`page ${pages}, entry ${count + 1}: ${found}`);
            } else {
              count++;
              yield found;
            }
          }
          break;
        }
        case "keyValue":
          keys[keys.length - 1] = String(token.value);
          break;
        case "stringValue":
        case "numberValue":
          if (roles.at(-1) === "entry" && current.entry) {
            const key = keys.at(-1);
            if (key && ENTRY_FIELDS.has(key))
              current.entry[key] = token.name === "numberValue" ? Number(token.value) : token.value;
          }
          break;
      }
    }
  } catch (error) {
    if (error instanceof DirectoryFormatError) throw error;
    throw new DirectoryFormatError(`not valid JSON pages (truncated or corrupt): ${(error as Error).message}`);
  }
  if (lists === 0)
    throw new DirectoryFormatError("no query_plugins or query_themes page in it (no plugins or themes list)");
}

/** Entries of the line format: `<slug> <Display Name>`; a bad line is refused with its number. */
export async function* readNameLines(
  lines: AsyncIterable<string>,
  type: DirectoryType,
): AsyncGenerator<DirectoryEntry> {
  let number = 0;
  for await (const raw of lines) {
    number++;
    const line = raw.replace(/^\uFEFF/, "").trim();
    if (!line || line.startsWith("#")) continue;
    const match = /^(\S+)\s+(.+)$/.exec(line);
    if (!match)
      throw new DirectoryFormatError(
        `line ${number}: expected "<slug> <name>", got ${JSON.stringify(line.slice(0, 80))}`,
      );
    const entry = directoryEntry(type, { slug: match[1], name: match[2] });
    if (typeof entry === "string") throw new DirectoryFormatError(`line ${number}: ${entry}`);
    yield entry;
  }
}

/** A file in either form: JSON pages when it starts with "{" or "[", otherwise lines. */
export async function* readDirectoryFile(file: string, type: DirectoryType): AsyncGenerator<DirectoryEntry> {
  let first = "";
  for await (const chunk of createReadStream(file, { start: 0, end: 4095, encoding: "utf8" })) {
    first += chunk;
  }
  const start = first.replace(/^\uFEFF/, "").trimStart()[0];
  if (start === "{" || start === "[") {
    yield* readApiPages(createReadStream(file));
    return;
  }
  yield* readNameLines(
    createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity }),
    type,
  );
}
