/**
 * Text we can store. PostgreSQL refuses U+0000 in text and jsonb, and an unpaired UTF-16
 * surrogate cannot be encoded as UTF-8 at all. Input carrying either must be refused up
 * front with a 400 — before any credit is reserved or any site is fetched — instead of
 * failing with a 500 when the result is stored (after the crawl, and free of charge).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && !LONE_SURROGATE.test(text);
}

/** JSON Pointer (RFC 6901) of the first string, or object key, that cannot be stored. */
export function findUnstorableText(value: unknown, pointer = ""): string | undefined {
  if (typeof value === "string") return isStorableText(value) ? undefined : pointer || "/";
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnstorableText(item, `${pointer}/${index}`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const escaped = key.replaceAll("~", "~0").replaceAll("/", "~1");
      if (!isStorableText(key)) return `${pointer}/${isStorableText(escaped) ? escaped : "(key)"}`;
      const found = findUnstorableText(item, `${pointer}/${escaped}`);
      if (found) return found;
    }
  }
  return undefined;
}

export const UNSTORABLE_DETAIL =
  "contains a NUL character (\\u0000) or an unpaired UTF-16 surrogate, which cannot be stored";
