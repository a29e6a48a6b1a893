/**
 * From observations to plugins. Each observation is resolved to a slug by what vouches for
 * it, in this order:
 *
 *  1. `signature` / `readme`: a name of the signature table or of a readme fetched from this site;
 *  2. `page`: an identifier the page ties to a plugin's files (a script handle, the object
 *     printed beside it: vocabulary.ts);
 *  3. `directory`: a name of the WordPress.org names index (directory.ts);
 *  4. `directory_slug`: a name or identifier that, written as a slug, is a plugin of the
 *     directory ("AdRotate v5.8.6" → adrotate, `foo_bar_version` → foo-bar);
 *  5. `backed`: in no index, but its slug is one this site shows otherwise — a plugin folder
 *     its pages load from, its open plugins listing, a REST namespace;
 *  6. `inferred`: in no index and backed by nothing but another finder: such a slug counts
 *     only when two independent classes of evidence (a comment and a header, a meta tag and
 *     a script…) name it; a single one names nothing.
 *
 * Classes 5 and 6 weigh less, and the plugin's evidence says why (an `inferred_slug` entry).
 * The active theme's names and identifiers, and files of WordPress core, are never a plugin.
 */
import { siteText } from "../../untrusted-text.ts";
import type { WeightedEvidence } from "../evidence.ts";
import { longerNameAfter } from "./credit-grammar.ts";
import { type Directory, MAX_QUERY_NAMES, MAX_QUERY_SLUGS } from "./directory.ts";
import { identifierStems } from "./identifiers.ts";
import {
  GENERIC_NAMES,
  identifierKey,
  isUsableKey,
  normalizeName,
  SLUG_SHAPE,
  slugCandidates,
  slugify,
  strictVersion,
} from "./name-keys.ts";
import type { NameIndex } from "./names.ts";
import type { Observation, ObservationSource, Subject } from "./observation.ts";
import type { PageVocabulary } from "./vocabulary.ts";

export type Via =
  | "signature"
  | "readme"
  | "page"
  | "directory"
  | "directory_prefix"
  | "directory_slug"
  | "link"
  | "backed"
  | "inferred";

/** How this site shows a slug besides the observations: files loaded from its folder, an open listing, a REST namespace. */
export type PageSlugSource = "asset" | "listing" | "rest";

export interface ResolveContext {
  local: NameIndex;
  directory: Directory;
  vocabulary: PageVocabulary;
  /** Plugin slugs the site shows (keyed lower-case: folders such as LayerSlider keep their case), and how. */
  pageSlugs: ReadonlyMap<string, { slug: string; source: PageSlugSource }>;
  /** Plugin folders the page loads files from (keyed lower-case): the `ver=` values on them. */
  assetVersions?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Signature slugs by identifierKey (wpcf7-style identifiers included). */
  signatureKeys: ReadonlyMap<string, string>;
  /** The active theme and its parent: identifierKeys of their slugs, normalised names. */
  themeKeys: ReadonlySet<string>;
  themeNames: ReadonlySet<string>;
  /** This site's WordPress version: a finder's version equal to it is more likely WordPress's than the plugin's. */
  coreVersion?: string | null;
}

type Resolution =
  | { kind: "plugin"; slug: string; via: Via; version?: string; backing?: PageSlugSource }
  | { kind: "infer"; slug: string; version?: string; name: string }
  | null;

