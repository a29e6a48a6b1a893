/**
 * Analyzer benchmark. Calls analyze() directly (no HTTP API, no database) against the
 * WordPress fixture and prints:
 *
 *   1. report wall time p50/p95 over BENCH_RUNS sequential reports, requests and bytes per
 *      report, connections opened and open at once, the HTTP version, the analyzer's own CPU
 *      per report and the whole machine's (the fixture's share, when the site runs on this machine);
 *   2. the critical-path lower bound (homepage + the slowest single request, each measured
 *      alone) and the ratio wall / lower bound;
 *   3. CPU time of the pure stages (buildResult: detect + extract + audit + score) on the saved
 *      artifacts and on a synthetic 2 MB homepage;
 *   4. peak RSS with BENCH_CONCURRENT analyses at once, in a fresh child process.
 *
 *   npm run bench:analyze                         # needs the fixture at http://127.0.0.1:8088/
 *   BENCH_URL=http://localhost:8090/ BENCH_RUNS=20 BENCH_CONCURRENT=20 npm run bench:analyze
 *   BENCH_URL=http://127.0.0.2:8092/ TARGET_ALLOWLIST=127.0.0.2:8092,127.0.0.3:8093 npm run bench:analyze   # the Bedrock-like fixture and its pull zone
 *   BENCH_RTT_MS=50 npm run bench:analyze                      # a "remote" site over HTTP/1.1
 *   BENCH_RTT_MS=50 BENCH_PROTOCOL=h2 npm run bench:analyze    # a remote site over HTTPS offering h2
 *   BENCH_RTT_MS=50 BENCH_PROTOCOL=h2 BENCH_SITE_CACHE=1 npm run bench:analyze   # … with a page cache
 *
 * The site is BENCH_URL, reached directly — or, with BENCH_RTT_MS or BENCH_PROTOCOL=h2, through
 * bench/rtt-proxy.ts (a child process) that delays every request by the round trip on the
 * connection carrying it; with h2 the proxy serves HTTPS (ALPN h2 and http/1.1) with a
 * certificate made here with openssl, which the bench's agent trusts (createSafeAgent's extraCa).
 * BENCH_SITE_CACHE=1 has the proxy replay answers it has seen (rtt-proxy.ts --cache): a site
 * whose CPU is not the limit, unlike the fixture sharing this machine's cores.
 * The target policy is TARGET_ALLOWLIST (default "127.0.0.1,localhost": loopback is otherwise
 * refused). BENCH_CONCURRENCY overrides the HTTP/1.1 in-flight limit (default: the connections
 * per site).
 *
 * Targets: wall ≤ 1.5 × the lower bound with BENCH_RTT_MS=50; detect+audit ≤ 50 ms for a 2 MB
 * page; ≤ 30 MB RSS per concurrent analysis. Figures, never assertions: the machine is shared,
 * so run it twice.
 */
import dc from "node:diagnostics_channel";
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import path from "node:path";
import { makeSelfSignedCertificate } from "../scripts/self-signed-certificate.ts";
import { type AnalysisResult, analyze, buildResult, detect, extract } from "../server/analyzer/analyze.ts";
import type { Artifacts } from "../server/analyzer/artifacts.ts";
import { runAudits } from "../server/analyzer/audit/index.ts";
import { createSafeAgent } from "../server/analyzer/fetch/safe-agent.ts";
import { DEFAULT_CLIENT_LIMITS } from "../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../server/analyzer/fetch/target-policy.ts";
import { pageOf } from "../server/analyzer/parse/page.ts";
import { summarise } from "../server/analyzer/score.ts";
import { ANALYZER_USER_AGENT as USER_AGENT } from "../server/analyzer/user-agent.ts";
import type { TimingRow } from "../shared/report.ts";

const siteUrl = process.env.BENCH_URL ?? "http://127.0.0.1:8088/";
const runs = Number(process.env.BENCH_RUNS ?? 20);
const concurrent = Number(process.env.BENCH_CONCURRENT ?? 20);
const artifactsFile = process.env.BENCH_ARTIFACTS ?? "test/analyzer/artifacts/wp-6.1.9-twentytwentyone.json";
const SYNTHETIC_BYTES = 2 * 1024 * 1024;

