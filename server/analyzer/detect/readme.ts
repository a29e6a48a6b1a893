/**
 * Parsers for the two text files that name a component's version: a plugin's readme.txt
 * (WordPress.org format, and the Markdown variant some plugins write) and a theme's
 * style.css header.
 */
import { type Changelog, parseChangelog } from "./changelog.ts";
import { isFileVersion } from "./version-sanity.ts";

export interface PluginReadme {
  name: string | null;
  /** `Stable tag:`, unless it says `trunk` (the development branch: no release). */
  stableTag: string | null;
  /** A `Version:` line among the header fields (some readmes carry one instead of, or beside, a Stable tag). */
  version: string | null;
  /** The changelog section: its entries and newest release (changelog.ts). */
  changelog: Changelog | null;
}

/** True when the text has the shape of a WordPress.org readme (not a 404 page). */
export function looksLikeReadme(text: string): boolean {
  return (
    /^\s*===\s*[^=\n]+===/m.test(text.slice(0, 2_000)) || /^[ \t*#>-]*(?:\*\*)?Stable tag:/im.test(text.slice(0, 5_000))
  );
}

/** A header field (`Stable tag: 1.2.3`, `* Stable tag: 1.2.3`, `**Stable tag:** 1.2.3`), from the part before the first section. */
function headerField(head: string, name: string): string | null {
  const pattern = new RegExp(`^[ \\t*>-]*(?:\\*\\*)?${name}[ \\t]*:[ \\t]*(?:\\*\\*[ \\t]*)?v?([^\\s*]+)`, "im");
  return pattern.exec(head)?.[1] ?? null;
}

/** `== Changelog ==`, `== Change Log ==`, `## Changelog`, `== Release Notes ==`… */
const CHANGELOG_SECTION =
  /^[ \t]*(?:==+[ \t]*(?:change[ \t]?log|changes|release[ \t]notes|version[ \t]history)[ \t]*==+|#{1,3}[ \t]*(?:change[ \t]?log|changes|release[ \t]notes|version[ \t]history)[ \t]*#*)[ \t]*$/im;
/** The next readme section after the changelog (`== Upgrade Notice ==`, `## Screenshots`), not an entry like `== 1.2 ==`. */
const NEXT_SECTION = /^[ \t]*(?:==+[ \t]*[^=\d\s][^=\n]*==+|#{1,2}[ \t]+[^#\d\s[v][^\n]*)[ \t]*$/im;

export function parsePluginReadme(raw: string, complete = true): PluginReadme {
  // CRLF files: `$` in the section patterns must see the end of a line.
  const text = raw.replace(/\r\n?/g, "\n");
  const firstSection = text.search(/^[ \t]*(?:==[^=]|##[^#])/m);
  const head = text.slice(0, Math.min(8_000, firstSection > 0 ? firstSection : 8_000));
  const name = /^\s*===\s*(.+?)\s*===/m.exec(text.slice(0, 2_000))?.[1]?.trim() ?? null;
  const stable = headerField(head, "Stable tag");
  const version = headerField(head, "Version");
  let changelog: Changelog | null = null;
  const section = CHANGELOG_SECTION.exec(text);
  if (section) {
    let body = text.slice(section.index + section[0].length, section.index + section[0].length + 64_000);
    const next = NEXT_SECTION.exec(body);
    const cut = next !== null;
    if (next) body = body.slice(0, next.index);
    changelog = parseChangelog(body, complete || cut);
  }
  return {
    name,
    stableTag: stable && stable.toLowerCase() !== "trunk" ? stable : null,
    version: version && isFileVersion(version) ? version : null,
    changelog,
  };
}

export interface ThemeHeader {
  name: string | null;
  version: string | null;
  author: string | null;
  /** Parent theme directory for child themes. */
  template: string | null;
  uri: string | null;
}

/** Reads the comment header at the top of a theme's style.css. */
export function parseThemeHeader(css: string): ThemeHeader | null {
  const head = css.slice(0, 8_000);
  const field = (name: string) =>
    new RegExp(`^[\\s*]*${name}\\s*:\\s*(.+?)\\s*$`, "im").exec(head)?.[1]?.trim() ?? null;
  const name = field("Theme Name");
  if (!name) return null;
  return {
    name,
    version: field("Version"),
    author: field("Author"),
    template: field("Template"),
    uri: field("Theme URI"),
  };
}
