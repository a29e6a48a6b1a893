/**
 * The page's own vocabulary: which identifiers belong to which component, learnt from how
 * WordPress prints enqueued files. A script is printed as `<script src="…/plugins/<slug>/…"
 * id="<handle>-js">`, a stylesheet as `<link id="<handle>-css" href="…">`, and the data a
 * plugin hands to its script as `<script id="<handle>-js-extra">var foo_params = {…};</script>`
 * (wp_localize_script; `-js-before` / `-js-after` for wp_add_inline_script). So the handle
 * and the objects declared beside it belong to whoever ships the file: a plugin (its slug),
 * a theme, or WordPress core. Nothing here is guessed from names.
 */
import type { HttpArtifact } from "../../artifacts.ts";
import { resolveUrl } from "../../artifacts.ts";
import { pageOf } from "../../parse/page.ts";
import { componentAssets, type SitePaths } from "../site-paths.ts";
import { GENERIC_NAMES, identifierKey } from "./name-keys.ts";

export interface Owner {
  kind: "plugin" | "theme" | "core";
  slug: string;
}

/** Objects read per inline script; localized data declares one or two. */
const MAX_DECLARATIONS = 20;
/** `var foo = {`, `window.foo = {`, `window["foo"] = {`. */
export const DECLARATION =
  /(?:\b(?:var|let|const)\s+|\bwindow\.|\bwindow\[\s*["'])([A-Za-z_$][\w$]{0,80})["']?\s*\]?\s*=\s*/g;

export class PageVocabulary {
  /** identifierKey → owner; null when two owners claim the identifier. */
  private readonly owners = new Map<string, Owner | null>();
  /** The first word of handles (`dlm` of `dlm-xhr`) → owner; null when two owners share it. */
  private readonly prefixes = new Map<string, Owner | null>();

  add(identifier: string, owner: Owner): void {
    const key = identifierKey(identifier);
    if (key.length < 3) return;
    const known = this.owners.get(key);
    if (known === undefined) this.owners.set(key, owner);
    else if (known && (known.kind !== owner.kind || known.slug !== owner.slug)) this.owners.set(key, null);
  }

  /** A handle's first word, as its owner's prefix (plugins prefix every handle they register). */
  addPrefix(handle: string, owner: Owner): void {
    const first = /^([A-Za-z][A-Za-z0-9]{2,30})[-_]/.exec(handle)?.[1]?.toLowerCase();
    if (!first || GENERIC_NAMES.has(first)) return;
    const known = this.prefixes.get(first);
    if (known === undefined) this.prefixes.set(first, owner);
    else if (known && (known.kind !== owner.kind || known.slug !== owner.slug)) this.prefixes.set(first, null);
  }

  /** The owner whose handles all start with this word, if one does. */
  prefixOwner(identifier: string): Owner | null {
    return this.prefixes.get(identifier.toLowerCase().replace(/^[_$-]+|[_$-]+$/g, "")) ?? null;
  }

  /** The owner of an identifier the page uses as a handle or a localized object; null when unknown or disputed. */
  owner(identifier: string): Owner | null {
    return this.owners.get(identifierKey(identifier)) ?? null;
  }

  /** Whether the identifier is the page's at all (owned, or disputed). */
  has(identifier: string): boolean {
    return this.owners.has(identifierKey(identifier));
  }
}

const FOLDER = /\/(plugins|mu-plugins|themes)\/([^/]+)\//;

/** Who ships a file: a plugin or theme of this site's content directory, or WordPress core. */
export function ownerOfUrl(
  raw: string | undefined,
  base: string,
  plugins: ReadonlyMap<string, unknown>,
  themes: ReadonlyMap<string, unknown>,
): Owner | null {
  const url = resolveUrl(raw?.replaceAll("\\/", "/"), base);
  if (!url) return null;
  const path = url.pathname;
  const folder = FOLDER.exec(path);
  if (folder?.[2]) {
    const slug = decodeURIComponent(folder[2]);
    // Only folders that componentAssets recognised as this site's (content directory, or a CDN copy).
    if (folder[1] !== "themes" && plugins.has(slug)) return { kind: "plugin", slug };
    if (folder[1] === "themes" && themes.has(slug)) return { kind: "theme", slug };
  }
  if (path.includes("/wp-includes/") || path.includes("/wp-admin/")) return { kind: "core", slug: "wordpress" };
  return null;
}

export function pageVocabulary(homepage: HttpArtifact, paths: SitePaths): PageVocabulary {
  const vocabulary = new PageVocabulary();
  const page = pageOf(homepage);
  const plugins = componentAssets(homepage, paths, ["plugins", "mu-plugins"]);
  const themes = componentAssets(homepage, paths, ["themes"]);
  const handles = new Map<string, Owner>();
  const learn = (id: string | undefined, suffix: RegExp, src: string | undefined) => {
    const handle = id ? suffix.exec(id)?.[1] : undefined;
    if (!handle || handle.length > 100) return;
    const owner = ownerOfUrl(src, homepage.url, plugins, themes);
    if (!owner) return;
    handles.set(handle, owner);
    vocabulary.add(handle, owner);
    vocabulary.addPrefix(handle, owner);
  };
  for (const script of page.scripts) if (script.src) learn(script.attrs.id, /^(.+)-js$/, script.src);
  for (const link of page.links) learn(link.attrs.id, /^(.+)-css$/, link.attrs.href);
  for (const script of page.scripts) {
    if (script.src || !script.text) continue;
    const handle = /^(.+)-js-(?:extra|before|after)$/.exec(script.attrs.id ?? "")?.[1];
    const owner = handle ? handles.get(handle) : undefined;
    if (!owner) continue;
    let declared = 0;
    for (const match of script.text.matchAll(DECLARATION)) {
      if (++declared > MAX_DECLARATIONS) break;
      if (match[1]) vocabulary.add(match[1], owner);
    }
  }
  return vocabulary;
}
