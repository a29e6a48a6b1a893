/**
 * Display names → plugin slugs known without asking anyone: the signature table's names and
 * aliases (curated), and the `=== Name ===` header of each readme.txt fetched from this site
 * (the readme sits in the slug's folder, so the pair is observed, not guessed). The
 * WordPress.org names index (directory.ts) is asked for everything else; resolve.ts tries
 * this index first. A name two slugs claim maps to nothing.
 */
import type { Artifacts } from "../../artifacts.ts";
import { probeValues } from "../../probe-keys.ts";
import { looksLikeReadme, parsePluginReadme } from "../readme.ts";
import { PLUGIN_SIGNATURES } from "../signatures.ts";
import { isUsableKey, normalizeName } from "./name-keys.ts";

export type NameSource = "signature" | "readme";

export interface Named {
  slug: string;
  via: NameSource;
}

/** Names that are not plugins even when a readme claims them (a readme template's placeholder). */
const NOT_NAMES = new Set(["plugin name", "wordpress", "plugin"]);

export class NameIndex {
  private readonly names = new Map<string, Named | null>();

  add(name: string, slug: string, via: NameSource): void {
    if (name.length > 200) return;
    const key = normalizeName(name);
    if (!isUsableKey(key) || key.length > 100 || NOT_NAMES.has(key)) return;
    const known = this.names.get(key);
    if (known === undefined) this.names.set(key, { slug, via });
    // Two slugs under one name: the name says nothing (null), unless the signature already vouches.
    else if (known && known.slug !== slug && !(known.via === "signature" && via === "readme"))
      this.names.set(key, null);
  }

  /** The slug a normalised name key stands for, if exactly one. */
  get(key: string): Named | undefined {
    return this.names.get(key) ?? undefined;
  }

  get size(): number {
    return this.names.size;
  }
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
