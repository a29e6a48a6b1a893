/**
 * Comparison benchmark: our analyzer, Lighthouse and simple-wappalyzer on the same site in
 * the same run. Prints the wall time of each, the ratio to ours, and what each found
 * (WordPress version, theme, plugins).
 *
 *   npm run bench:compare                          # needs the fixture at http://127.0.0.1:8088/
 *   BENCH_URL=http://localhost:8090/ npm run bench:compare
 *
 * Lighthouse drives Debian's Chromium (`apt-get install -y chromium`; CHROME_PATH overrides
 * /usr/bin/chromium) through chrome-launcher — never a downloaded browser. simple-wappalyzer
 * gets the homepage we fetch for it (it does no network itself) and its bundled rules.
 * A tool that cannot run here is reported as unavailable, with the reason, and the others go on.
 *
 * Lighthouse (≈150 MB) and simple-wappalyzer are needed by this script alone, so they are not
 * project dependencies: the first run installs the pinned versions below into
 * bench/.compare-tools/ (git-ignored) with npm, and later runs reuse them.
 *
 * Wall times are medians over BENCH_RUNS (default 5) for ours and simple-wappalyzer and over
 * BENCH_LIGHTHOUSE_RUNS (default 3) for Lighthouse, each after one warm-up run. Lighthouse's
 * time includes launching and closing Chromium, which every Lighthouse report pays.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type AnalysisResult, analyze } from "../server/analyzer/analyze.ts";
import { createSafeAgent } from "../server/analyzer/fetch/safe-agent.ts";
import { TargetPolicy } from "../server/analyzer/fetch/target-policy.ts";
import { ANALYZER_USER_AGENT as USER_AGENT } from "../server/analyzer/user-agent.ts";

const url = process.env.BENCH_URL ?? "http://127.0.0.1:8088/";
const runs = Number(process.env.BENCH_RUNS ?? 5);
const lighthouseRuns = Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3);
const chromePath = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"];

interface Outcome {
  tool: string;
  /** Median wall time of one report, ms; null when the tool could not run. */
  wall: number | null;
  wordpress: string;
  theme: string;
  plugins: string;
  notes: string[];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};
const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";

/** Runs `once` warm-up + n times; returns the median wall time and the last result. */
async function timed<T>(n: number, once: () => Promise<T>): Promise<{ wall: number; last: T; walls: number[] }> {
  let last = await once();
  const walls: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    last = await once();
    walls.push(performance.now() - started);
  }
  return { wall: median(walls), last, walls };
}

// ---------------------------------------------------------------------------------------
// Ours.
// ---------------------------------------------------------------------------------------
async function ours(): Promise<Outcome> {
  const policy = new TargetPolicy((process.env.TARGET_ALLOWLIST ?? "127.0.0.1,localhost").split(","));
  const agent = createSafeAgent(policy);
  try {
    const { wall, last } = await timed<AnalysisResult>(runs, () =>
      analyze(url, { agent, policy, userAgent: USER_AGENT }, AbortSignal.timeout(60_000)),
    );
    const { wordpress, theme, plugins } = last;
    return {
      tool: "wpreport analyzer",
      wall,
      wordpress: wordpress?.detected ? (wordpress.version ?? "detected, version unknown") : "not detected",
      theme: theme ? `${theme.slug} ${theme.version ?? ""}`.trim() : "—",
      plugins: plugins.map((plugin) => `${plugin.slug}${plugin.version ? ` ${plugin.version}` : ""}`).join(", ") || "—",
      notes: [
        `${last.performance?.requests.length ?? 0} requests, ${last.checks.length} checks, score ${last.summary?.score ?? "—"}`,
      ],
    };
  } catch (error) {
    return unavailable("wpreport analyzer", message(error));
  } finally {
    await agent.close();
  }
}

// ---------------------------------------------------------------------------------------
// The compared tools, installed on demand (not in every `npm install` of the project).
// ---------------------------------------------------------------------------------------
const TOOLS_DIR = join(import.meta.dir, ".compare-tools");
const TOOL_VERSIONS = { lighthouse: "12.8.2", "chrome-launcher": "1.2.1", "simple-wappalyzer": "1.1.103" };

