/**
 * The other public files of a plugin that state a version, and whose version they state:
 *
 * - `package.json` / `composer.json`: `version`, with the `name` it belongs to. A plugin's
 *   package.json is often its build tool's, left at `1.0.0` or named after a boilerplate, so
 *   its version only counts when its name is the plugin's (namesPlugin).
 * - `languages/<slug>.pot`: `"Project-Id-Version: Contact Form 7 5.9.3\n"` — written by
 *   `wp i18n make-pot` (or grunt/gulp) from the plugin header when the template is built.
 * - the banner of the plugin's own script or stylesheet: `/*! Foo Gallery v2.1.0 *\/`,
 *   ` * Version: 2.1.0` under ` * Plugin Name: Foo Gallery` or `@package Foo_Gallery`. A banner
 *   naming something else is a bundled library's (Select2 in a forms plugin).
 *
 * All are site text: parsers read bounded prefixes and never throw.
 */
import { isFileVersion } from "./version-sanity.ts";

export interface StatedVersion {
  version: string;
  /** The name the file gives with it, if any (site text). */
  name: string | null;
  /** The text the version was read from (site text), for the evidence. */
  text: string;
}

/** Read of a JSON manifest: the few fields near the top are all that matter. */
const MANIFEST_BYTES = 64 * 1024;

/** A bounded JSON object, or null for anything else (an HTML 404 page, a truncated file). */
function jsonObject(text: string): Record<string, unknown> | null {
  const trimmed = text.slice(0, MANIFEST_BYTES).trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * `{"name": "…", "version": "…"}` of a package.json or composer.json. A truncated file
 * does not parse and gives nothing, which is right: half a manifest proves nothing.
 */
export function parseManifest(text: string): StatedVersion | null {
  const json = jsonObject(text);
  const version = typeof json?.version === "string" ? json.version.trim().replace(/^v/i, "") : null;
  if (!json || !version || !isFileVersion(version)) return null;
  const name = typeof json.name === "string" ? json.name.slice(0, 200) : null;
  return { version, name, text: `${name ? `"name": "${name}", ` : ""}"version": "${version}"` };
}

/**
 * The header of a translation template (.pot): `Project-Id-Version: <Name> <version>`.
 * The file must look like one (a `msgid ""` header entry); `PACKAGE VERSION` is the
 * template's placeholder and gives nothing.
 */
export function parsePotHeader(text: string): StatedVersion | null {
  const head = text.slice(0, 8_192);
  if (!/^\s*msgid\s+""/m.test(head)) return null;
  const value = /^"Project-Id-Version:[ \t]*([^"\\\n]{0,200})/m.exec(head)?.[1]?.trim();
  if (!value) return null;
  const match = /^(.*?)[\s\-–—:]*\bv?(\d{1,4}(?:\.\d{1,5}){1,3}(?:-?(?:alpha|beta|rc)\.?\d*)?)$/i.exec(value);
  if (!match?.[2] || !isFileVersion(match[2])) return null;
  return { version: match[2], name: match[1]?.trim() || null, text: `Project-Id-Version: ${value}` };
}

