/**
 * Probe requests, from the probe catalogue (probe-kinds.ts): the request gather makes for a
 * kind at a site, and the caps on how many of a kind one analysis asks. The keys its answers
 * are stored under are in probe-keys.ts, shared with the stages that read them.
 */
import type { ProbeKey, ProbeName } from "../probe-keys.ts";
import { type ExposedFileSpec, PROBE_KINDS, type ProbeKind, type ProbeRequest } from "../probe-kinds.ts";

/** Read of a probe's answer unless its kind says otherwise. */
export const PROBE_MAX_BYTES = 256 * 1024;
/** Kept of an error response's body: enough to tell pages apart, no more. */
export const ERROR_BODY_BYTES = 2 * 1024;

/** A request gather makes: the kind's options, with the key and URL of this one. */
export interface ProbeSpec extends ProbeRequest {
  key: ProbeKey;
  url: string;
}

/** The bases a probe's URL is resolved against: the site's paths (detect/site-paths.ts) and, for REST routes, the root. */
export interface ProbeSite {
  origin: string;
  homeBase: string;
  coreBase: string;
  contentBase: string;
  /** The REST root to build `rest` routes on. */
  restRoot?: string | null;
}

/** The REST URL of a route, in the style the root uses (pretty /wp-json/ or ?rest_route=). */
export function restRoute(root: string, route: string): string {
  const url = new URL(root);
  if (url.searchParams.has("rest_route")) {
    url.searchParams.set("rest_route", `/${route}`);
    return url.toString();
  }
  return new URL(route, root.endsWith("/") ? root : `${root}/`).toString();
}

/** A URL template with its <…> filled, every one (`plugins/<slug>/languages/<slug>.pot`); a function, so that "$&" in a value stays text. */
const withValue = (template: string, value: string | undefined) =>
  value === undefined ? template : template.replace(/<[a-z]+>/g, () => value);

/** The URL of a kind whose URL is not `found`, at a site; `value` fills the <…> of its path or route. */
export function probeUrl(name: ProbeName, site: ProbeSite, value?: string): string {
  const { url } = PROBE_KINDS[name] as ProbeKind;
  switch (url.from) {
    case "home":
      return new URL(withValue(url.path, value), site.homeBase).toString();
    case "core":
      return new URL(withValue(url.path, value), site.coreBase).toString();
    case "content":
      return new URL(withValue(url.path, value), site.contentBase).toString();
    case "origin":
      return new URL(withValue(url.path, value), site.origin).toString();
    case "rest":
      if (!site.restRoot) throw new Error(`probe ${name}: a REST route needs the REST root`);
      return restRoute(site.restRoot, withValue(url.route, value));
    case "found":
      throw new Error(`probe ${name}: its URL is found by gather, not built`);
  }
}

/** The request for probe `name` at `url`; `value` is what a `<slug>` in its key stands for. */
export function probeAt(name: ProbeName, url: string, value?: string): ProbeSpec {
  const { key, method, headers, body, follow, maxBytes, headFirst, idempotent } = PROBE_KINDS[name] as ProbeKind;
  const filled = key
    .replace("<url>", () => url)
    .replace("<path>", () => new URL(url).pathname)
    .replace("<slug>", () => {
      if (value === undefined) throw new Error(`probe ${name}: its key needs a slug`);
      return value;
    });
  return { key: filled as ProbeKey, url, method, headers, body, follow, maxBytes, headFirst, idempotent };
}

/** The request for probe `name` at a site (URL built from the record). */
export function probeOf(name: ProbeName, site: ProbeSite, value?: string): ProbeSpec {
  return probeAt(name, probeUrl(name, site, value), value);
}

/** The first 4 KiB of a file that can be huge: enough for its content to prove what it is. */
const RANGE: ProbeRequest = { headers: { range: "bytes=0-4095" }, maxBytes: 4096 };

/** The probe of an exposed file at a site, under its base (or `under`: core, for a file `alsoUnderCore`). */
export function exposedFileProbe(
  file: ExposedFileSpec,
  site: ProbeSite,
  under: ExposedFileSpec["base"] = file.base,
): ProbeSpec {
  const base = { home: site.homeBase, core: site.coreBase, content: site.contentBase }[under];
  const url = new URL(file.path, base).toString();
  // A PHP script runs whole for a HEAD too, and a missing one is answered by the PHP handler
  // without WordPress: HEAD first would save the site nothing and double every hit.
  const headFirst = !file.path.endsWith(".php");
  return { ...probeAt("exposed", url), headFirst, ...(file.range ? RANGE : {}) };
}

// ── Caps on how many probes of a kind one analysis asks ─────────────────────────────────

/** Plugin readmes from the page and the REST API; a listing may add MAX_LISTED_PLUGIN_READMES. */
export const MAX_PLUGIN_READMES = 20;
/** Readmes of plugins known only from a listing, on top of the page's and the REST API's. */
export const MAX_LISTED_PLUGIN_READMES = 20;
export const MAX_THEME_STYLES = 3;
/**
 * Version files (gather/version-files.ts) of a passive report: at most this many requests
 * in all beyond the readmes asked anyway, and at most MAX_PASSIVE_FILES_PER_PLUGIN files
 * after a plugin's readme.txt.
 */
export const MAX_PASSIVE_VERSION_READS = 12;
export const MAX_PASSIVE_FILES_PER_PLUGIN = 3;
export const MAX_EXTRA_SITEMAPS = 3;
/** Control requests (probe block_control) after challenge or block pages: one per distinct page. */
export const MAX_BLOCK_CONTROLS = 3;
export const MAX_ASSET_SAMPLE = 12;
