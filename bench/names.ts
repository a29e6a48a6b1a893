/**
 * Names index benchmark (issue 23, docs/benchmarks.md "Names index"). Prints:
 *
 *   1. a synthetic dump of BENCH_PLUGINS (60,000) plugins in WordPress.org's own format — pages
 *      of query_plugins answers, 250 entries each, every default field present (descriptions
 *      included, as a dump made without turning fields off has them) — written into a temp dir;
 *   2. its import with importDirectoryFile (the `intel import --source names` path), in a fresh
 *      child process per backend so that the peak RSS (VmHWM, read by the child after the
 *      import) is the import's alone: on PostgreSQL (a database created for the run, dropped
 *      afterwards) and on the embedded PGlite (a temp DATA_DIR, migrated by a child first);
 *   3. the cost a report adds: one names lookup of a realistic query (150 name keys, 120 slugs,
 *      what a busy homepage asks), BENCH_LOOKUPS times, p50/p95.
 *
 *   npm run bench:names                           # needs PostgreSQL (BENCH_POSTGRES_URL)
 *   BENCH_PLUGINS=20000 BENCH_BACKENDS=pglite npm run bench:names
 *
 * Figures, never assertions. Run on a quiet machine for numbers worth comparing.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import type { NameQuery } from "../server/analyzer/detect/finders/directory.ts";
import { nameKeysOf, slugify } from "../server/analyzer/detect/finders/name-keys.ts";
import { DirectoryStore } from "../server/intel/directory/directory.store.ts";
import { importDirectoryFile } from "../server/intel/directory/directory-import.ts";
import { openDatabase } from "../server/platform/db/database.ts";
import { silentLogger } from "../server/platform/logger.ts";
import { loadConfig } from "../server/start/config.ts";
import { type DirectoryEntryFixture, listingPage } from "../test/helpers/wporg-directory.ts";

const plugins = Number(process.env.BENCH_PLUGINS ?? 60_000);
const lookups = Number(process.env.BENCH_LOOKUPS ?? 200);
const backends = (process.env.BENCH_BACKENDS ?? "postgres,pglite")
  .split(",")
  .map((name) => name.trim())
  .filter((name) => name !== "");
const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const MB = 1024 * 1024;

function procStatus(): { rss: number; hwm: number } {
  const status = readFileSync("/proc/self/status", "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

// ---- children -------------------------------------------------------------------------------
if (process.argv.includes("--child-open")) {
  const db = await openDatabase(loadConfig(process.env).platform, silentLogger, { role: "cli" });
  await db.close();
  console.log(JSON.stringify({ ok: true }));
  process.exit(0);
}
const childAt = process.argv.indexOf("--child-import");
if (childAt !== -1) {
  const file = process.argv[childAt + 1] as string;
  const queryFile = process.argv[childAt + 2] as string;
  const db = await openDatabase(loadConfig(process.env).platform, silentLogger, { role: "cli" });
  const open = procStatus();
  const started = performance.now();
  const result = await importDirectoryFile(new DirectoryStore(db.sql), file, "plugin", db.kind === "embedded");
  const importMs = performance.now() - started;
  const end = procStatus();
  // The lookup a report makes, after the import.
  const query = JSON.parse(readFileSync(queryFile, "utf8")) as NameQuery;
  const store = new DirectoryStore(db.sql);
  for (let i = 0; i < 10; i++) await store.lookup(query);
  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < lookups; i++) {
    const at = performance.now();
    const answer = await store.lookup(query);
    times.push(performance.now() - at);
    hits = Object.keys(answer.names).length + Object.keys(answer.slugs).length;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  const [keys] = await db.sql<{ n: number }[]>`select count(*)::int as n from directory_name_keys`;
  await db.close();
  console.log(
    JSON.stringify({
      importMs,
      rssOpen: open.rss,
      hwm: end.hwm,
      rssEnd: end.rss,
      imported: result.plugin ?? 0,
      keys: keys?.n ?? 0,
      p50: at(0.5),
      p95: at(0.95),
      hits,
    }),
  );
  process.exit(0);
}

// ---- 1. the dump ----------------------------------------------------------------------------
let seed = 0x6e616d65;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const VENDORS = "Smart Easy Simple Ultimate Advanced Quick Super Flavor Tidy Breeze Lemon Acme Bright Happy".split(" ");
const NOUNS =
  "Forms Gallery Slider SEO Cache Backup Security Shop Booking Events Social Popup Tables Chat Maps FAQ".split(" ");
const TAILS = [
  "",
  " &#8211; Easy Setup",
  ": Fast and Simple",
  " for WooCommerce",
  " (Lite)",
  " &amp; More",
  " &#8211; Drag &amp; Drop Builder",
];

const dir = mkdtempSync(path.join(tmpdir(), "wpreport-bench-names-"));
const dump = path.join(dir, "plugins.jsonl");
const entries: DirectoryEntryFixture[] = [];
const now = Date.UTC(2026, 10, 20);
for (let i = 0; i < plugins; i++) {
  const base = `${pick(VENDORS)} ${pick(NOUNS)} ${i}`;
  entries.push({
    slug: slugify(base),
    name: `${base}${pick(TAILS)}`,
    installs: Math.floor(10 ** (random() * 6)),
    updated: new Date(now - i * 600_000),
    version: `${Math.floor(random() * 9)}.${Math.floor(random() * 20)}.${Math.floor(random() * 9)}`,
  });
}
const written = performance.now();
const fd = openSync(dump, "w");
for (let page = 1; page <= Math.ceil(entries.length / 250); page++) {
  writeSync(fd, `${JSON.stringify(listingPage("plugin", entries, page, 250))}\n`);
}
closeSync(fd);
const dumpMb = statSync(dump).size / MB;
console.log(
  `dump: ${plugins} plugins, ${Math.ceil(plugins / 250)} pages of query_plugins, ${dumpMb.toFixed(1)} MB, written in ${((performance.now() - written) / 1000).toFixed(1)} s`,
);

// A busy homepage's question: names (whole and short) and slugs, about half of them in the index.
const query: NameQuery = { names: [], slugs: [] };
for (let i = 0; i < 150; i++) {
  const entry = entries[Math.floor(random() * entries.length)] as DirectoryEntryFixture;
  query.names.push(i % 2 === 0 ? (nameKeysOf(entry.name)[0]?.key ?? "x") : `unknown name ${i}`);
}
for (let i = 0; i < 120; i++) query.slugs.push(i % 2 === 0 ? (entries[i * 97]?.slug ?? "x") : `unknown-slug-${i}`);
const queryFile = path.join(dir, "query.json");
Bun.write(queryFile, JSON.stringify(query));

// ---- 2. and 3. per backend ------------------------------------------------------------------
interface ChildResult {
  importMs: number;
  rssOpen: number;
  hwm: number;
  keys: number;
  p50: number;
  p95: number;
  hits: number;
}

async function child(args: string[], env: Record<string, string>): Promise<ChildResult> {
  const proc = Bun.spawn([process.execPath, import.meta.path, ...args], {
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const text = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`child ${args[0]} failed`);
  return JSON.parse(text.trim().split("\n").at(-1) ?? "{}");
}

const rows: string[] = [];
for (const backend of backends) {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  if (backend === "postgres") {
    const name = `wpreport_bench_names_${Date.now().toString(36)}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    env = { DATABASE_URL: url.toString() };
    cleanup = async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  } else {
    const dataDir = mkdtempSync(path.join(tmpdir(), "wpreport-bench-names-db-"));
    env = { DATA_DIR: dataDir };
    cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
  }
  try {
    await child(["--child-open"], env);
    const result = await child(["--child-import", dump, queryFile], env);
    const line = `${backend.padEnd(9)} import ${(result.importMs / 1000).toFixed(1)} s (${Math.round(plugins / (result.importMs / 1000))} names/s, ${result.keys} keys)  peak RSS ${Math.round(result.hwm / MB)} MB (open ${Math.round(result.rssOpen / MB)} MB)  lookup p50 ${result.p50.toFixed(2)} ms p95 ${result.p95.toFixed(2)} ms (${result.hits} answers)`;
    console.log(line);
    rows.push(line);
  } finally {
    await cleanup();
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(`\nsummary (${plugins} plugins, ${dumpMb.toFixed(0)} MB dump):\n${rows.join("\n")}`);
