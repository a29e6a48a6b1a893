/**
 * The one way a display name, an identifier or a version token is normalised — shared by
 * the analyzer's finders and by the names index the service builds from the WordPress.org
 * directory (server/intel/directory/), so that a key written at import time is the key a
 * finder asks for.
 */

/** Lower case, entities and dashes unified, punctuation at the ends dropped, spaces collapsed, a leading "the" dropped. */
export function normalizeName(text: string): string {
  return text
    .replace(/&amp;/gi, "&")
    .replace(/[\u2013\u2014\u2012\u2212]/g, "-")
    .replace(/[\u2018\u2019]/g, "'")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/^[\s"'([{-]+|[\s"')\]}.,;:!|-]+$/g, "")
    .replace(/^the /, "");
}

/**
 * Words that close a marketing name's short form: "Rank Math SEO – AI SEO Tools…" is
 * credited as "Rank Math SEO", "Akismet Anti-spam: Spam Protection" as "Akismet Anti-spam".
 */
const SHORT_FORM = /^(.{3,80}?)\s*(?::|\s[-\u2012\u2013\u2014|/]\s|\s\(|,\s)/;
/** One to three words after the last dash or colon of a name: a brand there when a word of it is spelt like one (wpDiscuz). */
const BRAND_TAIL = /(?::|\s[-\u2012\u2013\u2014|]\s)\s*((?:[^\s:\u2013\u2014|,]+\s){0,2}[^\s:\u2013\u2014|,]+)\s*$/;
/** Trailing words that say what kind of plugin it is, not which: "Rank Math SEO" is also credited as "Rank Math". */
const KIND_WORDS = /\s+(?:seo|plugin|wp plugin|wordpress plugin|for wordpress|lite|free|pro|premium)$/;

/**
 * How a key stands for a name: its whole name, a short form of it, or only its first words
 * (a prefix: "Redux" of "Redux Framework"; trusted only when a version follows it and one
 * plugin clearly dominates the prefix: directory.ts).
 */
export type NameKeyKind = "full" | "short" | "prefix";

export interface NameKey {
  key: string;
  kind: NameKeyKind;
}

/** Keys that look a name up; too short or generic keys are left out (they would name anything). */
export function isUsableKey(key: string): boolean {
  return key.length >= 3 && key.length <= 120 && /[a-z]/.test(key) && !GENERIC_NAMES.has(key);
}

/**
 * The keys a directory name is found under: the whole name, its short form (before ":",
 * " – ", " | ", " (" or ", "), the short form without a trailing kind word, the brand after
 * its last dash when spelt like one ("Comments – wpDiscuz"), and the first one or two words
 * of the short form (prefixes; a one-word prefix of at least 5 letters).
 */
export function nameKeysOf(displayName: string): NameKey[] {
  const keys: NameKey[] = [];
  const add = (text: string, kind: NameKeyKind) => {
    const key = normalizeName(text);
    if (isUsableKey(key) && !keys.some((known) => known.key === key)) keys.push({ key, kind });
  };
  const name = displayName.replace(/\s+/g, " ").trim();
  add(name, "full");
  const short = SHORT_FORM.exec(name)?.[1];
  if (short) add(short, "short");
  const base = normalizeName(short ?? name);
  const core = base.replace(KIND_WORDS, "");
  if (core !== base && core.includes(" ")) add(core, "short");
  // The brand after the tagline's dash: "Comments – wpDiscuz", "Paid Membership, … – ProfilePress".
  const tail = BRAND_TAIL.exec(name)?.[1];
  if (tail && short && /[a-z][A-Z]/.test(tail.replace(/\bWordPress\b|\bWooCommerce\b/g, ""))) add(tail, "short");
  const words = base.split(" ");
  if (words.length >= 3) add(words.slice(0, 2).join(" "), "prefix");
  if (words.length >= 2 && (words[0]?.length ?? 0) >= 5) add(words[0] ?? "", "prefix");
  return keys;
}

/**
 * A directory-style slug from a display name: "Simple Share Buttons Adder" →
 * simple-share-buttons-adder; with `and`, "&" is spelt out ("Schema & Structured Data" →
 * schema-and-structured-data), as some slugs have it.
 */
export function slugify(name: string, and = false): string {
  return normalizeName(name)
    .replace(/&/g, and ? " and " : " ")
    .replace(/['\u2019]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** Identifier comparison: case, dashes, underscores and dots do not matter (wpcf7, elementor-pro = ElementorPro). */
export function identifierKey(identifier: string): string {
  return identifier.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** A WordPress.org-style slug. */
export const SLUG_SHAPE = /^[a-z0-9][a-z0-9._-]{1,99}$/;

/**
 * Slugs an identifier may stand for, most literal first: `foo_bar` → foo_bar, foo-bar;
 * `fooBar` → foo-bar, foobar; `FOO_BAR` → foo_bar, foo-bar. (Slugs such as js_composer
 * keep their underscore.)
 */
export function slugCandidates(identifier: string): string[] {
  const trimmed = identifier.replace(/^[_$-]+|[_$-]+$/g, "");
  const kebab = trimmed
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .replace(/[_\s]+/g, "-")
    .toLowerCase();
  const candidates = [trimmed.toLowerCase(), trimmed.toLowerCase().replace(/_/g, "-"), kebab, kebab.replace(/-/g, "")];
  return [...new Set(candidates)].filter((slug) => SLUG_SHAPE.test(slug) && !GENERIC_NAMES.has(slug));
}

/**
 * Names and identifiers that never stand for one plugin: WordPress itself, words that
 * qualify a version ("min", "latest", "db"), and the libraries and services every theme
 * and plugin bundles (a `jqueryVersion`, a `bootstrap` handle or a "Google Analytics"
 * snippet names no plugin, even when a directory slug happens to be spelt that way).
 */
export const GENERIC_NAMES = new Set([
  "wp",
  "wordpress",
  "wordpress.org",
  "wordpress-com",
  "plugin",
  "plugins",
  "theme",
  "themes",
  "site",
  "app",
  "main",
  "custom",
  "global",
  "globals",
  "config",
  "settings",
  "options",
  "script",
  "scripts",
  "snippet",
  "snippets",
  "widget",
  "style",
  "styles",
  "ajax",
  "api",
  "rest",
  "data",
  "core",
  "php",
  "js",
  "css",
  "min",
  "max",
  "minimum",
  "required",
  "requires",
  "db",
  "database",
  "schema",
  "build",
  "release",
  "current",
  "latest",
  "new",
  "old",
  "prev",
  "previous",
  "next",
  "ver",
  "version",
  "versions",
  "cache",
  "assets",
  "asset",
  "file",
  "files",
  "lib",
  "libs",
  "library",
  "vendor",
  "sdk",
  "client",
  "server",
  "browser",
  "block",
  "blocks",
  "editor",
  "template",
  "format",
  "json",
  "html",
  "http",
  "https",
  "start",
  "begin",
  "end",
  "header",
  "footer",
  "menu",
  "page",
  "post",
  "home",
  "front",
  "frontend",
  "admin",
  "user",
  "users",
  "google",
  "google analytics",
  "google-analytics",
  "google tag manager",
  "google-tag-manager",
  "analytics",
  "facebook",
  "meta pixel",
  "fb",
  "gtag",
  "gtm",
  "ga",
  "jquery",
  "jquery-ui",
  "jquery-migrate",
  "bootstrap",
  "react",
  "react-dom",
  "vue",
  "angular",
  "lodash",
  "underscore",
  "backbone",
  "moment",
  "swiper",
  "slick",
  "select2",
  "modernizr",
  "gsap",
  "fontawesome",
  "font-awesome",
  "popper",
  "masonry",
  "imagesloaded",
  "isotope",
  "lightbox",
  "fancybox",
  "photoswipe",
  "mediaelement",
  "tinymce",
  "codemirror",
  "hoverintent",
  "twemoji",
  "emoji",
  "recaptcha",
  "hcaptcha",
  "turnstile",
  "stripe",
  "paypal",
  "webfont",
  "typekit",
  "gravatar",
  "cloudflare",
  "nginx",
  "apache",
  "varnish",
  "litespeed",
  "html comment",
  "plugin name",
  // Front-end libraries and icon sets whose names some directory plugin also bears.
  "font awesome",
  "font-awesome-icons",
  "owl carousel",
  "owl-carousel",
  "magnific popup",
  "magnific-popup",
  "lightbox2",
  "animate.css",
  "animate css",
  "normalize.css",
  "chart.js",
  "leaflet",
  "three.js",
  "google fonts",
  "google-fonts",
  "material icons",
  "ionicons",
  "genericons",
  "dashicons",
  "bootstrap icons",
  "slick carousel",
  "jquery ui",
  "jquery migrate",
  "hammer.js",
  "popper.js",
  "lodash.js",
  "vue.js",
  "react.js",
  "alpine.js",
  "htmx",
  "php",
  "mysql",
  "mariadb",
  "nginx",
  "apache",
  "openssl",
  "node.js",
  "ubuntu",
  "debian",
]);

const STRICT_VERSION = /^\d{1,4}(?:\.\d{1,5}){1,3}(?:-?(?:alpha|beta|rc|a|b)\.?\d{0,3})?$/i;
/** YYYY.MM.DD: a date, not a release number. */
const DATE_SHAPED = /^(?:19|20)\d\d\.(?:0?[1-9]|1[0-2])\.(?:0?[1-9]|[12]\d|3[01])$/;

/**
 * A version as a plugin states it, strictly: two to four numeric parts and an optional
 * pre-release ("3.18.3", "4.7.3.1", "2.0-beta2"), after an optional "v"/"ver"/"version"
 * (and an opening bracket or quote) and before closing punctuation or a "/qualifier". Never a bare number (a build, "4" of "GA4"), a date, a
 * timestamp, a hash or all zeros.
 */
export function strictVersion(token: string | undefined): string | undefined {
  if (!token || token.length > 40) return undefined;
  const version = token
    .trim()
    .replace(/^[(["']*(?:v(?:er(?:sion)?)?\.?\s*:?\s*)?/i, "")
    // "17.17.0/L*": a build qualifier after the release.
    .replace(/^(\d[\d.]*)\/.*$/, "$1")
    .replace(/[)\]"',;:.!]+$/, "");
  if (!STRICT_VERSION.test(version) || DATE_SHAPED.test(version) || /^0+(?:\.0+)+$/.test(version)) return undefined;
  return version;
}
