/** The docs that are generated from code, or must agree with it, do; and they stand on their own. */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import GithubSlugger from "github-slugger";
import { marked, type Token } from "marked";
import { renderCheckDocs } from "../../scripts/generate-check-docs.ts";
import { PLANS } from "../../server/billing/plans.ts";
import { PROBLEMS } from "../../server/platform/http/problem.ts";
import { API_OPERATIONS } from "../../server/start/app.ts";

const root = path.join(import.meta.dir, "..", "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
/** Markdown tables compared without their cell padding. */
const cells = (text: string) => text.replace(/ *\| */g, "|");

/**
 * The repository's own text: code, tests, scripts and docs. Not scanned: dependencies, the
 * generated Action bundles (action/dist), captured site data (test/analyzer/artifacts), and `.ci/run` —
 * the CI environment's script, which really runs the WordPress fixture from the folder the
 * environment lays beside the checkout.
 */
const OWN_TEXT = ["server", "shared", "action/src", "action/package.json", "test", "docs", "scripts", "bench"];
const OWN_TEXT_FILES = [
  "README.md",
  "CONTRIBUTING.md",
  "action.yml",
  "package.json",
  "Dockerfile",
  "docker-compose.yml",
];
const SKIPPED_DIRS = new Set(["node_modules", "dist", "artifacts", ".compare-tools"]);
const TEXT_FILE = /\.(ts|tsx|js|mjs|json|md|yml|yaml|css|sql|sh|txt)$/;

function ownTextFiles(): string[] {
  const files = [...OWN_TEXT_FILES];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith(".")) walk(child);
      } else if (TEXT_FILE.test(entry.name)) files.push(child);
    }
  };
  for (const entry of OWN_TEXT) {
    if (TEXT_FILE.test(entry)) files.push(entry);
    else walk(entry);
  }
  return files;
}

/** `file:line: text` for every line of the repository's own text that matches. */
function linesMatching(find: (line: string) => boolean): string[] {
  const found: string[] = [];
  for (const file of ownTextFiles()) {
    read(file)
      .split("\n")
      .forEach((line, index) => {
        if (find(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
      });
  }
  return found;
}

/** The Markdown documents whose links and repository paths must resolve. */
const markdownDocs = () => [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** Every token of a Markdown token tree (lists, tables and inline tokens included). */
function allTokens(tokens: Token[]): Token[] {
  const out: Token[] = [];
  marked.walkTokens(tokens, (token) => {
    out.push(token);
  });
  return out;
}

/** A heading's text as GitHub renders it (no backticks, emphasis or link syntax). */
function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? [])
    .map((token) => ("tokens" in token && token.tokens ? plainText(token.tokens) : "text" in token ? token.text : ""))
    .join("");
}

/** The anchors GitHub gives a Markdown file: one per heading (github-slugger), and explicit ids. */
const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const text = read(file);
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const token of allTokens(marked.lexer(text))) {
    if (token.type === "heading") anchors.add(slugger.slug(plainText(token.tokens)));
  }
  for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] as string);
  anchorCache.set(file, anchors);
  return anchors;
}

/** Every file and folder of the checkout (not dependencies, git's own or local data), relative to the root. */
function repositoryFiles(): Set<string> {
  const found = new Set<string>();
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      if ([".git", "node_modules", "data", "test-results"].includes(entry.name)) continue;
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      found.add(child);
      if (entry.isDirectory()) walk(child);
    }
  };
  walk("");
  return found;
}

