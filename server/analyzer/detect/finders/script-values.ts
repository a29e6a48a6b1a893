/**
 * Reading values out of inline JavaScript and JSON without running or fully parsing it:
 * the top-level scalar properties of an object literal (`var foo_params = {"version":"1.2.3",
 * "ajax_url":"…"}`, as wp_localize_script and wp_json_encode print it, or a hand-written
 * `{ version: '1.2.3' }`), and `name = "value"` / `name: "value"` pairs anywhere.
 *
 * One linear pass per object, capped: a hostile page cannot make it slow or deep.
 */

/** Characters of one object read at most (localized data is a few KB). */
const MAX_OBJECT = 20_000;
/** Top-level properties kept per object. */
const MAX_PROPERTIES = 200;

/**
 * The top-level properties of the object literal starting at `text[start] === "{"` whose
 * values are strings or numbers, as written (strings without their quotes, escapes kept).
 */
export function topLevelScalars(text: string, start: number): Map<string, string> {
  const found = new Map<string, string>();
  if (text[start] !== "{") return found;
  const end = Math.min(text.length, start + MAX_OBJECT);
  let depth = 0;
  let i = start;
  // At depth 1 after "{" or ",": a key may start.
  let expectKey = false;
  while (i < end) {
    const char = text[i] as string;
    if (char === '"' || char === "'" || char === "`") {
      const close = stringEnd(text, i, end);
      if (depth === 1 && expectKey) {
        const key = text.slice(i + 1, close);
        i = readValue(text, close + 1, end, key, found);
        expectKey = false;
        continue;
      }
      i = close + 1;
      continue;
    }
    if (char === "{" || char === "[" || char === "(") {
      depth++;
      expectKey = depth === 1 && char === "{";
    } else if (char === "}" || char === "]" || char === ")") {
      depth--;
      if (depth <= 0) break;
    } else if (char === "," && depth === 1) {
      expectKey = true;
    } else if (depth === 1 && expectKey && /[A-Za-z_$]/.test(char)) {
      const match = /^[A-Za-z_$][\w$]{0,80}/.exec(text.slice(i, i + 81));
      const key = match?.[0] ?? char;
      i = readValue(text, i + key.length, end, key, found);
      expectKey = false;
      continue;
    } else if (!/\s/.test(char)) {
      expectKey = false;
    }
    if (found.size >= MAX_PROPERTIES) break;
    i++;
  }
  return found;
}

/** Index of the quote closing the string opened at `open` (or `end`). */
function stringEnd(text: string, open: number, end: number): number {
  const quote = text[open];
  let i = open + 1;
  while (i < end) {
    const char = text[i];
    if (char === "\\") i += 2;
    else if (char === quote || char === "\n") return i;
    else i++;
  }
  return end;
}

/** After a key: `: "value"` or `: 1.2` is recorded; returns where scanning goes on. */
function readValue(text: string, from: number, end: number, key: string, found: Map<string, string>): number {
  let i = from;
  while (i < end && (text[i] === " " || text[i] === "\t")) i++;
  if (text[i] !== ":") return i;
  i++;
  while (i < end && /\s/.test(text[i] as string)) i++;
  const char = text[i];
  if (char === '"' || char === "'") {
    const close = stringEnd(text, i, end);
    if (close - i <= 200 && !found.has(key)) found.set(key, text.slice(i + 1, close));
    return close + 1;
  }
  const number = /^\d[\d.]{0,30}/.exec(text.slice(i, i + 32));
  if (number) {
    if (!found.has(key)) found.set(key, number[0]);
    return i + number[0].length;
  }
  return i;
}

/** Assignments and properties with a quoted value: `foo_version = "1.2"`, `"fooVersion": '1.2'`. */
const PAIR = /["']?([A-Za-z_$][\w$-]{0,80})["']?\s*[:=]\s*(["'])([^"'\\\n]{1,40})\2/g;
/** Pairs read per script. */
const MAX_PAIRS = 2_000;

export function* quotedPairs(text: string): Generator<{ name: string; value: string; index: number }> {
  let count = 0;
  for (const match of text.matchAll(PAIR)) {
    if (++count > MAX_PAIRS) return;
    yield { name: match[1] ?? "", value: match[3] ?? "", index: match.index };
  }
}