/** Longest name, in words, that is looked up. */
export const MAX_NAME_WORDS = 8;
/** Words a credit may put between a name and its version: "the Yoast SEO plugin v22.4", "Foo | v 2.5.6". */
const FILLERS = new Set([
  "plugin",
  "version",
  "ver",
  "ver.",
  "wordpress",
  "v",
  "v.",
  "|",
  "-",
  "\u2013",
  "\u2014",
  ":",
]);
/** After "by": one or two words of an author, then (fillers and) a version marked as one; its index. */
function authoredVersion(words: readonly string[], from: number): number | undefined {
  for (const authorWords of [1, 2]) {
    let at = from + authorWords;
    let marked = false;
    while (at < words.length && at < from + authorWords + 2 && isFiller(words[at])) {
      if (/^(?:v|ver\.?|version:?)$/i.test((words[at] ?? "").replace(/^[([]+/, ""))) marked = true;
      at++;
    }
    const token = words[at] ?? "";
    if ((marked || /^[([]?v(?:er(?:sion)?)?\.?\d/i.test(token)) && strictVersion(token)) return at;
  }
  return undefined;
}

/** A filler as written: "[ver." and "(version" are "ver." and "version"; a URL between a name and its version is one too. */
function isFiller(word: string | undefined): boolean {
  const bare = (word ?? "").replace(/^[([]+/, "").toLowerCase();
  return FILLERS.has(bare) || /^(?:https?:\/\/|www\.)\S+$/i.test(bare);
}
/** Words that end a name when no version marks its end ("Powered by Foo Gallery on …"). */
const NAME_ENDS = new Set([
  "-",
  "–",
  "—",
  "|",
  "on",
  "at",
  "in",
  "for",
  "from",
  "and",
  "to",
  "with",
  "by",
  "is",
  "-->",
]);
const NAME_WORD = /^[A-Za-z0-9][\w.&'+-]*$/;

/** How far each class is believed on its own when a signature names the plugin (docs/detection.md). */
const BASE: Record<ObservationSource, number> = {
  meta_generator: 0.85,
  html_comment: 0.8,
  header: 0.8,
  meta_tag: 0.75,
  inline_script: 0.75,
  hidden_input: 0.75,
  data_attribute: 0.6,
  asset_param: 0.5,
  rest_namespace: 0.7,
};
/** …and how much of that is kept, by what vouches for the slug. */
const FACTOR: Record<Via, number> = {
  signature: 1,
  readme: 0.88,
  page: 1,
  directory: 0.95,
  directory_prefix: 0.85,
  directory_slug: 0.85,
  link: 0.9,
  backed: 0.8,
  inferred: 0.5,
};

export function weightOf(source: ObservationSource, via: Via): number {
  return Math.round(BASE[source] * FACTOR[via] * 100) / 100;
}

/** A name that could be a generic phrase needs a version after it, unless it is long or literally the slug. */
function distinctive(key: string, slug: string): boolean {
  return key.includes(" ") || slugify(key) === slug;
}

function findName(
  text: string,
  key: string,
  context: ResolveContext,
  /** Whether the first words of a longer name count (not for the exact words before a version anywhere in a comment). */
  prefixes = true,
): { slug: string; via: Via; backing?: PageSlugSource } | "theme" | null {
  const local = context.local.get(key);
  if (local) return local;
  if (context.directory.themeOnly(text)) return "theme";
  const listed = context.directory.plugin(text, prefixes);
  if (listed) return { slug: listed.slug, via: listed.kind === "prefix" ? "directory_prefix" : "directory" };
  for (const slug of new Set([slugify(text), slugify(text, true)])) {
    if (!SLUG_SHAPE.test(slug) || GENERIC_NAMES.has(slug)) continue;
    const shown = context.pageSlugs.get(slug);
    if (shown) return { slug: shown.slug, via: "backed", backing: shown.source };
    if (context.directory.slug("plugin", slug)) return { slug, via: "directory_slug" };
  }
  return null;
}

function resolveName(words: readonly string[], needs: Subject & { kind: "name" }, context: ResolveContext): Resolution {
  for (let count = Math.min(MAX_NAME_WORDS, words.length); count >= 1; count--) {
    const text = words.slice(0, count).join(" ");
    if (text.length > 120) continue;
    const key = normalizeName(text);
    if (!isUsableKey(key)) continue;
    if (context.themeNames.has(key)) return null;
    const found = findName(text, key, context);
    if (found === "theme") return null;
    if (!found) continue;
    // Only a whole name names a plugin: "WooCommerce Stripe Gateway", "WPML Multilingual Forms",
    // "Foo for Elementor" are other plugins' names, whose first words another plugin's name is.
    if (longerNameAfter(words, count, (word) => strictVersion(word) !== undefined, isFiller)) continue;
    let next = count;
    while (next < words.length && next < count + 2 && isFiller(words[next])) next++;
    // "Foo Gallery by FooPlugins v2.1.0", "… by ExpressTech - version 4.3.2": its author between
    // the name and its version, which must then be marked as one (v, ver, version).
    const byAuthor = (words[next] ?? "").toLowerCase() === "by" ? authoredVersion(words, next + 1) : undefined;
    const version = strictVersion(words[byAuthor ?? next]);
    const pluginWord = /^plugin\b/i.test(words[count] ?? "");
    if (needs.needs === "version" && !version) return null;
    if (needs.needs === "version-or-plugin" && !version && !pluginWord) return null;
    const indexed = found.via === "signature" || found.via === "readme";
    if (!indexed && !version && !distinctive(key, found.slug)) return null;
    // The first words of a longer name: only with the version right after them (a shorter name may still be one).
    if (found.via === "directory_prefix" && !version) continue;
    if (context.themeKeys.has(identifierKey(found.slug))) return null;
    return { kind: "plugin", slug: found.slug, via: found.via, version, backing: found.backing };
  }
  return inferFromName(words, needs.needs, context);
}

/** A name no index knows: the words before its version (or, after a credit phrase, before a break) as a slug. */
function inferFromName(words: readonly string[], needs: string, context: ResolveContext): Resolution {
  let end = -1;
  for (let i = 1; i < Math.min(words.length, 7); i++) {
    if (strictVersion(words[i])) {
      end = i;
      break;
    }
  }
  const version = end > 0 ? strictVersion(words[end]) : undefined;
  if (end < 0) {
    if (needs !== "nothing") return null;
    end = 0;
    while (end < Math.min(words.length, 4) && !NAME_ENDS.has((words[end] ?? "").toLowerCase())) {
      const word = words[end] ?? "";
      end++;
      if (/[.,;:!)]$/.test(word)) break;
    }
  }
  const nameWords = words.slice(0, end).map((word) => word.replace(/[.,;:!)]+$/, ""));
  while (nameWords.length > 0 && FILLERS.has((nameWords.at(-1) ?? "").toLowerCase())) nameWords.pop();
  if (nameWords.length === 0 || nameWords.length > 5 || !nameWords.every((word) => NAME_WORD.test(word))) return null;
  const name = nameWords.join(" ");
  const slug = slugify(name);
  if (!SLUG_SHAPE.test(slug) || slug.length < 3 || !/[a-z]/.test(slug)) return null;
  if (GENERIC_NAMES.has(slug) || GENERIC_NAMES.has(normalizeName(name))) return null;
  if (context.themeKeys.has(identifierKey(slug)) || context.themeNames.has(normalizeName(name))) return null;
  return { kind: "infer", slug, version, name };
}

function resolveIdentifier(subject: Subject & { kind: "identifier" }, context: ResolveContext): Resolution {
  const tried: string[] = [];
  for (const candidate of subject.candidates) {
    tried.push(candidate);
    if (subject.stems) tried.push(...identifierStems(candidate));
  }
  for (const identifier of tried) {
    const owner = context.vocabulary.owner(identifier);
    if (owner) return owner.kind === "plugin" ? { kind: "plugin", slug: owner.slug, via: "page" } : null;
    if (context.vocabulary.has(identifier)) return null; // two owners claim it
    const key = identifierKey(identifier);
    if (key.length < 3) continue;
    if (context.themeKeys.has(key)) return null;
    const signature = context.signatureKeys.get(key);
    if (signature) return { kind: "plugin", slug: signature, via: "signature" };
    if (GENERIC_NAMES.has(identifier.toLowerCase()) || GENERIC_NAMES.has(key)) continue;
    for (const slug of slugCandidates(identifier)) {
      const shown = context.pageSlugs.get(slug);
      if (shown)
        return {
          kind: "plugin",
          slug: shown.slug,
          via: shown.source === "asset" ? "page" : "backed",
          backing: shown.source,
        };
    }
    for (const slug of slugCandidates(identifier)) {
      if (context.directory.slug("plugin", slug)) return { kind: "plugin", slug, via: "directory_slug" };
      if (context.directory.slug("theme", slug)) return null;
    }
    // An identifier spelt like the plugin's name: `mc4wp` (MC4WP: Mailchimp for WordPress),
    // `super-page-cache` (Super Page Cache). Whole names and short forms only, never first words.
    const name = identifierName(identifier);
    if (subject.mayInfer && name) {
      if (context.directory.themeOnly(name)) return null;
      const listed = context.directory.plugin(name);
      if (listed && listed.kind !== "prefix" && !context.themeKeys.has(identifierKey(listed.slug)))
        return { kind: "plugin", slug: listed.slug, via: "directory" };
    }
  }
  // A prefix the page's own handles share (`dlm` of `dlm-xhr`, a plugin's file): that plugin's.
  for (const identifier of tried) {
    const owner = context.vocabulary.prefixOwner(identifier);
    if (owner) return owner.kind === "plugin" ? { kind: "plugin", slug: owner.slug, via: "page" } : null;
  }
  if (!subject.mayInfer) return null;
  const last = subject.candidates.at(-1) ?? "";
  const base = subject.stems ? (identifierStems(last).at(-1) ?? last) : (subject.candidates[0] ?? "");
  const candidates = slugCandidates(base);
  const slug = candidates.find((candidate) => candidate.includes("-")) ?? candidates[0];
  if (!slug || slug.length < 3 || !/[a-z]/.test(slug) || context.themeKeys.has(identifierKey(slug))) return null;
  return { kind: "infer", slug, name: base };
}

/** An identifier as the words of a name (`wp_ulike` → "wp ulike", `WprAddons` → "wpr addons"), when it may be one. */
export function identifierName(identifier: string): string | undefined {
  const words = identifier
    .replace(/^[_$-]+|[_$-]+$/g, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim();
  const key = normalizeName(words);
  return isUsableKey(key) && !GENERIC_NAMES.has(key.replace(/ /g, "-")) ? words : undefined;
}

function resolveSlug(observation: Observation, slug: string, context: ResolveContext): Resolution {
  if (context.themeKeys.has(identifierKey(slug))) return null;
  switch (observation.source) {
    case "asset_param":
      return { kind: "plugin", slug, via: "page" };
    case "rest_namespace": {
      const shown = context.pageSlugs.get(slug.toLowerCase());
      if (shown && shown.source !== "rest") return { kind: "plugin", slug: shown.slug, via: "page" };
      return context.directory.slug("plugin", slug) ? { kind: "plugin", slug, via: "directory_slug" } : null;
    }
    default: {
      // A link to the plugin's page in the WordPress.org directory names its slug when the
      // comment's words name the plugin too, or the site shows it otherwise; a bare link is a
      // recommendation ("try …"), not proof the plugin is installed.
      const shown = context.pageSlugs.get(slug.toLowerCase());
      if (shown) return { kind: "plugin", slug: shown.slug, via: "link" };
      return observation.linkNamed ? { kind: "plugin", slug, via: "link" } : null;
    }
  }
}

/** The exact words before a version, anywhere in a comment: a name an index knows, or nothing. */
function resolveSpan(
  words: readonly string[],
  version: string,
  context: ResolveContext,
  nameBefore: readonly string[] = [],
): Resolution {
  const text = words.join(" ");
  const key = normalizeName(text);
  if (text.length > 120 || !isUsableKey(key) || context.themeNames.has(key)) return null;
  const found = findName(text, key, context, false);
  if (!found || found === "theme" || found.via === "backed") return null;
  if (context.themeKeys.has(identifierKey(found.slug))) return null;
  // The end of a longer name names nothing ("Simple Events Calendar" is not The Events Calendar),
  // unless it spells the plugin's slug in two words or more and the words before it are the
  // plugin's own (its vendor: "Smash Balloon Custom Facebook Feed", listed as "Smash Balloon
  // Social Post Feed"); "Quick Gallery Grid" is not Gallery Grid.
  if (nameBefore.length > 0) {
    const listed = new Set(normalizeName(context.directory.slug("plugin", found.slug)?.name ?? "").split(/[\s-]+/));
    const own = nameBefore.every((word) => listed.has(normalizeName(word)));
    if (!(own && words.length >= 2 && slugify(text) === found.slug)) return null;
  }
  return { kind: "plugin", slug: found.slug, via: found.via, version };
}

export function resolveObservation(observation: Observation, context: ResolveContext): Resolution {
  const { subject } = observation;
  if (subject.kind === "name" && observation.phrase === "anywhere")
    return observation.version
      ? resolveSpan(subject.words, observation.version, context, observation.nameBefore)
      : null;
  if (subject.kind === "name") return resolveName(subject.words, subject, context);
  if (subject.kind === "identifier") {
    const found = resolveIdentifier(subject, context);
    return found && observation.version ? { ...found, version: observation.version } : found;
  }
  const found = resolveSlug(observation, subject.slug, context);
  return found && observation.version ? { ...found, version: observation.version } : found;
}

/**
 * A credit printed right beside a plugin's own files is that plugin's (beside.ts): a name
 * read as another plugin that shows no file of its own on the page, or a name no index knows,
 * is given to the plugin beside it. Its version goes with it only from the comment's start or
 * a credit phrase, and only when the plugin's own `ver=` do not say otherwise.
 */
function besideOwner(
  observation: Observation,
  found: NonNullable<Resolution>,
  context: ResolveContext,
): NonNullable<Resolution> {
  const owner = observation.beside ?? abbreviatedFolder(found, context);
  if (!owner || found.slug.toLowerCase() === owner.toLowerCase()) return found;
  if (found.kind === "plugin" && context.pageSlugs.get(found.slug.toLowerCase())?.source === "asset") return found;
  const stated = observation.phrase === "opening" || observation.phrase === "credit" ? found.version : undefined;
  const own = context.assetVersions?.get(owner.toLowerCase()) ?? new Set<string>();
  const agrees = stated !== undefined && (own.size === 0 || own.has(stated));
  // The page ties the credit to the plugin's files, as it ties a script handle to them.
  return { kind: "plugin", slug: owner, via: "page", version: agrees ? stated : undefined };
}

/** Words a folder may add to a plugin's slug: its edition or kind (`social-share-buttons-lite`). */
const EDITION_WORDS = new Set(["lite", "pro", "free", "premium", "plugin", "wp", "addon"]);

/**
 * A folder the page loads files from that is the credited plugin under a name of its own:
 * the credited slug cut short, word by word (`simple-events-cal` for "Simple Events Calendar"
 * → simple-events-calendar; two words at least, the same number of words, each a prefix of
 * three letters or more), or that slug with an edition word before or after it
 * (`social-share-buttons-lite`). A credit to a plugin that shows no file of its own is that
 * folder's: the name is the folder's plugin's, under the name its author prints.
 */
function abbreviatedFolder(found: NonNullable<Resolution>, context: ResolveContext): string | undefined {
  const credited = found.slug.toLowerCase();
  if (context.pageSlugs.get(credited)?.source === "asset") return undefined;
  const words = credited.split("-");
  if (words.length < 2) return undefined;
  for (const [key, shown] of context.pageSlugs) {
    if (shown.source !== "asset" || key === credited) continue;
    const folder = key.split("-");
    const cut =
      folder.length === words.length &&
      folder.every((word, index) => word.length >= 3 && (words[index] ?? "").startsWith(word));
    const edition =
      folder.length === words.length + 1 &&
      ((EDITION_WORDS.has(folder.at(-1) ?? "") && key.startsWith(`${credited}-`)) ||
        (EDITION_WORDS.has(folder[0] ?? "") && key.endsWith(`-${credited}`)));
    if (cut || edition) return shown.slug;
  }
  return undefined;
}

/** A signal and the text it read (so that a signature match of the same text is not counted twice). */
export interface FoundSignal {
  seen: string;
  signal: WeightedEvidence;
}

export interface Found {
  signals: FoundSignal[];
  /** Why a slug stands on evidence no index vouches for (an `inferred_slug` evidence entry). */
  note?: WeightedEvidence;
}

const BACKING_TEXT: Record<PageSlugSource, string> = {
  asset: "the site loads files from its plugin folder",
  listing: "its folder is in the open plugins listing",
  rest: "the REST API lists a namespace of that name",
};

/**
 * Every observation resolved, grouped by slug: at most one signal per evidence class (a
 * plugin's opening and closing comments are one observation, not two); a class whose
 * observations state different versions states none.
 */
export function resolveAll(observations: readonly Observation[], context: ResolveContext): Map<string, Found> {
  type Entry = { seen: string; signal: WeightedEvidence; versions: Set<string> };
  const byClass = new Map<string, Map<ObservationSource, Entry>>();
  const notes = new Map<string, WeightedEvidence>();
  const inferred = new Map<string, { observation: Observation; version?: string; name: string }[]>();
  const add = (slug: string, observation: Observation, via: Via, version: string | undefined) => {
    const classes = byClass.get(slug) ?? new Map<ObservationSource, Entry>();
    byClass.set(slug, classes);
    const known = classes.get(observation.source);
    if (known) {
      if (version) known.versions.add(version);
      return;
    }
    const signal: WeightedEvidence = {
      source: observation.source,
      value: observation.value,
      weight: weightOf(observation.source, via),
    };
    if (observation.url) signal.url = observation.url;
    classes.set(observation.source, { seen: observation.seen, signal, versions: new Set(version ? [version] : []) });
  };
  const resolved = observations.map((observation) => ({
    observation,
    found: resolveObservation(observation, context),
  }));
  // A comment whose start names a plugin mentions libraries after "using": "Easy FancyBox 1.8.18 using FancyBox 1.3.28".
  const named = new Set(
    resolved
      .filter(({ observation, found }) => observation.phrase === "opening" && found?.kind === "plugin")
      .map(({ observation }) => observation.seen),
  );
  for (const { observation, found: read } of resolved) {
    if (!read || (observation.phrase === "using" && named.has(observation.seen))) continue;
    const resolution = besideOwner(observation, read, context);
    // A plugin rarely shares WordPress's version; a version key that does is more likely WordPress's.
    const found =
      context.coreVersion &&
      resolution.version === context.coreVersion &&
      resolution.kind === "plugin" &&
      resolution.via !== "signature"
        ? { ...resolution, version: undefined }
        : resolution;
    if (found.kind === "infer") {
      const list = inferred.get(found.slug) ?? [];
      list.push({ observation, version: found.version, name: found.name });
      inferred.set(found.slug, list);
      continue;
    }
    add(found.slug, observation, found.via, found.version);
    if (found.via === "backed" && found.backing && !notes.has(found.slug)) {
      notes.set(found.slug, {
        source: "inferred_slug",
        value: siteText(
          `no names index knows this name; slug ${found.slug} taken from it because ${BACKING_TEXT[found.backing]}`,
        ),
        weight: 0,
      });
    }
  }
  // A slug made up from a name or identifier alone needs a second, independent class of evidence.
  for (const [slug, list] of inferred) {
    const classes = new Set(list.map((item) => item.observation.source));
    if (byClass.has(slug)) {
      // Other evidence names the same plugin: that backs the name up.
      for (const item of list) add(slug, item.observation, "backed", item.version);
      if (!notes.has(slug))
        notes.set(slug, {
          source: "inferred_slug",
          value: siteText(
            `"${list[0]?.name ?? slug}" is in no names index; slug ${slug} taken from it because other evidence names the same plugin`,
          ),
          weight: 0,
        });
      continue;
    }
    if (classes.size < 2) continue;
    for (const item of list) add(slug, item.observation, "inferred", item.version);
    notes.set(slug, {
      source: "inferred_slug",
      value: siteText(
        `"${list[0]?.name ?? slug}" is in no names index; slug ${slug} taken from it because ${[...classes].join(" and ")} evidence name it independently`,
      ),
      weight: 0,
    });
  }
  const result = new Map<string, Found>();
  for (const [slug, classes] of byClass) {
    const signals: FoundSignal[] = [];
    for (const entry of classes.values()) {
      const signal = { ...entry.signal };
      if (entry.versions.size === 1) signal.version = [...entry.versions][0];
      signals.push({ seen: entry.seen, signal });
    }
    result.set(slug, { signals, note: notes.get(slug) });
  }
  return result;
}

/** Keys of the names query for one observation set: every prefix of every name, every slug form. */
export function queryKeys(observations: readonly Observation[]): { names: Set<string>; slugs: Set<string> } {
  const names = new Set<string>();
  const slugs = new Set<string>();
  const addSlug = (slug: string) => {
    if (slugs.size < MAX_QUERY_SLUGS && SLUG_SHAPE.test(slug) && !GENERIC_NAMES.has(slug)) slugs.add(slug);
  };
  for (const { subject, phrase } of observations) {
    if (subject.kind === "name" && phrase === "anywhere") {
      // Only the exact span is looked up.
      const text = subject.words.join(" ");
      const key = normalizeName(text);
      if (text.length <= 120 && isUsableKey(key) && names.size < MAX_QUERY_NAMES) names.add(key);
      addSlug(slugify(text));
      addSlug(slugify(text, true));
      continue;
    }
    if (subject.kind === "slug") addSlug(subject.slug);
    else if (subject.kind === "identifier") {
      for (const candidate of subject.candidates) {
        for (const identifier of [candidate, ...(subject.stems ? identifierStems(candidate) : [])]) {
          for (const slug of slugCandidates(identifier)) addSlug(slug);
          const name = subject.mayInfer ? identifierName(identifier) : undefined;
          if (name && names.size < MAX_QUERY_NAMES) names.add(normalizeName(name));
        }
      }
    } else {
      for (let count = 1; count <= Math.min(MAX_NAME_WORDS, subject.words.length); count++) {
        const text = subject.words.slice(0, count).join(" ");
        if (text.length > 120) break;
        const key = normalizeName(text);
        if (isUsableKey(key) && names.size < MAX_QUERY_NAMES) names.add(key);
        addSlug(slugify(text));
      }
    }
  }
  return { names, slugs };
}