const policy = new TargetPolicy((process.env.TARGET_ALLOWLIST ?? "127.0.0.1,localhost").split(","));
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? DEFAULT_CLIENT_LIMITS.concurrency);
const limits = { ...DEFAULT_CLIENT_LIMITS, concurrency };
/** Every request alone: for the lower bound (see bounds()). */
const oneAtATime = { ...DEFAULT_CLIENT_LIMITS, concurrency: 1, multiplexedConcurrency: 1 };
const rttMs = Number(process.env.BENCH_RTT_MS ?? 0);
const protocol = process.env.BENCH_PROTOCOL === "h2" ? "h2" : "h1";

/**
 * The site as the analyses see it: BENCH_URL, or the RTT proxy before it (started here, or
 * handed down to the memory child through BENCH_TARGET / BENCH_CA_FILE).
 */
async function target(): Promise<{ url: string; ca?: string; stop(): void }> {
  if (process.env.BENCH_TARGET) {
    const caFile = process.env.BENCH_CA_FILE;
    return { url: process.env.BENCH_TARGET, ca: caFile ? readFileSync(caFile, "utf8") : undefined, stop() {} };
  }
  const cache = process.env.BENCH_SITE_CACHE === "1";
  if (rttMs <= 0 && protocol === "h1" && !cache) return { url: siteUrl, stop() {} };
  const args = [path.join(import.meta.dir, "rtt-proxy.ts"), siteUrl, String(rttMs)];
  if (cache) args.push("--cache");
  let ca: string | undefined;
  if (protocol === "h2") {
    // Debian's openssl: a throwaway self-signed certificate for localhost, trusted by this bench only.
    const certificate = makeSelfSignedCertificate("wpreport-bench-tls-");
    args.push("--tls", certificate.certFile, certificate.keyFile);
    ca = certificate.cert;
    process.env.BENCH_CA_FILE = certificate.certFile;
  }
  const proxy = Bun.spawn([process.execPath, ...args], { stdout: "pipe", stderr: "inherit" });
  const { value } = await proxy.stdout.getReader().read();
  const url = new TextDecoder().decode(value).trim();
  process.env.BENCH_TARGET = url;
  return { url, ca, stop: () => proxy.kill() };
}

const site = await target();
const url = site.url;
const safeAgent = createSafeAgent(policy, undefined, [], { extraCa: site.ca ? [site.ca] : [] });
const agent = safeAgent;
const runOnce = (clientLimits = limits): Promise<AnalysisResult> =>
  analyze(url, { agent, policy, userAgent: USER_AGENT, limits: clientLimits }, AbortSignal.timeout(60_000));

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
/** Nearest-rank percentile. */
const percentile = (values: number[], p: number) => {
  const list = sorted(values);
  return list[Math.min(list.length - 1, Math.max(0, Math.ceil((p / 100) * list.length) - 1))] ?? Number.NaN;
};
const median = (values: number[]) => percentile(values, 50);
const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
const verdict = (ok: boolean) => (ok ? "met" : "MISSED");

// ---------------------------------------------------------------------------------------
// Peak RSS, in a child process so that the baseline is not inflated by the other parts.
// ---------------------------------------------------------------------------------------
if (process.env.BENCH_MEMORY_CHILD === "1") {
  // Warm up: modules, JIT, keep-alive connections, the site's PHP opcache.
  await runOnce();
  await runOnce();
  Bun.gc(true);
  await Bun.sleep(200);
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let peakHeap = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    peak = Math.max(peak, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapUsed);
  };
  // setInterval only fires between tasks, so also sample whenever an analysis settles.
  const timer = setInterval(sample, 5);
  const started = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: concurrent }, () =>
      runOnce().finally(() => {
        sample();
      }),
    ),
  );
  const wall = performance.now() - started;
  clearInterval(timer);
  sample();
  const failed = results.filter((result) => result.status === "rejected").length;
  console.log(JSON.stringify({ baseline, peak, peakHeap, wall, failed }));
  await safeAgent.close();
  site.stop();
  process.exit(0);
}

// ---------------------------------------------------------------------------------------
// Wire bytes: undici announces every new connection; bytesRead deltas per report.
// ---------------------------------------------------------------------------------------
const sockets = new Set<Socket>();
let open = 0;
let peakOpen = 0;
dc.channel("undici:client:connected").subscribe((message) => {
  const socket = (message as { socket?: Socket }).socket;
  if (!socket) return;
  sockets.add(socket);
  open++;
  peakOpen = Math.max(peakOpen, open);
  socket.once("close", () => open--);
});
const socketBytes = () => new Map([...sockets].map((socket) => [socket, socket.bytesRead + socket.bytesWritten]));
const wireBytesSince = (before: Map<Socket, number>) => {
  let total = 0;
  for (const socket of sockets) total += socket.bytesRead + socket.bytesWritten - (before.get(socket) ?? 0);
  return total;
};

