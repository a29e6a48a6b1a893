/**
 * Lab benchmark: our lab run (server/analyzer/lab/lab-run.ts) and Lighthouse 12 on the same
 * pages, in one run, on the same Debian Chromium, with the same settings. Prints LCP, FCP, CLS
 * and TBT of both, the wall time per page and the peak RSS of each tool (its process and the
 * browser it starts), unthrottled and with the mobile throttling.
 *
 *   npm run bench:lab                         # the fixture at http://127.0.0.1:8088/ and loopback pages
 *   BENCH_LAB_RUNS=3 npm run bench:lab        # loads per page and tool (median), default 3
 *
 * Pages: the WordPress fixture, a page with a known layout shift (≈0.24 on the mobile viewport)
 * and one with a known 450 ms long task after first paint (test/analyzer/lab/pages.ts).
 *
 * Settings, the same for both tools: mobile emulation (412×823, DPR 1.75); "none" is no
 * throttling (Lighthouse: throttlingMethod provided), "mobile" is CPU 4× and 150 ms latency,
 * 1.6 Mbps down, 750 kbps up applied by Chromium (Lighthouse: throttlingMethod devtools with
 * those figures), since the lab applies throttling rather than simulating it
 * (docs/decisions.md, "Lab runs").
 *
 * Lighthouse is installed as bench:compare installs it (pinned, into bench/.compare-tools/,
 * never a project dependency); when it cannot be loaded, ours is printed alone.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { extractLab } from "../server/analyzer/extract/lab.ts";
import { TargetPolicy } from "../server/analyzer/fetch/target-policy.ts";
import { runLab } from "../server/analyzer/lab/lab-run.ts";
import { processTreeRssMb } from "../server/analyzer/lab/process-memory.ts";
import type { LabThrottling } from "../shared/report.ts";
import { startLabPages } from "../test/analyzer/lab/pages.ts";

const runs = Number(process.env.BENCH_LAB_RUNS ?? 3);
const chromePath = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const fixture = process.env.BENCH_URL ?? "http://127.0.0.1:8088/";
const TOOLS_DIR = join(import.meta.dir, ".compare-tools");
const TOOL_VERSIONS = { lighthouse: "12.8.2", "chrome-launcher": "1.2.1" };

interface Figures {
  lcp: number | null;
  fcp: number | null;
  cls: number;
  tbt: number;
  /** Median wall time of one load, ms (Lighthouse: launch, load, audit, close). */
  wall: number;
  /** Peak resident MB of this process and its children during the tool's loads. */
  rss: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};
const medianOrNull = (values: (number | null)[]) => {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : median(known);
};

