/**
 * Versions in inline JavaScript and JSON:
 *
 *   <script id="foo-bar-js-extra">var foo_bar_params = {"ajax_url":"…","version":"1.2.3"};</script>
 *   <script id="elementor-frontend-js-before">var elementorFrontendConfig = {…,"version":"3.18.3",…};</script>
 *   var foo_bar_version = '1.2.3';   window.fooBarVersion = "1.2.3";   { "fooBarVersion": "1.2.3" }
 *   <script type="application/json" id="foo-bar-settings">{"version":"1.2.3"}</script>
 *
 * An object's `version` belongs to whoever the object belongs to: the plugin that ships the
 * script it is printed beside (its handle, vocabulary.ts), or the plugin it is named after.
 * A `<name>_version` belongs to `<name>`. Only these keys count — `wp_version`,
 * `db_version`, `api_version`, `jquery_version` name other things (GENERIC_NAMES) — and
 * only strict versions (name-keys.ts). JSON-LD (schema.org) is never read.
 */
import type { PageModel } from "../../parse/page.ts";
import { siteText } from "../../untrusted-text.ts";
import { versionSpans } from "./credits.ts";
import { versionStem } from "./identifiers.ts";
import { GENERIC_NAMES, identifierKey, slugCandidates, strictVersion } from "./name-keys.ts";
import type { Observation } from "./observation.ts";
import { quotedPairs, topLevelScalars } from "./script-values.ts";
import { DECLARATION } from "./vocabulary.ts";

/** The keys of an object that state its owner's version. */
const VERSION_KEYS = new Set(["version", "ver", "pluginversion", "plugin_version", "pluginver", "plugin_ver"]);
/** Objects read per script, and scripts read per page. */
const MAX_OBJECTS = 30;
const MAX_SCRIPTS = 300;

function isScript(type: string | undefined): boolean {
  const value = (type ?? "").trim().toLowerCase();
  return value === "" || value === "text/javascript" || value === "application/javascript" || value === "module";
}

export function inlineScriptObservations(page: PageModel): Observation[] {
  const found: Observation[] = [];
  for (const [n, script] of page.scripts.slice(0, MAX_SCRIPTS).entries()) {
    if (script.src || !script.text) continue;
    const type = (script.attrs.type ?? "").trim().toLowerCase();
    const id = script.attrs.id ?? "";
    const seen = `script:${n}`;
    const handle = /^(.+)-js-(?:extra|before|after)$/.exec(id)?.[1];
    if (type === "application/json") {
      // Data handed over as JSON: its owner is named by the element's id.
      const start = script.text.indexOf("{");
      const owner = id.replace(/[-_](?:json|data)$/i, "");
      if (start >= 0 && start < 20 && owner)
        addObject(found, seen, owner, undefined, topLevelScalars(script.text, start));
      continue;
    }
    if (!isScript(type)) continue;
    let objects = 0;
    for (const declaration of script.text.matchAll(DECLARATION)) {
      const start = declaration.index + declaration[0].length;
      if (script.text[start] !== "{" || ++objects > MAX_OBJECTS) continue;
      addObject(found, seen, declaration[1] ?? "", handle, topLevelScalars(script.text, start));
    }
    for (const pair of quotedPairs(script.text)) {
      const stem = versionStem(pair.name);
      const version = stem ? strictVersion(pair.value) : undefined;
      if (!stem || !version) continue;
      // `wp_smush_version` printed beside the handle of a plugin's file: the stem may be an
      // abbreviation of that plugin's name; a library's or WordPress's version key never is.
      const owned = handle && slugCandidates(stem).length > 0 && !GENERIC_NAMES.has(identifierKey(stem));
      found.push({
        source: "inline_script",
        value: siteText(`${pair.name} = "${pair.value}"`, 200),
        seen,
        version,
        subject: { kind: "identifier", candidates: owned ? [stem, handle] : [stem], mayInfer: true, stems: false },
      });
    }
    found.push(...consoleBanners(script.text, seen));
  }
  return found;
}

/** `foo-bar-frontend` → `foo-bar`: a handle is usually its plugin's slug and one word more. */
function handleParent(handle: string): string | undefined {
  const parent = handle.replace(/-[^-]+$/, "");
  return parent !== handle && parent.includes("-") ? parent : undefined;
}

/** An object whose top level states a version: it is the object's owner's. */
function addObject(
  found: Observation[],
  seen: string,
  name: string,
  handle: string | undefined,
  scalars: Map<string, string>,
): void {
  for (const [key, raw] of scalars) {
    // `_version` (CookieYes), `$version`: the same key.
    if (!VERSION_KEYS.has(key.toLowerCase().replace(/^[_$]+/, ""))) continue;
    const version = strictVersion(raw);
    if (!version) continue;
    const parent = handle ? handleParent(handle) : undefined;
    found.push({
      source: "inline_script",
      value: siteText(`${name} = {…"${key}":"${raw}"…}`, 200),
      seen,
      version,
      // The handle it is printed beside is the most direct owner; then the object's own name.
      subject: {
        kind: "identifier",
        candidates: handle ? [handle, ...(parent ? [parent] : []), name] : [name],
        mayInfer: true,
        stems: true,
      },
    });
    return;
  }
}

/** `console.log('PixelYourSite Free version 9.5.5')`: banners scripts print; the name must be one an index knows. */
const CONSOLE = /\bconsole\.(?:log|info|debug)\(\s*(["'`])([^"'`\\\n]{3,200})\1/g;
const MAX_BANNERS = 10;

function consoleBanners(text: string, seen: string): Observation[] {
  const found: Observation[] = [];
  for (const match of text.slice(0, 100_000).matchAll(CONSOLE)) {
    if (found.length >= MAX_BANNERS) break;
    const banner = match[2] ?? "";
    found.push(...versionSpans(banner, siteText(banner, 200), seen, "inline_script", 0));
  }
  return found;
}
