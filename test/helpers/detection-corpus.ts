/**
 * The detection corpus (test/analyzer/corpus/): plugins as real sites show them, one plugin
 * per case, with the display name WordPress.org lists and the version it truly runs, plus
 * hard negatives that show no plugin at all. Read by the evaluation harness
 * (scripts/eval-detection.ts), which serves each case as a site and analyses it, and by
 * test/analyzer/corpus.test.ts, which scores the artifacts the harness saved.
 *
 * Files: one YAML file per evidence class (`class:` and `cases:`), bases.yaml (the core
 * and theme markup every case is shown on), directory.yaml (names the directory holds
 * besides the corpus's own: look-alikes, themes). docs/detection.md, "Evaluation".
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import type { Artifacts, HttpArtifact } from "../../server/analyzer/artifacts.ts";
import { SLUG_SHAPE } from "../../server/analyzer/detect/finders/name-keys.ts";
import { versionKey } from "../../server/analyzer/detect/version-sanity.ts";
import type { PluginInfo } from "../../shared/report.ts";

export const CORPUS_DIR = path.join(import.meta.dir, "..", "analyzer", "corpus");
/** What the harness saved of every analysis (`npm run eval:detection -- --save`). */
export const CORPUS_ARTIFACTS = path.join(CORPUS_DIR, "artifacts.json.br");

/** The analyses each case gets: passive, and aggressive for the cases whose version is only in the plugin's files; with and without the names index. */
export type RunName = "passive-index" | "passive-none" | "aggressive-index" | "aggressive-none";
export const RUNS: readonly RunName[] = ["passive-index", "passive-none", "aggressive-index", "aggressive-none"];

/** The evidence classes, as the corpus files name them. */
export const CORPUS_CLASSES = [
  "html_comment",
  "meta_tag",
  "inline_script",
  "meta_generator",
  "header",
  "asset_ver",
  "files",
  "credit_trap",
  "shared_ver",
  "negative",
] as const;
export type CorpusClass = (typeof CORPUS_CLASSES)[number];

export interface CorpusCase {
  /** `<class>/<slug>` unless the file gives an `id`. */
  id: string;
  class: CorpusClass;
  /** The plugin the case shows; null for a negative. */
  slug: string | null;
  /** Its display name as the WordPress.org directory lists it (null: not in the directory). */
  name: string | null;
  /** The version it runs, when its evidence states one; null when nothing on the site says it. */
  version: string | null;
  /** The base page (bases.yaml) it is shown on. */
  base: string;
  /** Markup added to the base page's <head>, <body> and end of <body>; `{{origin}}`, `{{plugin}}`, `{{wp}}` filled in. */
  head: string;
  body: string;
  footer: string;
  /** Extra classes on <body>. */
  bodyClass: string;
  /** Response headers of the homepage. */
  headers: Record<string, string>;
  /** The plugin's files, by path inside its folder (`readme.txt`, `languages/foo.pot`). */
  files: Record<string, string>;
  /** REST namespaces the site's index lists besides WordPress's own. */
  namespaces: string[];
  /**
   * Other plugins the case's page shows (a page of several plugins: the shared `?ver=` cases),
   * each with its directory name, true version and files; they are scored like the case's own
   * plugin, and are not false positives.
   */
  others: OtherPlugin[];
}

export interface OtherPlugin {
  slug: string;
  name: string | null;
  version: string | null;
  files: Record<string, string>;
}

export interface Base {
  theme: string;
  theme_name: string;
  theme_version: string;
  body_class: string;
  head: string;
  body_start: string;
  body_end: string;
  /** False for a theme the WordPress.org directory does not list (a custom theme). */
  listed?: boolean;
}

export interface Corpus {
  cases: CorpusCase[];
  bases: Record<string, Base>;
  /** Directory entries besides the corpus's plugins: `plugins` and `themes`, slug → display name. */
  directory: { plugins: Record<string, string>; themes: Record<string, string> };
}

class CorpusError extends Error {
  override name = "CorpusError";
}

function text(value: unknown, where: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw new CorpusError(`${where}: expected text, got ${JSON.stringify(value)}`);
  return value;
}

function record(value: unknown, where: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new CorpusError(`${where}: expected a mapping`);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, text(item, `${where}.${key}`)]));
}

