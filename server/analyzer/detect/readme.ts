/**
 * Parsers for the two text files that name a component's version: a plugin's readme.txt
 * (WordPress.org format) and a theme's style.css header.
 */

export interface PluginReadme {
  name: string | null;
  stableTag: string | null;
  /** Versions in the changelog, newest first as written. */
  changelog: string[];
}

/** True when the text has the shape of a WordPress.org readme (not a 404 page). */
export function looksLikeReadme(text: string): boolean {
  return /^\s*===\s*[^=\n]+===/m.test(text.slice(0, 2_000)) || /^\s*Stable tag:/im.test(text.slice(0, 5_000));
}

export function parsePluginReadme(text: string): PluginReadme {
  const head = text.slice(0, 8_000);
  const name = /^\s*===\s*(.+?)\s*===/m.exec(head)?.[1]?.trim() ?? null;
  const stable = /^\s*Stable tag:\s*(\S+)/im.exec(head)?.[1] ?? null;
  const changelog: string[] = [];
  const section = /^==\s*Changelog\s*==\s*$/im.exec(text);
  if (section) {
    const rest = text.slice(section.index + section[0].length, section.index + section[0].length + 20_000);
    for (const match of rest.matchAll(/^\s*(?:=+|#+|\*\*)\s*v?(\d+(?:\.\d+){0,3})\b/gm)) {
      if (match[1]) changelog.push(match[1]);
      if (changelog.length >= 5) break;
    }
  }
  return {
    name,
    stableTag: stable && stable.toLowerCase() !== "trunk" ? stable : null,
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
