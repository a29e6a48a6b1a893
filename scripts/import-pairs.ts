/**
 * Lists the pairs of top-level entries of a folder that import each other by value (type-only
 * imports are left out, as the compiler erases them). `server/` by default; another folder as
 * the argument (e.g. `server/analyzer`). Exits 1 when it finds a pair, so CI can hold the line.
 *
 *   bun scripts/import-pairs.ts [folder] [--list]
 *
 * `--list` also prints every value import that crosses between two entries, one per line.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const listAll = args.includes("--list");
const folder = path.resolve(args.find((arg) => !arg.startsWith("--")) ?? "server");
const transpilers = { ts: new Bun.Transpiler({ loader: "ts" }), tsx: new Bun.Transpiler({ loader: "tsx" }) };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === "node_modules" ? [] : sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [full] : [];
  });
}

/** The folder's top-level entry a file belongs to (a sub-folder, or a file at the top). */
function entryOf(file: string): string | undefined {
  const relative = path.relative(folder, file);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep)[0];
}

const edges = new Map<string, Set<string>>();
const crossings: string[] = [];
for (const file of sourceFiles(folder)) {
  const from = entryOf(file) as string;
  for (const { path: specifier } of transpilers[file.endsWith(".tsx") ? "tsx" : "ts"].scanImports(
    readFileSync(file, "utf8"),
  )) {
    if (!specifier.startsWith(".")) continue;
    const to = entryOf(path.resolve(path.dirname(file), specifier));
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from)?.add(to);
    crossings.push(`${path.relative(process.cwd(), file)} -> ${specifier}`);
  }
}

if (listAll) for (const line of crossings.sort()) console.log(line);
const pairs: string[] = [];
for (const [from, targets] of edges) {
  for (const to of targets) if (from < to && edges.get(to)?.has(from)) pairs.push(`${from} <-> ${to}`);
}
const name = path.relative(process.cwd(), folder) || ".";
if (pairs.length === 0) {
  console.log(`${name}: no two top-level entries import each other (value imports)`);
} else {
  console.log(`${name}: ${pairs.length} pair(s) of top-level entries import each other (value imports):`);
  for (const pair of pairs.sort()) console.log(`  ${pair}`);
  process.exitCode = 1;
}
