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
import { SLUG_SHAPE } from "../../server/analyzer/detect/finders/name-keys.ts";
import { versionKey } from "../../server/analyzer/detect/version-sanity.ts";
import type { PluginInfo } from "../../shared/report.ts";

export const CORPUS_DIR = path.join(import.meta.dir, "..", "analyzer", "corpus");

/** The evidence classes, as the corpus files name them. */
export const CORPUS_CLASSES = [
  "html_comment",
  "meta_tag",
  "inline_script",
  "meta_generator",
  "header",
  "asset_ver",
  "files",
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
  for (const item of corpus.cases) if (item.slug && item.name) plugins.set(item.slug, item.name);
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
}

export function scoreCase(item: CorpusCase, plugins: readonly Pick<PluginInfo, "slug" | "version">[]): CaseOutcome {
  const mine = item.slug ? plugins.find((plugin) => plugin.slug.toLowerCase() === item.slug?.toLowerCase()) : undefined;
  const reported = mine?.version ?? null;
  const same = (a: string | null, b: string | null) =>
    a === null || b === null ? a === b : versionKey(a) === versionKey(b);
  return {
    id: item.id,
    class: item.class,
    found: mine !== undefined,
    right: mine !== undefined && same(reported, item.version),
    wrong: mine !== undefined && reported !== null && !same(reported, item.version) ? reported : null,
    extra: plugins.filter((plugin) => plugin !== mine).map((plugin) => `${plugin.slug}@${plugin.version ?? "-"}`),
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
    return {
      class: cls,
      cases: list.length,
      positives: positives.length,
      found: positives.filter((outcome) => outcome.found).length,
      versioned: versioned.length,
      right: versioned.filter((outcome) => outcome.right).length,
      wrong: list.flatMap((outcome) => (outcome.wrong ? [{ id: outcome.id, version: outcome.wrong }] : [])),
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
