/**
 * Identifiers that carry a version (`foo_bar_version`, `fooBarVersion`, `FOO_BAR_VER`,
 * `data-foo-bar-version`, `X-Foo-Bar-Version`) and the names objects are given
 * (`foo_bar_params`, `elementorFrontendConfig`): what part of them names the component.
 */

/**
 * The stem of an identifier that ends with "version"/"ver" as a word of its own — after
 * "_" or "-", or capitalised in camel case — so `server`, `hover` and `never` are not
 * version names. Undefined when it is not one, or nothing is left.
 */
export function versionStem(identifier: string): string | undefined {
  const match = /^(.+?)(?:[_-](?:version|ver)|Version|Ver|VERSION|VER)$/i.exec(identifier);
  if (!match?.[1]) return undefined;
  // Case-insensitive above; the camel-case forms must really be capitalised.
  const tail = identifier.slice(match[1].length);
  if (!/^[_-]/.test(tail) && !/^V/.test(tail)) return undefined;
  const stem = match[1].replace(/[_-]+$/, "");
  return stem.length > 0 ? stripPluginWord(stem) : undefined;
}

/** "foo_bar_plugin" → "foo_bar", "fooBarPlugin" → "fooBar": the word "plugin" names no plugin. */
function stripPluginWord(stem: string): string {
  const stripped = stem.replace(/(?:[_-]wp)?[_-]plugin$|(?<=[a-z0-9])(?:Wp)?Plugin$/i, "");
  return stripped.length >= 2 ? stripped : stem;
}

/** Words objects and handles end with that say what they hold, not whose they are. */
const SUFFIX_WORDS = [
  "params",
  "param",
  "vars",
  "var",
  "settings",
  "setting",
  "config",
  "conf",
  "cfg",
  "options",
  "opts",
  "data",
  "object",
  "obj",
  "l10n",
  "i18n",
  "localize",
  "localized",
  "strings",
  "args",
  "ajax",
  "globals",
  "global",
  "frontend",
  "front",
  "public",
  "js",
  "script",
  "scripts",
  "info",
  "props",
  "main",
  "init",
  "style",
  "styles",
  "css",
  "plugin",
  "widget",
  "container",
  "wrapper",
  "wrap",
  "form",
  "root",
];

/**
 * Shorter forms of an object or handle name, longest first, each with one more trailing
 * suffix word removed: elementorFrontendConfig → elementorFrontend, elementor;
 * foo_bar_params → foo_bar. A suffix counts after "_", "-" or as a capitalised camel-case word.
 */
export function identifierStems(identifier: string): string[] {
  const stems: string[] = [];
  let current = identifier;
  for (let round = 0; round < 4; round++) {
    let next: string | undefined;
    for (const word of SUFFIX_WORDS) {
      if (current.length <= word.length + 1) continue;
      const tail = current.slice(-word.length);
      if (tail.toLowerCase() !== word) continue;
      const before = current[current.length - word.length - 1] ?? "";
      const camel = /[a-z0-9]/.test(before) && /^[A-Z]/.test(tail);
      if (before === "_" || before === "-" || camel) {
        next = current.slice(0, current.length - word.length).replace(/[_-]+$/, "");
        break;
      }
    }
    if (!next || next.length < 2) break;
    stems.push(next);
    current = next;
  }
  return stems;
}