/** The repository's top-level folders a path may start from (`server/…`, `docs/…`). */
const TOP_LEVEL = ["server", "shared", "test", "action", "bench", "scripts", "docs", "patches", ".ci"];
/** Paths made by tools or by hand, never committed (.gitignore): mentioning them is fine. */
const GENERATED = read(".gitignore")
  .split("\n")
  .map((line) => line.trim().replace(/^\//, "").replace(/\/$/, ""))
  .filter((line) => line !== "" && !line.includes("*"));
/** A path segment that stands for any name: `<category>`, `*`, `{id}`, `NNNN_name.sql`. */
const PLACEHOLDER = /[<*{]|\bN{3,}|X{3,}/;

/**
 * The repository paths a document mentions that do not exist: a path from a top-level folder
 * (`server/reports/charges.ts`) must exist as written; a shorter one with a source file at its
 * end (`reports/charges.ts`, said within a folder's section) must be the end of some file's path,
 * and a bare source file name (`charges.ts`) some file's name. Up to a placeholder segment
 * (`audit/<category>/…`), only the part before it is checked. URLs, MIME types and the analysed
 * sites' own paths (`wp-content/plugins/`) are not repository paths.
 */
function missingPaths(text: string, files: Set<string>): string[] {
  const missing: string[] = [];
  const names = new Set([...files].map((file) => file.slice(file.lastIndexOf("/") + 1)));
  const endsSomePath = (tail: string) => [...files].some((file) => file === tail || file.endsWith(`/${tail}`));
  // A run of path characters not glued to a URL, a word or another path.
  for (const match of text.matchAll(/(?<![\w.@/:<>*{}-])\.?[\w<>*{}][\w.@+<>*{}-]*(?:\/[\w.@+<>*{}-]+)*\/?/g)) {
    const token = match[0].replace(/[.]+$/, "");
    const before = text.slice(Math.max(0, (match.index ?? 0) - 3), match.index);
    if (before.endsWith("://") || before.endsWith("#")) continue;
    const segments = token.replace(/\/$/, "").split("/");
    const placeholderAt = segments.findIndex((segment) => PLACEHOLDER.test(segment));
    const fixed = placeholderAt === -1 ? segments : segments.slice(0, placeholderAt);
    const joined = fixed.join("/");
    if (TOP_LEVEL.includes(segments[0] as string) && segments.length > 1) {
      if (GENERATED.some((generated) => joined === generated || joined.startsWith(`${generated}/`))) continue;
      if (fixed.length > 0 && !files.has(joined)) missing.push(token);
    } else if (placeholderAt === -1 && segments.length > 1 && /\.(ts|tsx|sql|mjs)$/.test(token)) {
      if (!endsSomePath(token)) missing.push(token);
    } else if (placeholderAt === -1 && /\.(ts|tsx|mjs)$/.test(token) && !token.endsWith(".d.ts")) {
      // A bare .sql name is more often a file the analyzer asks a site for (`dump.sql`).
      if (!names.has(token)) missing.push(token);
    }
  }
  return missing;
}

/**
 * The entries of a layout tree (a plain code block whose first line is a folder and what it
 * holds, as in docs/architecture.md's "Layout") that do not exist. An entry is a name at an
 * even indent of at most six spaces followed by two spaces; its path is its parent folders' by
 * indent (`server/` → `  platform/` → `    config.ts` is server/start/config.ts).
 */
function missingLayoutEntries(doc: string, files: Set<string>): string[] {
  const missing: string[] = [];
  for (const token of allTokens(marked.lexer(read(doc)))) {
    if (token.type !== "code" || token.lang || !/^[\w.-]+\/ {2,}\S/.test(token.text)) continue;
    const folders: string[] = [];
    for (const line of token.text.split("\n")) {
      const entry = /^( {0,6})([\w.-]+(?:\/[\w.-]+)*\/?)(?: {2,}|$)/.exec(line);
      if (!entry || (entry[1] as string).length % 2 !== 0) continue;
      const depth = (entry[1] as string).length / 2;
      if (depth > folders.length) continue; // deeper than any folder above it: not an entry
      const name = entry[2] as string;
      const full = [...folders.slice(0, depth), name.replace(/\/$/, "")].join("/");
      folders.length = depth;
      if (name.endsWith("/")) folders.push(name.replace(/\/$/, ""));
      if (!files.has(full)) missing.push(full);
    }
  }
  return missing;
}

describe("docs", () => {
  test("docs/checks.md is generated from the catalogue (run `bun run docs:checks`)", () => {
    expect(read("docs/checks.md")).toBe(renderCheckDocs());
  });

  test("the plan table of docs/plans.md is the catalogue", () => {
    const text = cells(read("docs/plans.md"));
    for (const plan of PLANS) {
      const price = plan.priceEurCents === null ? "—" : String(plan.priceEurCents / 100);
      expect(text).toContain(
        `|\`${plan.id}\`|${price}|${plan.monthlyQuota}|${plan.requestsPerMinute}|${plan.concurrentAnalyses}|${plan.maxQueued}|${plan.unreachablePerMinute}|${plan.maxMonitors}|`,
      );
    }
  });

  test("docs/configuration.md's table lists every environment variable the configuration reads, and no other", () => {
    // Each feature reads its own variables in <feature>/settings.ts (start/config.ts composes them).
    const settingsFiles = [...new Bun.Glob("server/*/settings.ts").scanSync({ cwd: root })];
    expect(settingsFiles.length).toBeGreaterThan(4);
    const names = settingsFiles.flatMap((file) =>
      [...read(file).matchAll(/\b(?:read|int|url)\(\s*"([A-Z_]+)"/g)].map((m) => m[1]),
    );
    expect(names.length).toBeGreaterThan(8);
    const rows = [...read("docs/configuration.md").matchAll(/^\| *`([A-Z_]+)` *\|/gm)].map((m) => m[1]);
    expect([...new Set(rows)].sort()).toEqual([...new Set(names)].sort());
  });

  test("every operation of the API is in docs/api.md's route table", () => {
    const rows = read("docs/api.md")
      .split("\n")
      .filter((line) => /^\| (GET|POST|PUT|PATCH|DELETE) \|/.test(line));
    const missing: string[] = [];
    for (const operation of API_OPERATIONS) {
      const method = operation.method.toUpperCase();
      const route = `\`${operation.path.replace(/:(\w+)/g, "{$1}")}\``;
      if (!rows.some((row) => row.startsWith(`| ${method} |`) && row.includes(route)))
        missing.push(`${method} ${route}`);
    }
    expect(rows.length).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  });

  test("every problem code is documented in docs/errors.md", () => {
    const errors = cells(read("docs/errors.md"));
    for (const [code, { status }] of Object.entries(PROBLEMS)) expect(errors).toContain(`|\`${code}\`|${status}|`);
  });

  test("every relative link in the README, CONTRIBUTING.md and docs/ resolves, anchors included", () => {
    const broken: string[] = [];
    for (const doc of markdownDocs()) {
      for (const token of allTokens(marked.lexer(read(doc)))) {
        if (token.type !== "link" && token.type !== "image") continue;
        const href: string = token.href;
        if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("//")) continue; // https:, mailto:…
        const [target = "", anchor] = href.split("#");
        const file =
          target === "" ? doc : path.relative(root, path.resolve(root, path.dirname(doc), decodeURI(target)));
        if (file.startsWith("..") || !existsSync(path.join(root, file))) {
          broken.push(`${doc}: ${href} (no such file in the repository)`);
        } else if (anchor && file.endsWith(".md") && !anchorsOf(file).has(decodeURIComponent(anchor))) {
          broken.push(`${doc}: ${href} (no heading with that anchor)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  test("the link checker sees links and anchors as GitHub does", () => {
    // Guards the test above against passing because it found nothing to check.
    const links = allTokens(marked.lexer(read("README.md"))).filter((token) => token.type === "link");
    expect(links.length).toBeGreaterThan(20);
    expect(anchorsOf("README.md")).toContain("quick-start");
    for (const anchor of ["queue-and-workers", "admin-cli", "running-on-postgresql-and-redis"])
      expect(anchorsOf("docs/operations.md")).toContain(anchor);
    expect(anchorsOf("docs/accounts.md")).toContain("setting-up-stripe");
    expect(anchorsOf("docs/action.md")).toContain("action-inputs");
    expect(anchorsOf("docs/benchmarks.md")).toContain("throughput");
    expect(anchorsOf("docs/decisions.md")).toContain("action-and-cli");
  });

  test("every repository path the README, CONTRIBUTING.md and docs/ mention exists", () => {
    const files = repositoryFiles();
    const missing = markdownDocs().flatMap((doc) =>
      [...missingPaths(read(doc), files), ...missingLayoutEntries(doc, files)].map((found) => `${doc}: ${found}`),
    );
    expect(missing).toEqual([]);
  });

  test("the path checker finds paths in prose, code and links, and knows a moved file", () => {
    // Guards the test above against passing because it recognises nothing.
    const files = repositoryFiles();
    expect(files.has("server/platform/db/table-owners.ts")).toBe(true);
    const text = [
      "`server/platform/db/table-owners.ts`, `server/queue/analysis-worker.ts` and shared/nowhere.ts;",
      "relative to a folder: `platform/http/server.ts` and `web/web.routes.ts`; a file: `charges.ts`, `gone.tsx`;",
      "a placeholder: `server/analyzer/audit/<category>/catalogue.ts`, `server/nowhere/<category>/x.ts`,",
      "`server/platform/db/migrations/NNNN_name.sql`; a link [the Action](docs/action.md) and [x](docs/gone.md);",
      "not ours: https://example.com/server/x.ts, `wp-content/plugins/`, `text/html`, `wpreport.d.ts`.",
    ].join("\n");
    // The layout tree is read entry by entry, each under the folders above it.
    const layout = missingLayoutEntries("docs/architecture.md", new Set());
    for (const entry of ["server/start/config.ts", "server/platform/db", "server/reports", "action/src/main.ts"])
      expect(layout).toContain(entry);
    expect(missingLayoutEntries("docs/architecture.md", files)).toEqual([]);
    expect(missingPaths(text, files)).toEqual([
      "server/queue/analysis-worker.ts",
      "shared/nowhere.ts",
      "web/web.routes.ts",
      "gone.tsx",
      "server/nowhere/<category>/x.ts",
      "docs/gone.md",
    ]);
  });

  test("the repository stands on its own: no pointers to the product specification or to a folder beside it", () => {
    // The specification and the CI fixture live outside the repository; the repository's code
    // and docs refer to its own documents instead. (The pattern is written so that this file
    // does not match itself.)
    expect(linesMatching((line) => /\bS[P]EC\b/.test(line))).toEqual([]);
    // A parent-relative `shared` path is fine only when it names a file of the repository's own
    // shared/ folder (imports, and paths quoted from them); anything else points outside.
    const outside = linesMatching((line) =>
      [...line.matchAll(/(?:\.\.\/)+shared\b(?:\/([\w./-]*))?/g)].some(
        ([, rest]) => !rest || rest.includes("..") || !existsSync(path.join(root, "shared", rest)),
      ),
    );
    expect(outside).toEqual([]);
    // The scan reaches the places that matter.
    const scanned = ownTextFiles();
    for (const file of [
      "README.md",
      "docs/decisions.md",
      "server/start/config.ts",
      "shared/diff.ts",
      "test/platform/docs.test.ts",
    ])
      expect(scanned).toContain(file);
  });
});