function parseCase(raw: Record<string, unknown>, cls: CorpusClass, file: string, index: number, bases: string[]) {
  const where = `${file} case ${index + 1}`;
  const slug = raw.slug === undefined || raw.slug === null ? null : text(raw.slug, `${where}.slug`);
  if (slug !== null && !SLUG_SHAPE.test(slug.toLowerCase())) throw new CorpusError(`${where}: bad slug ${slug}`);
  if ((cls === "negative") !== (slug === null))
    throw new CorpusError(`${where}: ${cls === "negative" ? "a negative names no plugin" : "a slug is required"}`);
  const version = raw.version === undefined || raw.version === null ? null : raw.version;
  // Quoted: YAML reads 22.4 as a number. Any release a plugin makes (2411 too), not only strict versions.
  if (version !== null && (typeof version !== "string" || !/^\d[\w.-]{0,30}$/.test(version)))
    throw new CorpusError(`${where}: the version must be a quoted version string, got ${JSON.stringify(version)}`);
  const base = raw.base === undefined ? (bases[index % bases.length] as string) : text(raw.base, `${where}.base`);
  if (!bases.includes(base)) throw new CorpusError(`${where}: no base ${base}`);
  const namespaces = raw.namespaces ?? [];
  if (!Array.isArray(namespaces)) throw new CorpusError(`${where}.namespaces: expected a list`);
  const id = text(raw.id, `${where}.id`) || `${cls}/${slug}`;
  const others = raw.others ?? [];
  if (!Array.isArray(others)) throw new CorpusError(`${where}.others: expected a list`);
  return {
    id,
    class: cls,
    slug,
    name: raw.name === null ? null : text(raw.name, `${where}.name`) || null,
    version: version as string | null,
    base,
    head: text(raw.head, `${where}.head`),
    body: text(raw.body, `${where}.body`),
    footer: text(raw.footer, `${where}.footer`),
    bodyClass: text(raw.body_class, `${where}.body_class`),
    headers: record(raw.headers, `${where}.headers`),
    files: record(raw.files, `${where}.files`),
    namespaces: namespaces.map((item, n) => text(item, `${where}.namespaces[${n}]`)),
    others: (others as Record<string, unknown>[]).map((other, n) => {
      const at = `${where}.others[${n}]`;
      const otherSlug = text(other.slug, `${at}.slug`);
      if (!SLUG_SHAPE.test(otherSlug.toLowerCase())) throw new CorpusError(`${at}: bad slug ${otherSlug}`);
      const otherVersion = other.version ?? null;
      if (otherVersion !== null && (typeof otherVersion !== "string" || !/^\d[\w.-]{0,30}$/.test(otherVersion)))
        throw new CorpusError(`${at}: the version must be a quoted version string`);
      return {
        slug: otherSlug,
        name: text(other.name, `${at}.name`) || null,
        version: otherVersion as string | null,
        files: record(other.files, `${at}.files`),
      };
    }),
  } satisfies CorpusCase;
}

const yaml = (file: string): unknown => Bun.YAML.parse(readFileSync(path.join(CORPUS_DIR, file), "utf8"));

export function loadCorpus(dir = CORPUS_DIR): Corpus {
  const bases = yaml("bases.yaml") as Record<string, Base>;
  const baseNames = Object.keys(bases);
  const directory = (yaml("directory.yaml") ?? {}) as Partial<Corpus["directory"]>;
  const cases: CorpusCase[] = [];
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith(".yaml") && !["bases.yaml", "directory.yaml"].includes(name))
    .sort()) {
    const doc = yaml(file) as { class?: string; cases?: Record<string, unknown>[] };
    const cls = doc.class as CorpusClass;
    if (!CORPUS_CLASSES.includes(cls)) throw new CorpusError(`${file}: unknown class ${doc.class}`);
    for (const [index, raw] of (doc.cases ?? []).entries()) cases.push(parseCase(raw, cls, file, index, baseNames));
  }
  const ids = new Set<string>();
  for (const item of cases) {
    if (ids.has(item.id)) throw new CorpusError(`two cases are ${item.id}: give one an id`);
    ids.add(item.id);
  }
  return {
    cases,
    bases,
    directory: {
      plugins: record(directory.plugins, "directory.plugins"),
      themes: record(directory.themes, "directory.themes"),
    },
  };
}

