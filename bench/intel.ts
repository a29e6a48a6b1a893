/**
 * Component intelligence benchmark (issue: component intel, figures in docs/benchmarks.md). Prints:
 *
 *   1. a synthetic Wordfence Intelligence v3 feed (server/intel/wordfence.ts: one JSON object
 *      keyed by UUID, records like test/platform/intel/wordfence-sample.json) of BENCH_FEED_MB, written
 *      streaming into a temp dir, at the real feed's density (≈ 42,500 records per 160 MB);
 *   2. its import with importWordfenceFile, in a fresh child process per import so that the
 *      peak RSS (VmHWM from /proc/self/status, read by the child after the import) is the
 *      import's alone: on PostgreSQL (a database created for the run, dropped afterwards) and on
 *      the embedded PGlite (a temp DATA_DIR, created by a child of its own first: initdb), each
 *      twice: a first import, then a re-import (a new generation written beside the served one
 *      and swapped in);
 *   3. the cost the data adds to a report: IntelService.lookup for a realistic query (core,
 *      15 plugins of which some are in the feed, 1 theme), WordPress.org lookups off,
 *      BENCH_LOOKUPS sequential lookups after a warm-up, p50/p95/p99, on both backends: right
 *      after the re-import (the old generation deleted but not vacuumed), then after VACUUM
 *      ANALYZE (PGlite has no autovacuum; a PostgreSQL server gets there by itself);
 *   4. a summary for docs/benchmarks.md with the goals next to the measured values.
 *
 *   npm run bench:intel                       # needs PostgreSQL (BENCH_POSTGRES_URL)
 *   BENCH_FEED_MB=50 BENCH_BACKENDS=postgres npm run bench:intel
 *   BENCH_FEED=/tmp/feed.json npm run bench:intel   # reuse that feed file, or write it there (kept)
 *
 * Goals: import peak RSS ≤ 150 MB; lookup ≤ 5 ms. Figures, never assertions.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import type { IntelQuery } from "../server/analyzer/intel/query.ts";
import { importWordfenceFile } from "../server/intel/importer.ts";
import { IntelService } from "../server/intel/intel.service.ts";
import { IntelStore } from "../server/intel/intel.store.ts";
import { LatestVersions } from "../server/intel/latest-versions.ts";
import { openDatabase } from "../server/platform/db/database.ts";
import { silentLogger } from "../server/platform/logger.ts";
import { loadConfig } from "../server/start/config.ts";

const feedMb = Number(process.env.BENCH_FEED_MB ?? 200);
const existingFeed = process.env.BENCH_FEED;
const lookups = Number(process.env.BENCH_LOOKUPS ?? 200);
const backends = (process.env.BENCH_BACKENDS ?? "postgres,pglite")
  .split(",")
  .map((name) => name.trim())
  .filter((name) => name !== "");
const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const GOAL_RSS_MB = 150;
const GOAL_LOOKUP_MS = 5;
const MB = 1024 * 1024;

/** This process's resident memory now and at its peak (VmHWM), in bytes. */
function procStatus(): { rss: number; hwm: number } {
  const status = readFileSync("/proc/self/status", "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

interface ChildResult {
  /** RSS when the child's modules are loaded, before the database is opened. */
  rssStart: number;
  /** RSS and peak once the database is open (and migrated), before the import. */
  rssOpen: number;
  hwmOpen: number;
  /** Peak RSS of the whole child (VmHWM), read after the import. */
  hwm: number;
  /** RSS right after the import. */
  rssEnd: number;
  heapUsedEnd: number;
  importMs: number;
  records: number;
  rows: number;
  skipped: number;
}

// ---------------------------------------------------------------------------------------
// Children (DATABASE_URL or DATA_DIR in the env), each printing one JSON line:
// --child-open creates and migrates a new database; --child-import <file> imports the feed.
// ---------------------------------------------------------------------------------------
if (process.argv.includes("--child-open")) {
  const started = performance.now();
  const db = await openDatabase(loadConfig(process.env).platform, silentLogger, { role: "cli" });
  const openMs = performance.now() - started;
  const { rss, hwm } = procStatus();
  await db.close();
  console.log(JSON.stringify({ openMs, rss, hwm }));
  process.exit(0);
}
const childAt = process.argv.indexOf("--child-import");
if (childAt !== -1) {
  const file = process.argv[childAt + 1] as string;
  const rssStart = procStatus().rss;
  const db = await openDatabase(loadConfig(process.env).platform, silentLogger, { role: "cli" });
  const open = procStatus();
  const started = performance.now();
  // As the service and the CLI do: collect after each batch on the embedded database.
  const result = await importWordfenceFile(new IntelStore(db.sql, undefined, db.kind === "embedded"), file);
  const importMs = performance.now() - started;
  const end = procStatus();
  const output: ChildResult = {
    rssStart,
    rssOpen: open.rss,
    hwmOpen: open.hwm,
    hwm: end.hwm,
    rssEnd: end.rss,
    heapUsedEnd: process.memoryUsage().heapUsed,
    importMs,
    records: result.records,
    rows: result.rows,
    skipped: result.skipped,
  };
  await db.close();
  console.log(JSON.stringify(output));
  process.exit(0);
}

// ---------------------------------------------------------------------------------------
// 1. The synthetic feed.
// ---------------------------------------------------------------------------------------

/** Deterministic (mulberry32): the same feed on every run. */
let seed = 0x5eed1234;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const hex = (length: number) => Array.from({ length }, () => int(0, 15).toString(16)).join("");
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;

const WORDS = (
  "the plugin theme wordpress is vulnerable to stored reflected cross-site scripting sql injection via " +
  "parameter in all versions up to and including due insufficient input sanitization output escaping " +
  "this makes it possible for unauthenticated authenticated attackers with contributor-level access above " +
  "inject arbitrary web scripts pages that will execute whenever a user accesses an injected page missing " +
  "capability check on function modify data delete files upload read sensitive information server-side " +
  "request forgery nonce validation trick site administrator into performing action such as clicking link " +
  "shortcode attribute ajax action rest endpoint option settings update privilege escalation object deserialization"
).split(" ");
const VENDORS = "wp smart easy simple ultimate advanced pro lite custom quick super my best fast".split(" ");
const NOUNS = (
  "forms gallery slider seo cache backup security shop booking events social popup table " +
  "chat maps analytics newsletter membership portfolio testimonials faq calendar donation"
).split(" ");
/** The most-reported plugins (many advisories each), then a middle tier, then a long tail. */
const TOP_PLUGINS = [
  "woocommerce",
  "elementor",
  "contact-form-7",
  "wordpress-seo",
  "jetpack",
  "essential-addons-for-elementor-lite",
  "all-in-one-seo-pack",
  "wpforms-lite",
  "wp-file-manager",
  "ultimate-member",
  "wp-super-cache",
  "updraftplus",
  "ninja-forms",
  "the-events-calendar",
  "forminator",
  "litespeed-cache",
  "wordfence",
  "really-simple-ssl",
  "duplicator",
  "classic-editor",
];
const MIDDLE_PLUGINS = Array.from({ length: 300 }, (_, i) => `${pick(VENDORS)}-${pick(NOUNS)}-m${i}`);
const TAIL_PLUGINS = 14_000;
const THEMES = 1_500;
const CVSS = [
  { vector: "CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N", score: 6.4, rating: "Medium" },
  { vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", score: 6.1, rating: "Medium" },
  { vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", score: 9.8, rating: "Critical" },
  { vector: "CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:N/A:N", score: 4.9, rating: "Medium" },
  { vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:L/A:N", score: 5.3, rating: "Medium" },
  { vector: "CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", score: 8.8, rating: "High" },
  { vector: "CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N", score: 3.1, rating: "Low" },
  { vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N", score: 7.5, rating: "High" },
];
const CWES = [
  { id: 79, name: "Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')" },
  { id: 89, name: "Improper Neutralization of Special Elements used in an SQL Command ('SQL Injection')" },
  { id: 862, name: "Missing Authorization" },
  { id: 352, name: "Cross-Site Request Forgery (CSRF)" },
  { id: 918, name: "Server-Side Request Forgery (SSRF)" },
  { id: 434, name: "Unrestricted Upload of File with Dangerous Type" },
];
const DEFIANT = {
  notice: "Copyright 2012-2026 Defiant Inc.",
  license:
    "Defiant hereby grants you a perpetual, worldwide, non-exclusive, no-charge, royalty-free, irrevocable copyright license to reproduce, prepare derivative works of, publicly display, publicly perform, sublicense, and distribute this software vulnerability information. Any copy of the software vulnerability information you make for such purposes is authorized provided that you include a hyperlink to this vulnerability record and reproduce Defiant's copyright designation and this license in any such copy.",
  license_url: "https://www.wordfence.com/wordfence-intelligence-terms-and-conditions/#section-1-1",
};
const MITRE = {
  notice: "Copyright 1999-2026 The MITRE Corporation",
  license:
    "CVE Usage: MITRE hereby grants you a perpetual, worldwide, non-exclusive, no-charge, royalty-free, irrevocable copyright license to reproduce, prepare derivative works of, publicly display, publicly perform, sublicense, and distribute Common Vulnerabilities and Exposures (CVE®). Any copy you make for such purposes is authorized provided that you reproduce MITRE's copyright designation and this license in any such copy.",
  license_url: "https://www.cve.org/Legal/TermsOfUse",
};

function pluginSlug(): string {
  const r = random();
  if (r < 0.015) return pick(TOP_PLUGINS);
  if (r < 0.095) return pick(MIDDLE_PLUGINS);
  const i = int(0, TAIL_PLUGINS - 1);
  return `${VENDORS[i % VENDORS.length]}-${NOUNS[(i * 7) % NOUNS.length]}-${i}`;
}

const version = () => `${int(0, 9)}.${int(0, 20)}.${int(0, 15)}`;
const title = (name: string) => name.replace(/-/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());

function software(type: "plugin" | "theme" | "core") {
  const theme = int(0, THEMES - 1);
  const slug =
    type === "core" ? "wordpress" : type === "theme" ? `${NOUNS[theme % NOUNS.length]}-theme-${theme}` : pluginSlug();
  const ranges: Record<string, unknown> = {};
  const patched: string[] = [];
  const count = type === "core" ? int(1, 6) : random() < 0.9 ? 1 : 2;
  for (let i = 0; i < count; i++) {
    const to = version();
    const bounded = type === "core" || random() < 0.15;
    const from = bounded ? `${to.split(".").slice(0, 2).join(".")}` : "*";
    ranges[`${from} - ${to}`] = { from_version: from, from_inclusive: true, to_version: to, to_inclusive: true };
    if (random() < 0.8) patched.push(`${to}.1`);
  }
  return {
    type,
    name: type === "core" ? "WordPress Core" : title(slug),
    slug,
    affected_versions: ranges,
    patched: patched.length > 0,
    patched_versions: patched,
    remediation:
      patched.length > 0
        ? `Update to version ${patched.join(", ")}, or a newer patched version`
        : "No known patch available. Please review the vulnerability's details in depth and employ mitigations based on your organization's risk tolerance. It may be best to uninstall the affected software and find a replacement.",
  };
}

function date(): string {
  const at = new Date(Date.UTC(2015, 0, 1) + random() * 11.5 * 365 * 86_400_000);
  return at.toISOString().slice(0, 19).replace("T", " ");
}

function record(id: string) {
  const entries = random() < 0.85 ? 1 : random() < 0.67 ? 2 : 3;
  const first = random();
  const type = first < 0.004 ? "core" : first < 0.084 ? "theme" : "plugin";
  const items = Array.from({ length: entries }, () => software(type));
  const cve = random() < 0.75 ? `CVE-${int(2015, 2026)}-${int(1000, 99999)}` : null;
  const cwe =
    random() < 0.9
      ? {
          ...pick(CWES),
          description:
            "The product does not neutralize or incorrectly neutralizes user-controllable input before it is placed in output.",
        }
      : null;
  const cvss = random() < 0.97 ? pick(CVSS) : null;
  const words = int(80, 265);
  const description = Array.from({ length: words }, () => pick(WORDS)).join(" ");
  const name = items[0]?.name ?? "";
  const upTo = (Object.values(items[0]?.affected_versions ?? {})[0] as { to_version: string } | undefined)?.to_version;
  const published = date();
  return {
    id,
    title: `${name} <= ${upTo} - ${cwe?.name ?? "Vulnerability"}`,
    software: items,
    informational: random() < 0.01,
    description: `${type === "core" ? "WordPress Core" : `The ${name} ${type} for WordPress`} is vulnerable: ${description}.`,
    references: [
      `https://www.wordfence.com/threat-intel/vulnerabilities/id/${id}?source=api-prod`,
      ...Array.from(
        { length: int(0, 3) },
        () => `https://plugins.trac.wordpress.org/changeset/${int(1_000_000, 3_200_000)}/${items[0]?.slug}/trunk`,
      ),
    ],
    cwe,
    cvss,
    cve,
    cve_link: cve ? `https://www.cve.org/CVERecord?id=${cve}` : null,
    researchers: Array.from({ length: int(1, 2) }, () => `${title(pick(NOUNS))} ${title(pick(WORDS))}`),
    published,
    updated: published,
    copyrights: {
      message: "This record contains material that is subject to copyright",
      defiant: DEFIANT,
      ...(cve ? { mitre: MITRE } : {}),
    },
  };
}

/** Writes the feed, streaming (1 MB writes), until it reaches `bytes`. */
function writeFeed(file: string, bytes: number): { size: number; records: number } {
  const fd = openSync(file, "w");
  let buffer = "{\n";
  let size = 0;
  let records = 0;
  const flush = () => {
    size += writeSync(fd, buffer);
    buffer = "";
  };
  while (size + Buffer.byteLength(buffer) < bytes - 4096) {
    const id = uuid();
    buffer += `${records === 0 ? "" : ",\n"}${JSON.stringify(id)}:${JSON.stringify(record(id))}`;
    records++;
    if (buffer.length >= MB) flush();
  }
  buffer += "\n}\n";
  flush();
  closeSync(fd);
  return { size, records };
}

// ---------------------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------------------
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fmt = (n: number) => n.toLocaleString("en-US");
const verdict = (ok: boolean) => (ok ? "met" : "MISSED");

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

function duBytes(dir: string): number {
  const out = Bun.spawnSync(["du", "-sb", dir]).stdout.toString();
  return Number(out.split("\t")[0] ?? 0);
}

async function child<T>(args: string[], env: Record<string, string>): Promise<T & { wallMs: number }> {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, import.meta.path, ...args], {
    env: { ...process.env, LOG_LEVEL: "silent", DB_POOL_MAX: "4", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const output = await new Response(proc.stdout).text();
  const code = await proc.exited;
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`the child (${args.join(" ")}) exited with ${code}`);
  return { ...(JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as T), wallMs };
}

const childImport = (file: string, env: Record<string, string>) => child<ChildResult>(["--child-import", file], env);

/** A site running the big names, a few less common plugins, some the feed does not know, one theme. */
const QUERY: IntelQuery = {
  wordpress: true,
  plugins: [
    "woocommerce",
    "elementor",
    "contact-form-7",
    MIDDLE_PLUGINS[3] as string,
    MIDDLE_PLUGINS[42] as string,
    MIDDLE_PLUGINS[117] as string,
    MIDDLE_PLUGINS[250] as string,
    "akismet",
    "site-kit-by-google",
    "custom-post-type-ui",
    "redirection",
    "safe-svg",
    "wp-mail-smtp",
    "my-company-blocks",
    "acme-internal-tools",
  ],
  themes: [`${NOUNS[7 % NOUNS.length]}-theme-7`],
};

interface LookupTimes {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

interface LookupResult {
  /** Right after the re-import: the old generation's rows are deleted but not vacuumed yet. */
  asImported: LookupTimes;
  /** After VACUUM ANALYZE (what autovacuum gives a PostgreSQL server some time later). */
  vacuumed: LookupTimes;
  vacuumMs: number;
  advisories: { wordpress: number; plugins: number; themes: number };
  componentsHit: number;
}

async function timeLookups(service: IntelService): Promise<LookupTimes> {
  for (let i = 0; i < 20; i++) await service.lookup(QUERY);
  const times: number[] = [];
  for (let i = 0; i < lookups; i++) {
    const started = performance.now();
    await service.lookup(QUERY);
    times.push(performance.now() - started);
  }
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    mean: times.reduce((sum, t) => sum + t, 0) / times.length,
  };
}

async function measureLookups(env: Record<string, string>): Promise<LookupResult> {
  const db = await openDatabase(loadConfig({ ...env, DB_POOL_MAX: "4" }).platform, silentLogger, { role: "cli" });
  try {
    const store = new IntelStore(db.sql);
    const service = new IntelService(store, new LatestVersions(store, null, silentLogger), 1_500);
    const intel = await service.lookup(QUERY);
    const asImported = await timeLookups(service);
    const started = performance.now();
    await db.sql.unsafe("vacuum analyze intel_advisories");
    const vacuumMs = performance.now() - started;
    const vacuumed = await timeLookups(service);
    const count = (components: Iterable<{ vulnerabilities: unknown[] } | null>) =>
      [...components].reduce((sum, component) => sum + (component?.vulnerabilities.length ?? 0), 0);
    const hit = [intel.wordpress, ...intel.plugins.values(), ...intel.themes.values()].filter(
      (component) => component !== null && component.vulnerabilities.length > 0,
    );
    return {
      asImported,
      vacuumed,
      vacuumMs,
      advisories: {
        wordpress: count([intel.wordpress]),
        plugins: count(intel.plugins.values()),
        themes: count(intel.themes.values()),
      },
      componentsHit: hit.length,
    };
  } finally {
    await db.close();
  }
}

const total = (lookup: LookupResult) =>
  lookup.advisories.wordpress + lookup.advisories.plugins + lookup.advisories.themes;

interface BackendResult {
  name: string;
  first: ChildResult & { wallMs: number };
  second: ChildResult & { wallMs: number };
  lookup: LookupResult;
  storage: number;
}

function printImport(label: string, run: ChildResult & { wallMs: number }) {
  console.log(
    `   ${label.padEnd(10)} ${fmt(run.records)} records → ${fmt(run.rows)} rows (${fmt(run.skipped)} skipped) in ${sec(run.importMs)}` +
      ` (process ${sec(run.wallMs)});  peak RSS ${mb(run.hwm)} [at start ${mb(run.rssStart)}, database open ${mb(run.rssOpen)}` +
      ` (peak ${mb(run.hwmOpen)}), after import ${mb(run.rssEnd)}, JS heap ${mb(run.heapUsedEnd)}]`,
  );
}

const times = (t: LookupTimes) =>
  `p50 ${t.p50.toFixed(2)} ms, p95 ${t.p95.toFixed(2)} ms, p99 ${t.p99.toFixed(2)} ms (mean ${t.mean.toFixed(2)} ms)`;

function printLookup(lookup: LookupResult) {
  const { wordpress, plugins, themes } = lookup.advisories;
  console.log(
    `   lookup     answer: ${total(lookup)} advisories (core ${wordpress}, plugins ${plugins}, theme ${themes}) on ${lookup.componentsHit} components; ${lookups} sequential after 20 warm-up`,
  );
  console.log(`              as imported (old generation deleted, not vacuumed): ${times(lookup.asImported)}`);
  console.log(
    `              after VACUUM ANALYZE (${sec(lookup.vacuumMs)}):                 ${times(lookup.vacuumed)}`,
  );
}

// ---------------------------------------------------------------------------------------
// Main.
// ---------------------------------------------------------------------------------------
const work = mkdtempSync(path.join(tmpdir(), "wpreport-bench-intel-"));
const results: BackendResult[] = [];
try {
  let feed = existingFeed;
  let feedSize: number;
  let feedRecords: number | null = null;
  if (feed && existsSync(feed)) {
    feedSize = statSync(feed).size;
    console.log(`1. Feed: ${feed} (existing), ${mb(feedSize)}`);
  } else {
    feed ??= path.join(work, "vulnerabilities.production.json");
    const started = performance.now();
    const written = writeFeed(feed, feedMb * MB);
    feedSize = written.size;
    feedRecords = written.records;
    console.log(
      `1. Feed: synthetic Wordfence v3, ${mb(feedSize)}, ${fmt(written.records)} records (${fmt(Math.round(feedSize / written.records))} bytes each; real feed ≈ 160 MB / 42,500) written in ${sec(performance.now() - started)}`,
    );
  }
  console.log(
    `   lookup query: wordpress + ${QUERY.plugins.length} plugins (${QUERY.plugins.slice(0, 3).join(", ")}, …) + ${QUERY.themes.length} theme; WordPress.org off`,
  );

  for (const backend of backends) {
    if (backend === "postgres") {
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      const name = `wpreport_bench_intel_${Date.now().toString(36)}`;
      await admin.unsafe(`create database ${name}`);
      const dbUrl = new URL(adminUrl);
      dbUrl.pathname = `/${name}`;
      const env = { DATABASE_URL: dbUrl.toString() };
      try {
        console.log(`\n2. PostgreSQL (${dbUrl.host}, database ${name}, dropped afterwards)`);
        const first = await childImport(feed, env);
        printImport("import", first);
        const second = await childImport(feed, env);
        printImport("re-import", second);
        const client = postgres(dbUrl.toString(), { max: 1, onnotice: () => {} });
        const [row] = await client<{ bytes: string; autovacuum: string }[]>`
          select pg_total_relation_size('intel_advisories')::text as bytes, current_setting('autovacuum') as autovacuum`;
        await client.end();
        const storage = Number(row?.bytes ?? 0);
        console.log(
          `   storage    intel_advisories ${mb(storage)} (table + indexes, after the swap; autovacuum ${row?.autovacuum} on this server)`,
        );
        const lookup = await measureLookups(env);
        printLookup(lookup);
        results.push({ name: "PostgreSQL", first, second, lookup, storage });
      } finally {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    } else if (backend === "pglite") {
      const dataDir = path.join(work, "data");
      const env = { DATA_DIR: dataDir, DATABASE_URL: "" };
      console.log(`\n3. Embedded PGlite (DATA_DIR ${dataDir}, removed afterwards)`);
      const init = await child<{ openMs: number; rss: number; hwm: number }>(["--child-open"], env);
      console.log(
        `   new DATA_DIR: initdb + migrations ${sec(init.openMs)}, peak RSS ${mb(init.hwm)} (RSS then ${mb(init.rss)}; once per DATA_DIR, its own process)`,
      );
      const first = await childImport(feed, env);
      printImport("import", first);
      const second = await childImport(feed, env);
      printImport("re-import", second);
      const storage = duBytes(path.join(dataDir, "pglite"));
      console.log(`   storage    DATA_DIR/pglite ${mb(storage)} (whole database, after the swap)`);
      const lookup = await measureLookups(env);
      printLookup(lookup);
      results.push({ name: "PGlite", first, second, lookup, storage });
    } else {
      console.log(`\n(unknown backend "${backend}" in BENCH_BACKENDS: postgres, pglite)`);
    }
  }

  console.log("\n4. Summary (docs/benchmarks.md)\n");
  const records = feedRecords ?? results[0]?.first.records ?? 0;
  console.log(`Synthetic Wordfence v3 feed: ${mb(feedSize)}, ${fmt(records)} records.\n`);
  for (const r of results) {
    const peak = Math.max(r.first.hwm, r.second.hwm);
    const { vacuumed } = r.lookup;
    console.log(
      `${r.name}: ${mb(feedSize)}, ${fmt(r.first.records)} records in ${sec(r.first.importMs)} (re-import ${sec(r.second.importMs)}), ` +
        `peak RSS ${mb(peak)} (goal ≤ ${GOAL_RSS_MB} MB: ${verdict(peak <= GOAL_RSS_MB * MB)}); ` +
        `lookup p50 ${vacuumed.p50.toFixed(1)} ms, p95 ${vacuumed.p95.toFixed(1)} ms (goal ≤ ${GOAL_LOOKUP_MS} ms: ${verdict(vacuumed.p95 <= GOAL_LOOKUP_MS)})`,
    );
  }
  console.log("");
  console.log(
    `| backend | import | re-import | peak RSS, import / re-import (goal ≤ ${GOAL_RSS_MB} MB) | lookup p50 / p95, vacuumed (goal ≤ ${GOAL_LOOKUP_MS} ms) | lookup p50 / p95, right after re-import |`,
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const r of results) {
    const peak = Math.max(r.first.hwm, r.second.hwm);
    const { vacuumed, asImported } = r.lookup;
    console.log(
      `| ${r.name} | ${sec(r.first.importMs)} | ${sec(r.second.importMs)} | ${mb(r.first.hwm)} / ${mb(r.second.hwm)} (${verdict(peak <= GOAL_RSS_MB * MB)}) | ` +
        `${vacuumed.p50.toFixed(1)} / ${vacuumed.p95.toFixed(1)} ms (${verdict(vacuumed.p95 <= GOAL_LOOKUP_MS)}) | ${asImported.p50.toFixed(1)} / ${asImported.p95.toFixed(1)} ms |`,
    );
  }
  const lookup = results[0]?.lookup;
  console.log(
    `\nLookup: core + ${QUERY.plugins.length} plugins + ${QUERY.themes.length} theme → ${lookup ? total(lookup) : 0} advisories` +
      ` (core ${lookup?.advisories.wordpress ?? 0}), WordPress.org off, ${lookups} sequential after a warm-up; p95 is held to the goal.` +
      ` Peak RSS: VmHWM of the import process (a fresh \`bun\`: runtime, driver, migrations${backends.includes("pglite") ? "; for PGlite also the WASM engine" : ""}).`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