/** Installs the compared tools once (npm, pinned versions); returns why not when it could not. */
function installTools(): string | null {
  const installed = Object.keys(TOOL_VERSIONS).every((name) => existsSync(join(TOOLS_DIR, "node_modules", name)));
  if (installed) return null;
  mkdirSync(TOOLS_DIR, { recursive: true });
  writeFileSync(join(TOOLS_DIR, "package.json"), `${JSON.stringify({ private: true, type: "module" })}\n`);
  const specs = Object.entries(TOOL_VERSIONS).map(([name, version]) => `${name}@${version}`);
  console.error(`bench:compare: installing ${specs.join(", ")} into ${TOOLS_DIR} (once)…`);
  const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--prefix", TOOLS_DIR, ...specs], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  return npm.status === 0 ? null : `npm install of ${specs.join(", ")} failed (exit ${npm.status})`;
}

/** Imports a compared tool from bench/.compare-tools (never from the project's node_modules). */
async function importTool(name: keyof typeof TOOL_VERSIONS): Promise<unknown> {
  const resolved = createRequire(join(TOOLS_DIR, "package.json")).resolve(name);
  return import(pathToFileURL(resolved).href);
}

// ---------------------------------------------------------------------------------------
// Lighthouse on Debian's Chromium.
// ---------------------------------------------------------------------------------------
interface TableDetails {
  items?: { name?: string; version?: string }[];
}
/** The parts of Lighthouse's result (LHR) and of chrome-launcher this script reads. */
interface LighthouseResult {
  lighthouseVersion: string;
  runtimeError?: { code: string; message: string };
  audits: Record<string, { details?: unknown } | undefined>;
  categories: Record<string, { score: number | null }>;
  stackPacks?: { id: string }[];
  runWarnings: string[];
}
type Lighthouse = (
  url: string,
  flags: { port: number; output: "json"; logLevel: "error" },
) => Promise<{ lhr: LighthouseResult } | undefined>;
type LaunchChrome = (options: {
  chromePath: string;
  chromeFlags: string[];
  logLevel: "silent";
}) => Promise<{ port: number; kill(): void }>;

async function lighthouseTool(): Promise<Outcome> {
  const tool = "Lighthouse";
  if (!existsSync(chromePath)) {
    return unavailable(tool, `no browser at ${chromePath} (apt-get install -y chromium); none is downloaded`);
  }
  let lighthouse: Lighthouse;
  let launch: LaunchChrome;
  try {
    lighthouse = ((await importTool("lighthouse")) as { default: Lighthouse }).default;
    launch = ((await importTool("chrome-launcher")) as { launch: LaunchChrome }).launch;
  } catch (error) {
    return unavailable(tool, `cannot load lighthouse/chrome-launcher: ${message(error)}`);
  }
  const launchTimes: number[] = [];
  const once = async () => {
    const started = performance.now();
    const chrome = await launch({ chromePath, chromeFlags: CHROME_FLAGS, logLevel: "silent" });
    launchTimes.push(performance.now() - started);
    try {
      const result = await lighthouse(url, { port: chrome.port, output: "json", logLevel: "error" });
      if (!result) throw new Error("Lighthouse returned no result");
      if (result.lhr.runtimeError)
        throw new Error(`${result.lhr.runtimeError.code}: ${result.lhr.runtimeError.message}`);
      return result.lhr;
    } finally {
      chrome.kill();
    }
  };
  try {
    const { wall, last } = await timed(lighthouseRuns, once);
    // Lighthouse knows stacks, not components: its js-libraries audit names WordPress (and a
    // version when the page gives one) for the WordPress stack pack; no theme, no plugins.
    const libraries = ((last.audits["js-libraries"]?.details as TableDetails | undefined)?.items ?? []).map(
      (item) => `${item.name ?? "?"}${item.version ? ` ${item.version}` : ""}`,
    );
    const wp = libraries.find((library) => /^wordpress/i.test(library));
    const scores = Object.entries(last.categories)
      .map(([id, category]) => `${id} ${category.score === null ? "—" : Math.round(category.score * 100)}`)
      .join(", ");
    return {
      tool: `Lighthouse ${last.lighthouseVersion}`,
      wall,
      wordpress: wp ? wp.replace(/^wordpress\s*/i, "") || "detected, version unknown" : "not detected",
      theme: "— (not in its model)",
      plugins: "— (not in its model)",
      notes: [
        `Chromium launch ${Math.round(median(launchTimes))} ms of it; stack packs: ${last.stackPacks?.map((pack) => pack.id).join(", ") || "none"}`,
        scores,
        ...(last.runWarnings.length > 0 ? [`warnings: ${last.runWarnings.join(" | ").slice(0, 200)}`] : []),
      ],
    };
  } catch (error) {
    return unavailable(tool, message(error));
  }
}