/**
 * CPU ms the whole machine has been busy so far (/proc/stat: user, nice, system, irq, softirq
 * and steal of every core). The fixture's share is this minus the analyzer's own: php-fpm,
 * nginx and MariaDB, and whatever else runs here. Reading each php-fpm process's counters would
 * lose the CPU of a worker that php-fpm recycles during the run (a new worker starts from zero);
 * the machine's counters lose nothing. Null when /proc/stat is not readable.
 */
function machineBusyMs(): number | null {
  try {
    const hz = 100; // USER_HZ on Linux
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return ((user + nice + system + irq + softirq + steal) / hz) * 1000;
  } catch {
    return null;
  }
}

/**
 * The critical-path lower bound of a report: homepage + the slowest single request, each
 * measured ALONE — from reports made with one request in flight at a time (BENCH_BOUND_RUNS of
 * them, median), so that nothing else loads the site or the connection while it is timed.
 *
 * gather fetches the homepage first (it decides whether there is a report and where WordPress
 * lives); nothing can finish before that plus the slowest request that follows it. Measured
 * under the report's own load, a request's time would grow with how many we send at once — a
 * bound that moves with our own scheduling is not a bound — so the rows come from the
 * one-at-a-time reports:
 *
 *   homepage = Σ ms of the first 1 + redirects rows (the homepage and its redirect hops; rows
 *              are appended in the order requests start, and nothing else starts before the
 *              homepage is in);
 *   slowest  = max ms over all other rows (probes, TTFB samples, assets);
 *   bound    = homepage + slowest;
 *   serial   = Σ of all rows: the one-at-a-time report's request time.
 *
 * It is optimistic: true dependents (feed → oEmbed, REST root → plugin readmes, HEAD → GET)
 * need two round trips after the homepage, and a server with few workers cannot run every
 * probe at once as fast as it runs one.
 */
function bounds(report: AnalysisResult) {
  const rows: TimingRow[] = report.performance?.requests ?? [];
  const hops = 1 + report.redirects.length;
  const homepage = rows.slice(0, hops).reduce((sum, row) => sum + row.ms, 0);
  const others = rows.slice(hops);
  const slowest = others.reduce((max, row) => (row.ms > max.ms ? row : max), {
    ms: 0,
    url: "-",
  } as Pick<TimingRow, "ms" | "url">);
  return {
    homepage,
    slowest,
    lowerBound: homepage + slowest.ms,
    serial: homepage + others.reduce((sum, row) => sum + row.ms, 0),
  };
}

// ---------------------------------------------------------------------------------------
// 1 + 2. Sequential reports.
// ---------------------------------------------------------------------------------------
console.log(
  `bench:analyze — ${url}${url === siteUrl ? "" : ` (before ${siteUrl})`}, ${runs} sequential reports, ${concurrency} in flight over HTTP/1.1 (${limits.multiplexedConcurrency} over HTTP/2)${rttMs > 0 ? `, simulated RTT ${rttMs} ms` : ""}${process.env.BENCH_SITE_CACHE === "1" ? ", site answers cached" : ""}`,
);
for (let i = 0; i < 2; i++) await runOnce(); // warm-up, not counted

interface Run {
  wall: number;
  clientCpu: number;
  requests: number;
  decodedBytes: number;
  wireBytes: number;
  connections: number;
  peakConnections: number;
  report: AnalysisResult;
}
const sequential: Run[] = [];
const machineBefore = machineBusyMs();
const analyzerBefore = process.cpuUsage();
for (let i = 0; i < runs; i++) {
  const before = socketBytes();
  const socketsBefore = sockets.size;
  peakOpen = open;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const report = await runOnce();
  const wall = performance.now() - started;
  const rows = report.performance?.requests ?? [];
  sequential.push({
    wall,
    clientCpu: cpuMs(process.cpuUsage(cpu)),
    requests: rows.length,
    decodedBytes: rows.reduce((sum, row) => sum + row.bytes, 0),
    wireBytes: wireBytesSince(before),
    connections: sockets.size - socketsBefore,
    peakConnections: peakOpen,
    report,
  });
}
const machineAfter = machineBusyMs();
const analyzerCpu = cpuMs(process.cpuUsage(analyzerBefore));