/**
 * The names index the evaluation loads, in the admin CLI's line format (`<slug> <Display
 * Name>`, docs/intel.md): every corpus plugin the directory lists, and the directory.yaml
 * extras (look-alikes). Themes go to their own file.
 */
export function directoryLines(corpus: Corpus): { plugins: string; themes: string } {
  const plugins = new Map<string, string>();
  for (const item of corpus.cases) {
    if (item.slug && item.name) plugins.set(item.slug, item.name);
    for (const other of item.others) if (other.name && !plugins.has(other.slug)) plugins.set(other.slug, other.name);
  }
  for (const [slug, name] of Object.entries(corpus.directory.plugins)) if (!plugins.has(slug)) plugins.set(slug, name);
  const themes = new Map(Object.entries(corpus.directory.themes));
  for (const base of Object.values(corpus.bases)) {
    if (base.listed !== false && !themes.has(base.theme)) themes.set(base.theme, base.theme_name);
  }
  const lines = (entries: Map<string, string>) =>
    `${[...entries].map(([slug, name]) => `${slug} ${name}`).join("\n")}\n`;
  return { plugins: lines(plugins), themes: lines(themes) };
}

/** What one analysis of one case came to. */
export interface CaseOutcome {
  id: string;
  class: CorpusClass;
  /** The case's plugin was reported. */
  found: boolean;
  /** …with its true version (a case whose evidence states no version: with none). */
  right: boolean;
  /** A version was reported that is not the true one. */
  wrong: string | null;
  /** Plugins reported that the case does not show. */
  extra: string[];
  /** The case's other plugins (`others`): each one's outcome, as for the case's own. */
  others: { slug: string; found: boolean; right: boolean; wrong: string | null; versioned: boolean }[];
}

const sameVersion = (a: string | null, b: string | null) =>
  a === null || b === null ? a === b : versionKey(a) === versionKey(b);

function outcomeOf(slug: string, version: string | null, plugins: readonly Pick<PluginInfo, "slug" | "version">[]) {
  const mine = plugins.find((plugin) => plugin.slug.toLowerCase() === slug.toLowerCase());
  const reported = mine?.version ?? null;
  return {
    mine,
    found: mine !== undefined,
    right: mine !== undefined && sameVersion(reported, version),
    wrong: mine !== undefined && reported !== null && !sameVersion(reported, version) ? reported : null,
  };
}

export function scoreCase(item: CorpusCase, plugins: readonly Pick<PluginInfo, "slug" | "version">[]): CaseOutcome {
  const own = item.slug ? outcomeOf(item.slug, item.version, plugins) : undefined;
  const others = item.others.map((other) => ({ other, ...outcomeOf(other.slug, other.version, plugins) }));
  const shown = new Set([own?.mine, ...others.map((other) => other.mine)].filter(Boolean));
  return {
    id: item.id,
    class: item.class,
    found: own?.found ?? false,
    right: own?.right ?? false,
    wrong: own?.wrong ?? null,
    extra: plugins.filter((plugin) => !shown.has(plugin)).map((plugin) => `${plugin.slug}@${plugin.version ?? "-"}`),
    others: others.map(({ other, found, right, wrong }) => ({
      slug: other.slug,
      found,
      right,
      wrong,
      versioned: other.version !== null,
    })),
  };
}

export interface ClassFigures {
  class: CorpusClass | "all";
  cases: number;
  /** Cases that show a plugin. */
  positives: number;
  found: number;
  /** Positives whose evidence states a version. */
  versioned: number;
  right: number;
  wrong: { id: string; version: string }[];
  falsePositives: { id: string; plugins: string[] }[];
}