/** The comment a script or stylesheet opens with (`/*! … *\/`, `/** … *\/`, `// …` lines), at most 1 KB of it. */
export function leadingComment(text: string): string | null {
  const head = text.slice(0, 4_096).replace(/^\uFEFF/, "");
  const block = /^\s*(?:(["'])use strict\1;?\s*)?\/\*([\s\S]{0,1024}?)\*\//.exec(head);
  if (block?.[2] !== undefined) return block[2];
  const lines = /^\s*((?:\/\/[^\n]{0,300}\n\s*){1,12})/.exec(head);
  return lines?.[1] ? lines[1].replace(/^\s*\/\/ ?/gm, "") : null;
}

const VERSION_TOKEN = String.raw`v?(\d{1,4}(?:\.\d{1,5}){1,3}(?:-?(?:alpha|beta|rc)\.?\d*)?)`;

/**
 * A banner's version and the name it goes with: `Name v1.2.3`, `Name - v1.2.3 - 2024-01-10`,
 * `Name version 1.2.3` on the first line, or a `Version:` / `@version` tag beside a
 * `Plugin Name:` / `Name:` / `@package` tag (or the first line's words).
 */
export function parseBanner(comment: string): (StatedVersion & { form: "inline" | "tagged" }) | null {
  const lines = comment
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s*\*?!?\s?/, "").trim())
    .filter((line) => line.length > 0)
    .slice(0, 30);
  const first = lines[0]?.slice(0, 200) ?? "";
  const inline = new RegExp(`^(.{2,80}?)[\\s,:\\-–—]+(?:version\\s*)?${VERSION_TOKEN}(?=$|[\\s,;|()\\-–—])`, "i").exec(
    first,
  );
  if (inline?.[1] && inline[2] && isFileVersion(inline[2])) {
    return { version: inline[2], name: inline[1].replace(/[\s\-–—:,]+$/, ""), text: first, form: "inline" };
  }
  const tagged = lines
    .map((line) => new RegExp(`^@?version\\s*:?\\s*${VERSION_TOKEN}\\s*$`, "i").exec(line))
    .find((match) => match?.[1]);
  if (!tagged?.[1] || !isFileVersion(tagged[1])) return null;
  const named = lines
    .map((line) => /^(?:plugin name|name|@package|@plugin)\s*:?\s+(.{2,80})$/i.exec(line)?.[1])
    .find((name) => name);
  return {
    version: tagged[1],
    name: named ?? (first && !/^@?version\b/i.test(first) ? first : null),
    text: tagged[0],
    form: "tagged",
  };
}

/**
 * Whether a description line starts with the plugin's name: "Foo Gallery front-end scripts"
 * for foo-gallery. Used for the first line of a banner whose version is in a `Version:` tag.
 */
export function startsWithPluginName(line: string, slug: string, displayName: string | null): boolean {
  const words = nameWords(line);
  return [slug, displayName].some((candidate) => {
    const own = candidate ? nameWords(candidate) : [];
    return own.join("").length >= 5 && own.every((word, i) => words[i] === word);
  });
}

/** Words that say nothing about which plugin a name is ("WP", "Plugin", "for", "Pro"). */
const NOISE = new Set([
  "wp",
  "wordpress",
  "plugin",
  "plugins",
  "for",
  "the",
  "by",
  "and",
  "a",
  "of",
  "pro",
  "lite",
  "free",
  "premium",
  "js",
  "css",
  "min",
  "script",
  "scripts",
  "style",
  "styles",
  "frontend",
  "admin",
  "public",
  "main",
  "app",
  "bundle",
]);

/**
 * The words of a name or slug, noise dropped: "Foo Gallery Pro" → foo, gallery; "@acme/foo-gallery"
 * → foo, gallery. CamelCase stays one word ("WooCommerce" is woocommerce, as in its slug);
 * "FooGallery" still matches foo-gallery by its joined letters.
 */
export function nameWords(text: string): string[] {
  return text
    .replace(/^@[^/]+\//, "") // npm scope
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0 && !NOISE.has(word));
}

/**
 * Whether a name a file gives belongs to the plugin: the same words as its slug or its
 * display name (noise words aside), in any order, or one's words all among the other's
 * ("WPForms" and wpforms-lite; "WooCommerce Stripe Gateway" and woocommerce-gateway-stripe).
 * A composer name is `vendor/package`: the package part is compared.
 */
export function namesPlugin(
  name: string,
  slug: string,
  displayName: string | null,
  /** Only the same words: for banners, where a bundled library may share a word with the plugin. */
  exact = false,
): boolean {
  const own = nameWords(name.includes("/") && !name.startsWith("@") ? (name.split("/")[1] ?? "") : name);
  if (own.length === 0) return false;
  const joined = own.join("");
  for (const candidate of [slug, displayName]) {
    if (!candidate) continue;
    const words = nameWords(candidate);
    if (words.length === 0) continue;
    if (words.join("") === joined) return true;
    if (exact) continue;
    // "Smush" and wp-smushit: one name's letters inside the other's, long enough not to be chance.
    const shorter = joined.length <= words.join("").length ? joined : words.join("");
    const longer = shorter === joined ? words.join("") : joined;
    if (shorter.length >= 4 && longer.includes(shorter)) return true;
    const mine = new Set(own);
    const theirs = new Set(words);
    if ([...mine].every((word) => theirs.has(word)) || [...theirs].every((word) => mine.has(word))) return true;
  }
  return false;
}