const boundRuns = Number(process.env.BENCH_BOUND_RUNS ?? 3);
const alone: ReturnType<typeof bounds>[] = [];
for (let i = 0; i < boundRuns; i++) alone.push(bounds(await runOnce(oneAtATime)));
const pickAlone = (f: (b: ReturnType<typeof bounds>) => number) => median(alone.map(f));
const lowerBound = pickAlone((b) => b.lowerBound);
const slowestAlone = alone.find((b) => b.lowerBound === lowerBound) ?? (alone[0] as ReturnType<typeof bounds>);

const walls = sequential.map((run) => run.wall);
const p50 = median(walls);
const p95 = percentile(walls, 95);
const pick = (f: (run: Run) => number) => median(sequential.map(f));
const ratio = p50 / lowerBound;
const typical = sequential.find((run) => run.wall === p50) ?? (sequential[0] as Run);
const RATIO_TARGET = 1.5;

console.log("\n1. Report wall time (analyze(), fresh SafeClient per report, one shared agent)");
console.log(`   wall                 p50 ${ms(p50)}   p95 ${ms(p95)}   min ${ms(Math.min(...walls))}`);
console.log(
  `   requests per report  ${pick((run) => run.requests)} (${sequential[0]?.report.errors.length ?? 0} errors in the report), HTTP/${typical.report.performance?.http_version ?? "?"}`,
);
console.log(
  `   bytes per report     ${kb(pick((run) => run.decodedBytes))} decoded bodies, ${kb(pick((run) => run.wireBytes))} on the wire (headers included, compressed)`,
);
console.log(
  `   connections          ${pick((run) => run.connections)} opened per report, at most ${Math.max(...sequential.map((run) => run.peakConnections))} open at once (the agent's keep-alive pool is shared across reports)`,
);
console.log(
  `   analyzer CPU         ${ms(pick((run) => run.clientCpu))} per report (this process: gather + parse + audits)`,
);
if (machineBefore !== null && machineAfter !== null && machineAfter > machineBefore) {
  const machine = (machineAfter - machineBefore) / runs;
  const rest = Math.max(0, machine - analyzerCpu / runs);
  const cores = navigator.hardwareConcurrency;
  console.log(
    `   machine CPU          ${ms(machine)} per report (/proc/stat, every process), ${ms(rest)} of it not the analyzer's (the fixture's php-fpm, nginx and MariaDB when it runs here, and anything else running) → ≥ ${ms(machine / cores)} wall on ${cores} cores`,
  );
}

console.log(
  `\n2. Critical path (see bounds(): each request timed alone, median of ${boundRuns} one-at-a-time reports)`,
);
console.log(
  `   homepage ${ms(pickAlone((b) => b.homepage))} + slowest single request ${ms(pickAlone((b) => b.slowest.ms))} = lower bound ${ms(lowerBound)}`,
);
console.log(
  `   slowest request alone: ${slowestAlone.slowest.url.replace(/^https?:\/\/[^/]+/, "")} (${ms(slowestAlone.slowest.ms)})`,
);
console.log(`   one request at a time, the report takes Σ ${ms(pickAlone((b) => b.serial))}`);
console.log(
  `   wall p50 / lower bound   ${ratio.toFixed(2)}×   (target ≤ ${RATIO_TARGET}×: ${verdict(ratio <= RATIO_TARGET)})`,
);
console.log("   slowest rows of the p50 run:");
for (const row of [...(typical.report.performance?.requests ?? [])].sort((a, b) => b.ms - a.ms).slice(0, 8)) {
  console.log(
    `     ${ms(row.ms).padStart(8)}  ttfb ${ms(row.ttfb_ms ?? 0).padStart(8)}  ${String(row.status).padStart(3)}  ${row.method.padEnd(4)} ${row.url.replace(/^https?:\/\/[^/]+/, "")}`,
  );
}

// ---------------------------------------------------------------------------------------
// 3. CPU of the pure stages on saved artifacts.
// ---------------------------------------------------------------------------------------
const saved = JSON.parse(readFileSync(artifactsFile, "utf8")) as Artifacts;

/**
 * A 2 MB homepage: the saved homepage with realistic WordPress markup repeated into <main>
 * — posts with responsive images, block comments, plugin scripts and styles (with ?ver=),
 * wp_localize_script blobs with JSON-escaped URLs, inline CSS, cache-plugin comments.
 */