// ---------------------------------------------------------------------------------------
// simple-wappalyzer: Wappalyzer's rules on one fetched homepage (HTML, headers, cookies).
// ---------------------------------------------------------------------------------------
interface Technology {
  name: string;
  version: string;
  categories: { name: string }[];
}
type Wappalyze = (input: {
  url: string;
  html: string;
  headers: Record<string, string | string[]>;
}) => Promise<Technology[]>;

async function wappalyzerTool(): Promise<Outcome> {
  const tool = "simple-wappalyzer";
  let wappalyze: Wappalyze;
  const loadStarted = performance.now();
  try {
    const loaded = (await importTool("simple-wappalyzer")) as { default?: Wappalyze } & Wappalyze;
    wappalyze = loaded.default ?? loaded;
  } catch (error) {
    return unavailable(tool, `cannot load: ${message(error)}`);
  }
  const loadMs = performance.now() - loadStarted;
  const once = async () => {
    // What a Wappalyzer-based service does per report: fetch the page, run the rules.
    const response = await fetch(url, { headers: { "user-agent": USER_AGENT } });
    const html = await response.text();
    const headers: Record<string, string | string[]> = Object.fromEntries(response.headers);
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) headers["set-cookie"] = cookies;
    return wappalyze({ url: response.url || url, html, headers });
  };
  try {
    const { wall, last } = await timed(runs, once);
    const inCategory = (pattern: RegExp) =>
      last
        .filter((tech) => tech.categories.some((category) => pattern.test(category.name)))
        .map((tech) => `${tech.name}${tech.version ? ` ${tech.version}` : ""}`);
    const wp = last.find((tech) => tech.name === "WordPress");
    return {
      tool,
      wall,
      wordpress: wp ? wp.version || "detected, version unknown" : "not detected",
      theme: inCategory(/wordpress themes/i).join(", ") || "—",
      plugins: inCategory(/wordpress plugins/i).join(", ") || "—",
      notes: [
        `homepage only (1 request); loading its 3 MB rule set took ${Math.round(loadMs)} ms once`,
        // wappalyzer-core sets aside every rule that `requires` another technology (all
        // "WordPress themes" and "WordPress plugins" rules require WordPress) for a second
        // pass that Wappalyzer's own drivers make; simple-wappalyzer makes only the first.
        "theme and plugin rules require WordPress and run only in a second pass, which simple-wappalyzer does not make",
        `also: ${
          last
            .filter((tech) => !tech.categories.some((category) => /wordpress (themes|plugins)/i.test(category.name)))
            .filter((tech) => tech.name !== "WordPress")
            .map((tech) => `${tech.name}${tech.version ? ` ${tech.version}` : ""}`)
            .join(", ") || "—"
        }`,
      ],
    };
  } catch (error) {
    return unavailable(tool, message(error));
  }
}

function unavailable(tool: string, reason: string): Outcome {
  return { tool, wall: null, wordpress: "—", theme: "—", plugins: "—", notes: [`UNAVAILABLE: ${reason}`] };
}

// ---------------------------------------------------------------------------------------
// Run all three (one after the other, so they do not compete for the 2 cores) and print.
// ---------------------------------------------------------------------------------------
const started = performance.now();
console.log(`bench:compare — ${url}`);
const notInstalled = installTools();
const results = [
  await ours(),
  notInstalled ? unavailable("simple-wappalyzer", notInstalled) : await wappalyzerTool(),
  notInstalled ? unavailable("Lighthouse", notInstalled) : await lighthouseTool(),
];
const base = results[0]?.wall ?? null;

const columns = ["tool", "wall p50", "× ours", "WordPress", "theme", "plugins"] as const;
const rows = results.map((result) => [
  result.tool,
  result.wall === null ? "n/a" : `${Math.round(result.wall)} ms`,
  result.wall === null || base === null ? "n/a" : `${(result.wall / base).toFixed(result.wall / base < 10 ? 2 : 0)}×`,
  result.wordpress,
  result.theme,
  result.plugins,
]);
const widths = columns.map((column, i) => Math.max(column.length, ...rows.map((row) => (row[i] ?? "").length)));
const line = (cells: readonly string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(" | ")} |`;
console.log(line(columns));
console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
for (const row of rows) console.log(line(row));
console.log("");
for (const result of results) for (const note of result.notes) console.log(`${result.tool}: ${note}`);
console.log(
  `\n(${runs} timed runs for ours and simple-wappalyzer, ${lighthouseRuns} for Lighthouse, each after a warm-up; total ${Math.round((performance.now() - started) / 1000)} s)`,
);
process.exit(0);
