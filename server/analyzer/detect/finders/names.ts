/**
 * Display names → plugin slugs. Sites credit plugins by name ("Powered by Foo Gallery
 * v2.1", `<meta name="generator" content="Elementor 3.18.3; …">`, `X-Powered-By: W3 Total
 * Cache/2.7`), not by directory name, so a name is only useful once it maps to a slug.
 *
 * The index holds only names we know belong to a slug: the signature table's names and
 * aliases, and the `=== Name ===` header of each readme.txt fetched from this site (the
 * readme sits in the slug's folder, so the pair is observed, not guessed). The component
 * intelligence (server/analyzer/intel) is keyed by slug alone and carries no names, so it
 * cannot widen the index. A name no source vouches for maps to nothing; a name two slugs
 * claim maps to nothing either.
 */
import type { Artifacts } from "../../artifacts.ts";
import { probeValues } from "../../gather/probes.ts";
import { isPlausibleComponentVersion } from "../evidence.ts";
import { looksLikeReadme, parsePluginReadme } from "../readme.ts";
import { PLUGIN_SIGNATURES } from "../signatures.ts";

export type NameSource = "signature" | "readme";

interface Named {
  slug: string;
  via: NameSource;
}

export interface NameMatch extends Named {
  /** The words of the text that named the plugin, as written. */
  name: string;
  /** A version written right after the name, if any. */
  version?: string;
  /** How many words of the input the name (and its version) used. */
  used: number;
}

/** Longest name, in words, that is looked up. */
const MAX_NAME_WORDS = 8;
/** Names shorter than this, or without a letter, are too generic to map. */
const MIN_NAME_LENGTH = 3;
/** Words a credit may put between a name and its version: "the Yoast SEO plugin v22.4". */
const FILLERS = new Set(["plugin", "version", "ver", "ver.", "wordpress"]);
/** Names that are not plugins even when a readme claims them (a readme template's placeholder). */
const NOT_NAMES = new Set(["plugin name", "wordpress", "plugin"]);

/** Lower case, entities and punctuation at the ends dropped, spaces collapsed, a leading "the" dropped. */
export function normalizeName(text: string): string {
  return text
    .replace(/&amp;/gi, "&")
    .replace(/[\u2013\u2014]/g, "-")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/^[\s"'([{-]+|[\s"')\]}.,;:!|-]+$/g, "")
    .replace(/^the /, "");
}

const VERSION_WORD =
  /^\(?(?:v|ver\.?:?|version:?)?(\d{1,4}(?:\.\d{1,5}){0,3}(?:-?(?:alpha|beta|rc)\.?\d{0,3})?)[)\],;:.!]*$/i;

/** A version written as one word ("v2.1", "3.18.3;", "ver:4.6.14"), if plausible. */
export function versionWord(word: string | undefined): string | undefined {
  if (!word || word.length > 40) return undefined;
  const version = VERSION_WORD.exec(word)?.[1];
  return version && isPlausibleComponentVersion(version) ? version : undefined;
}

export class NameIndex {
  private readonly names = new Map<string, Named | null>();

  add(name: string, slug: string, via: NameSource): void {
    if (name.length > 200) return;
    const key = normalizeName(name);
    if (key.length < MIN_NAME_LENGTH || key.length > 100 || !/[a-z]/.test(key) || NOT_NAMES.has(key)) return;
    const known = this.names.get(key);
    if (known === undefined) this.names.set(key, { slug, via });
    // Two slugs under one name: the name says nothing (null), unless the signature already vouches.
    else if (known && known.slug !== slug && !(known.via === "signature" && via === "readme"))
      this.names.set(key, null);
  }

  get size(): number {
    return this.names.size;
  }

  /**
   * The longest known name the words start with, and a version right after it (skipping
   * "plugin", "version"). Up to MAX_NAME_WORDS lookups, whatever the input.
   */
  match(words: readonly string[]): NameMatch | null {
    for (let count = Math.min(MAX_NAME_WORDS, words.length); count >= 1; count--) {
      const name = words.slice(0, count).join(" ");
      if (name.length > 120) continue; // longer than any name in the index
      const found = this.names.get(normalizeName(name));
      if (!found) continue;
      let next = count;
      while (next < words.length && next < count + 2 && FILLERS.has((words[next] ?? "").toLowerCase())) next++;
      const version = versionWord(words[next]);
      return { ...found, name, version, used: version ? next + 1 : count };
    }
    return null;
  }
}

/** Words of a text, at most `max` of them, each of at most 60 characters. */
export function wordsOf(text: string, max = 16): string[] {
  return text
    .slice(0, 400)
    .split(/\s+/)
    .filter((word) => word.length > 0 && word.length <= 60)
    .slice(0, max);
}

/** Readme names ("=== Foo Gallery ===") of this site's fetched readmes, by slug. */
export function readmeNames(artifacts: Artifacts): Map<string, string> {
  const names = new Map<string, string>();
  for (const [slug, artifact] of probeValues(artifacts.probes, "plugin_readme")) {
    if (artifact.status !== 200 || !looksLikeReadme(artifact.body)) continue;
    const name = parsePluginReadme(artifact.body).name;
    if (name) names.set(slug, name);
  }
  return names;
}

/** The index for one site: signature names and aliases, then its readmes' names. */
export function pluginNameIndex(artifacts: Artifacts): NameIndex {
  const index = new NameIndex();
  for (const [slug, signature] of Object.entries(PLUGIN_SIGNATURES)) {
    for (const name of [signature.name, ...(signature.aliases ?? [])]) index.add(name, slug, "signature");
  }
  for (const [slug, name] of readmeNames(artifacts)) {
    index.add(name, slug, "readme");
    // "Akismet Anti-spam: Spam Protection", "Powered Cache – Caching and …": sites credit the short name.
    const short = /^(.{3,60}?)\s*(?::|\s[-\u2013\u2014|]\s)/.exec(name)?.[1];
    if (short) index.add(short, slug, "readme");
  }
  return index;
}