function synthetic(base: Artifacts, bytes: number): Artifacts {
  const origin = new URL(base.homepage.url).origin;
  const escaped = origin.replaceAll("/", "\\/");
  const plugins = [
    ["contact-form-7", "5.7.4"],
    ["woocommerce", "7.4.0"],
    ["elementor", "3.11.2"],
    ["jetpack", "11.8"],
    ["wordpress-seo", "20.2"],
    ["wpforms-lite", "1.7.9"],
    ["litespeed-cache", "5.3.3"],
    ["really-simple-ssl", "6.1.1"],
  ] as const;
  const block = (i: number) => {
    const [slug, version] = plugins[i % plugins.length] as readonly [string, string];
    const month = String((i % 12) + 1).padStart(2, "0");
    const image = `${origin}/wp-content/uploads/2023/${month}/photo-${i}`;
    return `
<!-- wp:post-template -->
<article id="post-${i}" class="post-${i} post type-post status-publish format-standard has-post-thumbnail hentry category-news tag-release entry">
<header class="entry-header alignwide"><h2 class="entry-title default-max-width"><a href="${origin}/2023/${month}/post-${i}/">Release notes, part ${i}</a></h2>
<figure class="post-thumbnail"><a class="post-thumbnail-inner alignwide" href="${origin}/2023/${month}/post-${i}/" aria-hidden="true" tabindex="-1"><img width="1568" height="882" src="${image}-1568x882.jpg" class="attachment-post-thumbnail size-post-thumbnail wp-post-image" alt="" decoding="async" loading="lazy" srcset="${image}-1568x882.jpg 1568w, ${image}-300x169.jpg 300w, ${image}-1024x576.jpg 1024w, ${image}-768x432.jpg 768w, ${image}-1536x864.jpg 1536w" sizes="(max-width: 1568px) 100vw, 1568px" style="width:100%;height:56.25%;max-width:1568px;" /></a></figure></header>
<div class="entry-content">
<!-- wp:paragraph -->
<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. See <a href="${origin}/2023/${month}/post-${i - 1}/">the previous post</a> and the <a href="${origin}/wp-content/uploads/2023/${month}/notes-${i}.pdf">notes (PDF)</a>.</p>
<!-- /wp:paragraph -->
<!-- wp:image {"id":${1000 + i},"sizeSlug":"large","linkDestination":"none"} -->
<figure class="wp-block-image size-large"><img decoding="async" loading="lazy" width="1024" height="683" src="${image}-b-1024x683.jpg" alt="A photo" class="wp-image-${1000 + i}" srcset="${image}-b-1024x683.jpg 1024w, ${image}-b-300x200.jpg 300w, ${image}-b-768x512.jpg 768w" sizes="(max-width: 1024px) 100vw, 1024px" /></figure>
<!-- /wp:image -->
</div>
<footer class="entry-footer default-max-width"><span class="posted-on">Published <time class="entry-date published updated" datetime="2023-${month}-14T09:12:00+00:00">${month}/14/2023</time></span><span class="byline">By <a href="${origin}/author/editor/" rel="author">editor</a></span></footer>
</article>
<link rel='stylesheet' id='${slug}-block-${i}-css' href='${origin}/wp-content/plugins/${slug}/assets/css/frontend.min.css?ver=${version}' media='all' />
<style id='${slug}-inline-css-${i}'>.${slug}-widget-${i}{margin:0 0 1.5em;padding:1em 1.25em;border:1px solid #e2e4e7;border-radius:4px}.${slug}-widget-${i} .title{font-weight:600;font-size:1.125rem}</style>
<script id="${slug}-js-extra-${i}">
var ${slug.replaceAll("-", "_")}_params_${i} = {"ajax_url":"${escaped}\\/wp-admin\\/admin-ajax.php","rest_url":"${escaped}\\/wp-json\\/${slug}\\/v1\\/","assets_url":"${escaped}\\/wp-content\\/plugins\\/${slug}\\/assets\\/","nonce":"a1b2c3d4e5","i18n":{"loading":"Loading\\u2026","error":"Something went wrong."}};
</script>
<script src='${origin}/wp-content/plugins/${slug}/assets/js/frontend.min.js?ver=${version}' id='${slug}-frontend-${i}-js'></script>
<!-- ${slug} ${version}: rendered block ${i} in 0.0021s -->
`;
  };
  let html = "";
  for (let i = 1; html.length + base.homepage.body.length < bytes; i++) html += block(i);
  const body = base.homepage.body;
  const at = body.lastIndexOf("</main>") >= 0 ? body.lastIndexOf("</main>") : body.lastIndexOf("</body>");
  const copy = structuredClone(base);
  copy.homepage.body = `${body.slice(0, at)}${html}${body.slice(at)}`;
  copy.homepage.body_bytes = Buffer.byteLength(copy.homepage.body);
  copy.homepage.transfer_bytes = null;
  return copy;
}