export function figures(outcomes: readonly CaseOutcome[], cases: readonly CorpusCase[]): ClassFigures[] {
  const byId = new Map(cases.map((item) => [item.id, item]));
  const sum = (cls: ClassFigures["class"], list: readonly CaseOutcome[]): ClassFigures => {
    const positives = list.filter((outcome) => byId.get(outcome.id)?.slug);
    const versioned = positives.filter((outcome) => byId.get(outcome.id)?.version);
    // A case's other plugins count as positives of their own.
    const others = list.flatMap((outcome) => outcome.others);
    return {
      class: cls,
      cases: list.length,
      positives: positives.length + others.length,
      found: positives.filter((outcome) => outcome.found).length + others.filter((other) => other.found).length,
      versioned: versioned.length + others.filter((other) => other.versioned).length,
      right:
        versioned.filter((outcome) => outcome.right).length +
        others.filter((other) => other.versioned && other.right).length,
      wrong: list.flatMap((outcome) => [
        ...(outcome.wrong ? [{ id: outcome.id, version: outcome.wrong }] : []),
        ...outcome.others.flatMap((other) =>
          other.wrong ? [{ id: `${outcome.id} (${other.slug})`, version: other.wrong }] : [],
        ),
      ]),
      falsePositives: list.flatMap((outcome) =>
        outcome.extra.length ? [{ id: outcome.id, plugins: outcome.extra }] : [],
      ),
    };
  };
  const rows = CORPUS_CLASSES.map((cls) =>
    sum(
      cls,
      outcomes.filter((outcome) => outcome.class === cls),
    ),
  ).filter((row) => row.cases > 0);
  return [...rows, sum("all", outcomes)];
}

export const percent = (part: number, whole: number) => (whole === 0 ? 100 : Math.round((1000 * part) / whole) / 10);

/**
 * The saved artifacts, packed: the runs of one case share their homepage and most probe
 * answers, so each case keeps them once and each run only what differs (a probe it did not
 * ask is null). Brotli-compressed JSON.
 */
interface PackedCase {
  homepage: Artifacts["homepage"];
  probes: Record<string, HttpArtifact>;
  runs: Partial<
    Record<RunName, Omit<Artifacts, "homepage" | "probes"> & { probes: Record<string, HttpArtifact | null> }>
  >;
}

export function packCorpusArtifacts(byCase: ReadonlyMap<string, Partial<Record<RunName, Artifacts>>>): Buffer {
  const packed: Record<string, PackedCase> = {};
  for (const id of [...byCase.keys()].sort()) {
    const runs = byCase.get(id) ?? {};
    const first = Object.values(runs)[0];
    if (!first) continue;
    const common = first.probes as Record<string, HttpArtifact>;
    const entry: PackedCase = { homepage: first.homepage, probes: common, runs: {} };
    for (const run of RUNS) {
      const artifacts = runs[run];
      if (!artifacts) continue;
      const { homepage: _homepage, probes, ...rest } = artifacts;
      const own = probes as Record<string, HttpArtifact>;
      const delta: Record<string, HttpArtifact | null> = {};
      for (const key of new Set([...Object.keys(common), ...Object.keys(own)])) {
        const mine = own[key];
        if (mine === undefined) delta[key] = null;
        else if (JSON.stringify(mine) !== JSON.stringify(common[key])) delta[key] = mine;
      }
      entry.runs[run] = { ...rest, probes: delta };
    }
    packed[id] = entry;
  }
  return brotliCompressSync(JSON.stringify(packed), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 },
  });
}

/** The saved artifacts of every case and run. */
export function loadCorpusArtifacts(file = CORPUS_ARTIFACTS): Map<string, Partial<Record<RunName, Artifacts>>> {
  const packed = JSON.parse(brotliDecompressSync(readFileSync(file)).toString("utf8")) as Record<string, PackedCase>;
  const byCase = new Map<string, Partial<Record<RunName, Artifacts>>>();
  for (const [id, entry] of Object.entries(packed)) {
    const runs: Partial<Record<RunName, Artifacts>> = {};
    for (const [run, rest] of Object.entries(entry.runs) as [RunName, PackedCase["runs"][RunName]][]) {
      if (!rest) continue;
      const probes: Record<string, HttpArtifact> = { ...entry.probes };
      for (const [key, value] of Object.entries(rest.probes)) {
        if (value === null) delete probes[key];
        else probes[key] = value;
      }
      runs[run] = { ...rest, homepage: structuredClone(entry.homepage), probes } as Artifacts;
    }
    byCase.set(id, runs);
  }
  return byCase;
}

// ---------------------------------------------------------------------------------------------
// Serving a case: its homepage (a base page with the case's evidence in it), its headers, its
// REST index, the theme's style.css, the plugin's files, a 404 for anything else.

/** WordPress's version on every corpus site. */
export const WP_VERSION = "6.5.3";