/** Samples the RSS of this process's tree while `work` runs; returns its peak. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = processTreeRssMb(process.pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, processTreeRssMb(process.pid));
  }, 100);
  try {
    return { result: await work(), peak };
  } finally {
    clearInterval(timer);
  }
}

async function ours(url: string, allow: string[], throttling: LabThrottling): Promise<Figures> {
  const policy = new TargetPolicy(allow);
  const loads: Figures[] = [];
  const { peak } = await peakRss(async () => {
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const capture = await runLab(url, {
        executablePath: chromePath,
        policy,
        device: "mobile",
        throttling,
        runs: 1,
        timeoutMs: 120_000,
        maxMemoryMb: 4096,
        maxBytes: 64 * 1024 * 1024,
        userAgentName: "wpreport-lab-bench",
      });
      const wall = performance.now() - started;
      const metrics = extractLab(capture, null, new URL(url).origin).metrics;
      if (!metrics) throw new Error(`our lab run failed: ${capture.reason}`);
      loads.push({ lcp: metrics.lcp_ms, fcp: metrics.fcp_ms, cls: metrics.cls, tbt: metrics.tbt_ms, wall, rss: 0 });
    }
  });
  return summarise(loads, peak);
}

function summarise(loads: Figures[], peak: number): Figures {
  return {
    lcp: medianOrNull(loads.map((load) => load.lcp)),
    fcp: medianOrNull(loads.map((load) => load.fcp)),
    cls: median(loads.map((load) => load.cls)),
    tbt: median(loads.map((load) => load.tbt)),
    wall: median(loads.map((load) => load.wall)),
    rss: peak,
  };
}

// ---------------------------------------------------------------------------------------
// Lighthouse, installed on demand as bench:compare does.
// ---------------------------------------------------------------------------------------
function installTools(): string | null {
  const installed = Object.keys(TOOL_VERSIONS).every((name) => existsSync(join(TOOLS_DIR, "node_modules", name)));
  if (installed) return null;
  mkdirSync(TOOLS_DIR, { recursive: true });
  if (!existsSync(join(TOOLS_DIR, "package.json")))
    writeFileSync(join(TOOLS_DIR, "package.json"), `${JSON.stringify({ private: true, type: "module" })}\n`);
  const specs = Object.entries(TOOL_VERSIONS).map(([name, version]) => `${name}@${version}`);
  console.error(`bench:lab: installing ${specs.join(", ")} into ${TOOLS_DIR} (once)…`);
  const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--prefix", TOOLS_DIR, ...specs], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  return npm.status === 0 ? null : `npm install of ${specs.join(", ")} failed (exit ${npm.status})`;
}

async function importTool(name: keyof typeof TOOL_VERSIONS): Promise<unknown> {
  const resolved = createRequire(join(TOOLS_DIR, "package.json")).resolve(name);
  return import(pathToFileURL(resolved).href);
}

interface Audit {
  numericValue?: number;
}
type Lighthouse = (
  url: string,
  flags: { port: number; output: "json"; logLevel: "error"; onlyCategories: string[] },
  config?: unknown,
) => Promise<{ lhr: { audits: Record<string, Audit | undefined>; runtimeError?: { message: string } } } | undefined>;
type LaunchChrome = (options: {
  chromePath: string;
  chromeFlags: string[];
  logLevel: "silent";
}) => Promise<{ port: number; kill(): void }>;

async function lighthouseTool(): Promise<
  ((url: string, throttling: LabThrottling) => Promise<Figures>) | { unavailable: string }
> {
  const why = installTools();
  if (why) return { unavailable: why };
  let lighthouse: Lighthouse;
  let launch: LaunchChrome;
  try {
    lighthouse = ((await importTool("lighthouse")) as { default: Lighthouse }).default;
    launch = ((await importTool("chrome-launcher")) as { launch: LaunchChrome }).launch;
  } catch (error) {
    return { unavailable: `cannot load lighthouse/chrome-launcher: ${(error as Error).message}` };
  }
  return async (url, throttling) => {
    const settings =
      throttling === "none"
        ? { throttlingMethod: "provided" }
        : {
            throttlingMethod: "devtools",
            throttling: {
              rttMs: 150,
              throughputKbps: 1638.4,
              requestLatencyMs: 150,
              downloadThroughputKbps: 1638.4,
              uploadThroughputKbps: 750,
              cpuSlowdownMultiplier: 4,
            },
          };
    const config = { extends: "lighthouse:default", settings: { onlyCategories: ["performance"], ...settings } };
    const loads: Figures[] = [];
    const { peak } = await peakRss(async () => {
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        const chrome = await launch({
          chromePath,
          chromeFlags: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
          logLevel: "silent",
        });
        try {
          const result = await lighthouse(
            url,
            { port: chrome.port, output: "json", logLevel: "error", onlyCategories: ["performance"] },
            config,
          );
          const audits = result?.lhr.audits ?? {};
          if (result?.lhr.runtimeError) throw new Error(result.lhr.runtimeError.message);
          loads.push({
            lcp: audits["largest-contentful-paint"]?.numericValue ?? null,
            fcp: audits["first-contentful-paint"]?.numericValue ?? null,
            cls: audits["cumulative-layout-shift"]?.numericValue ?? 0,
            tbt: audits["total-blocking-time"]?.numericValue ?? 0,
            wall: 0,
            rss: 0,
          });
        } finally {
          chrome.kill();
        }
        (loads.at(-1) as Figures).wall = performance.now() - started;
      }
    });
    return summarise(loads, peak);
  };
}

// ---------------------------------------------------------------------------------------

const ms = (value: number | null) => (value === null ? "—" : `${Math.round(value)}`);
const within = (a: number | null, b: number | null, share: number, floor: number) =>
  a === null || b === null ? "—" : Math.abs(a - b) <= Math.max(share * b, floor) ? "yes" : "no";

const pages = startLabPages();
const targets = [
  { name: "WordPress fixture", url: fixture, allow: [new URL(fixture).host] },
  { name: "known layout shift", url: `${pages.origin}/shift-only/`, allow: [`127.0.0.1:${pages.port}`] },
  { name: "known long task", url: `${pages.origin}/long-task/`, allow: [`127.0.0.1:${pages.port}`] },
];
const lighthouse = await lighthouseTool();
if ("unavailable" in lighthouse) console.log(`Lighthouse unavailable: ${lighthouse.unavailable}\n`);
console.log(
  `bench:lab — ${runs} load(s) per page, tool and setting (medians); mobile emulation; Chromium ${chromePath}`,
);
console.log(
  "| Page | Setting | Tool | LCP ms | FCP ms | CLS | TBT ms | Wall ms/page | Peak RSS MB | within ±20 %/100 ms (LCP, FCP, TBT), CLS ±0.02 |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
try {
  for (const throttling of ["none", "default"] as const) {
    for (const target of targets) {
      const mine = await ours(target.url, target.allow, throttling);
      const setting = throttling === "none" ? "unthrottled" : "mobile throttling";
      let theirs: Figures | undefined;
      if (!("unavailable" in lighthouse)) theirs = await lighthouse(target.url, throttling);
      const agreement = theirs
        ? [
            within(mine.lcp, theirs.lcp, 0.2, 100),
            within(mine.fcp, theirs.fcp, 0.2, 100),
            within(mine.tbt, theirs.tbt, 0.2, 100),
            Math.abs(mine.cls - theirs.cls) <= 0.02 ? "yes" : "no",
          ].join(", ")
        : "";
      const row = (tool: string, f: Figures, note: string) =>
        console.log(
          `| ${target.name} | ${setting} | ${tool} | ${ms(f.lcp)} | ${ms(f.fcp)} | ${f.cls.toFixed(3)} | ${ms(f.tbt)} | ${Math.round(f.wall)} | ${Math.round(f.rss)} | ${note} |`,
        );
      row("wpreport lab", mine, agreement);
      if (theirs) row("Lighthouse 12", theirs, `wall ratio ours/LH ${(mine.wall / theirs.wall).toFixed(2)}`);
    }
  }
} finally {
  pages.stop();
}