/** Median CPU ms of each stage over `n` runs, each on a fresh copy (pageOf caches per object). */
function stageCpu(artifacts: Artifacts, n: number) {
  const cpu = { parse: [] as number[], detect: [] as number[], extract: [] as number[], audit: [] as number[] };
  const total: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < n; i++) {
    // Whole buildResult, parse included (in a real report gather parses the homepage first).
    const fresh = structuredClone(artifacts);
    Bun.gc(true);
    const started = performance.now();
    const usage = process.cpuUsage();
    buildResult(fresh);
    total.push(cpuMs(process.cpuUsage(usage)));
    wall.push(performance.now() - started);

    // The same, stage by stage, on another fresh copy.
    const copy = structuredClone(artifacts);
    Bun.gc(true);
    let mark = process.cpuUsage();
    const lap = (list: number[]) => {
      list.push(cpuMs(process.cpuUsage(mark)));
      mark = process.cpuUsage();
    };
    pageOf(copy.homepage);
    lap(cpu.parse);
    const detected = detect(copy);
    lap(cpu.detect);
    const facts = extract(detected);
    lap(cpu.extract);
    summarise(runAudits(facts));
    lap(cpu.audit);
  }
  return {
    total: median(total),
    wall: median(wall),
    parse: median(cpu.parse),
    detect: median(cpu.detect),
    extract: median(cpu.extract),
    audit: median(cpu.audit),
  };
}

const big = synthetic(saved, SYNTHETIC_BYTES);
for (let i = 0; i < 3; i++) buildResult(structuredClone(saved)); // warm-up (JIT)
const small = stageCpu(saved, 15);
const large = stageCpu(big, 9);
const bigResult = buildResult(structuredClone(big));
console.log("\n3. CPU of detect + extract + audit + score (buildResult on saved artifacts; median, process.cpuUsage)");
console.log("   (process CPU, so JavaScriptCore's GC and JIT threads count too: CPU can exceed wall)");
for (const [label, size, r] of [
  [artifactsFile.replace(/^.*\//, ""), saved.homepage.body.length, small],
  ["synthetic 2 MB homepage", big.homepage.body.length, large],
] as const) {
  console.log(
    `   ${label.padEnd(38)} ${kb(size).padStart(7)}  buildResult ${ms(r.total).padStart(7)} CPU (${ms(r.wall)} wall)   = parse ${ms(r.parse)} + detect ${ms(r.detect)} + extract ${ms(r.extract)} + audit/score ${ms(r.audit)}`,
  );
}
console.log(
  `   2 MB page: ${bigResult.plugins.length} plugins, ${bigResult.performance?.resources.images.count ?? 0} images, ${bigResult.performance?.resources.scripts.count ?? 0} scripts seen   (target ≤ 50 ms: ${verdict(large.total <= 50)})`,
);

// ---------------------------------------------------------------------------------------
// 4. Peak RSS with concurrent analyses (child process).
// ---------------------------------------------------------------------------------------
await safeAgent.close();
const child = Bun.spawn([process.execPath, import.meta.path], {
  env: { ...process.env, BENCH_MEMORY_CHILD: "1" },
  stdout: "pipe",
  stderr: "inherit",
});
const output = await new Response(child.stdout).text();
await child.exited;
const memory = JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as {
  baseline: number;
  peak: number;
  peakHeap: number;
  wall: number;
  failed: number;
};
const perAnalysis = (memory.peak - memory.baseline) / concurrent;
console.log(`\n4. Peak RSS, ${concurrent} analyses at once (fresh process, after 2 warm-up reports)`);
console.log(
  `   baseline ${mb(memory.baseline)}   peak ${mb(memory.peak)}   peak − baseline ${mb(memory.peak - memory.baseline)} = ${mb(perAnalysis)} per analysis   (target ≤ 30 MB: ${verdict(perAnalysis <= 30 * 1024 * 1024)})`,
);
console.log(
  `   JS heap peak ${mb(memory.peakHeap)}; the ${concurrent} reports took ${ms(memory.wall)} together (${memory.failed} failed)`,
);

console.log(
  `\nTargets: wall ≤ ${RATIO_TARGET}× lower bound (with BENCH_RTT_MS=50) · buildResult ≤ 50 ms CPU for 2 MB · ≤ 30 MB RSS per concurrent analysis`,
);
site.stop();