const TYPES: Record<string, string> = {
  css: "text/css",
  js: "application/javascript",
  json: "application/json",
  txt: "text/plain; charset=UTF-8",
  md: "text/markdown; charset=UTF-8",
  pot: "text/x-gettext-translation; charset=UTF-8",
  po: "text/x-gettext-translation; charset=UTF-8",
  xml: "application/xml",
  php: "text/html; charset=UTF-8",
};

function fill(text: string, origin: string, item: CorpusCase): string {
  return text
    .replaceAll("{{plugin}}", `${origin}/wp-content/plugins/${item.slug ?? "none"}`)
    .replaceAll("{{origin}}", origin)
    .replaceAll("{{wp}}", WP_VERSION);
}

export function homepageOf(corpus: Corpus, item: CorpusCase, origin: string): string {
  const base = corpus.bases[item.base];
  if (!base) throw new Error(`no base ${item.base}`);
  const bodyClass = [base.body_class, item.bodyClass].filter(Boolean).join(" ");
  return fill(
    `<!DOCTYPE html>\n<html lang="en-US">\n<head>\n${base.head}${item.head}</head>\n<body class="${bodyClass}">\n${base.body_start}${item.body}${base.body_end}${item.footer}</body>\n</html>\n`,
    origin,
    item,
  );
}

const notFound = () =>
  new Response('<html><body class="error404">Page not found</body></html>', {
    status: 404,
    headers: { "content-type": "text/html; charset=UTF-8" },
  });

/** Serves one case on 127.0.0.1 (any free port). */
export function serveCase(corpus: Corpus, item: CorpusCase): { url: string; stop(): void } {
  const base = corpus.bases[item.base];
  if (!base) throw new Error(`no base ${item.base}`);
  let origin = "";
  let homepage = "";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const pathname = decodeURIComponent(url.pathname);
      const respond = (body: string, type: string, status = 200, headers: Record<string, string> = {}) =>
        new Response(request.method === "HEAD" ? null : body, {
          status,
          headers: { "content-type": type, ...headers },
        });
      // The homepage; its author archives and other query views are off (404), as on many sites.
      if (pathname === "/" && url.search !== "" && !url.searchParams.has("rest_route")) return notFound();
      if (pathname === "/" && !url.searchParams.has("rest_route")) {
        return respond(homepage, "text/html; charset=UTF-8", 200, {
          link: `<${origin}/wp-json/>; rel="https://api.w.org/"`,
          ...Object.fromEntries(Object.entries(item.headers).map(([name, value]) => [name, fill(value, origin, item)])),
        });
      }
      if (pathname === "/wp-json/" || url.searchParams.get("rest_route") === "/") {
        return Response.json({
          name: "Corpus site",
          url: origin,
          home: origin,
          namespaces: ["oembed/1.0", "wp/v2", "wp-site-health/v1", "wp-block-editor/v1", ...item.namespaces],
          routes: {},
        });
      }
      if (pathname === `/wp-content/themes/${base.theme}/style.css`) {
        return respond(
          `/*\nTheme Name: ${base.theme_name}\nAuthor: ${base.theme_name} Team\nVersion: ${base.theme_version}\nText Domain: ${base.theme}\n*/\nbody{margin:0}\n`,
          "text/css",
        );
      }
      for (const [slug, files] of [
        [item.slug, item.files] as const,
        ...item.others.map((other) => [other.slug, other.files] as const),
      ]) {
        const own = slug ? `/wp-content/plugins/${slug}/` : null;
        if (!own || !pathname.startsWith(own)) continue;
        const file = files[pathname.slice(own.length)];
        const extension = path.extname(pathname).slice(1).toLowerCase();
        if (file !== undefined) return respond(fill(file, origin, item), TYPES[extension] ?? "text/plain");
      }
      // Scripts and stylesheets the page loads exist (empty): only the plugin's files above say anything.
      const extension = path.extname(pathname).slice(1).toLowerCase();
      if ((extension === "css" || extension === "js") && homepage.includes(pathname)) {
        return respond(extension === "css" ? "body{}\n" : ";\n", TYPES[extension] as string);
      }
      return notFound();
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  homepage = homepageOf(corpus, item, origin);
  return { url: `${origin}/`, stop: () => server.stop(true) };
}
