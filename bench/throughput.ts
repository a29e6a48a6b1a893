/**
 * Throughput benchmark (issue: queue and workers). Runs the service as real processes on
 * PostgreSQL + Redis and measures reports per minute against the WordPress fixture:
 *
 *   - queue design (this checkout): 1 API process + 1, 2 and 4 worker processes;
 *   - in-process design (BENCH_BASELINE_REF, the last commit before the queue): 1, 2 and 4
 *     identical processes, each running the analyses it accepts, requests spread evenly;
 *
 * each with the site as it is (loopback) and "remote" (BENCH_RTT_MS, through bench/rtt-proxy.ts).
 * BENCH_REPORTS reports are sent at once with `Prefer: respond-async` from BENCH_ACCOUNTS
 * Enterprise accounts; the run ends when the last one is finished. While it runs, GET /healthz
 * of the API process(es) is timed every 100 ms and the resident memory of all the service's
 * processes is sampled.
 *
 *   npm run bench:throughput                   # needs PostgreSQL, Redis and the fixture
 *   BENCH_REPORTS=60 BENCH_WORKERS=1,2 BENCH_RTT_MS=0,50 npm run bench:throughput
 *   BENCH_BASELINE_REF= npm run bench:throughput   # skip the in-process comparison
 *
 * Every report targets the one fixture, so HOST_CONCURRENCY (politeness per site) is raised
 * and TARGET_MAX_RPS (the per-target pace) turned off for the run; otherwise they, not the
 * workers, would set the pace. Figures, never assertions.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Subprocess } from "bun";
import postgres from "postgres";

const ROOT = path.resolve(import.meta.dir, "..");
const siteUrl = process.env.BENCH_URL ?? "http://127.0.0.1:8088/";
const reports = Number(process.env.BENCH_REPORTS ?? 40);
const accounts = Number(process.env.BENCH_ACCOUNTS ?? 8);
const workerCounts = (process.env.BENCH_WORKERS ?? "1,2,4").split(",").map(Number);
const rtts = (process.env.BENCH_RTT_MS ?? "0,50").split(",").map(Number);
const baselineRef = process.env.BENCH_BASELINE_REF ?? "a84e68b";
const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

interface Proc {
  url: string;
  child: Subprocess;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.once("error", reject);
  });
}

async function startProcess(cwd: string, env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  const child = Bun.spawn([process.execPath, "server/start/main.ts"], {
    cwd,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "error", ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 400; i++) {
    if (child.exitCode !== null) throw new Error(`${cwd}: the server exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, child };
    await Bun.sleep(50);
  }
  throw new Error(`${cwd}: the server did not start`);
}

async function startProxy(rttMs: number): Promise<{ url: string; stop(): void }> {
  const child = Bun.spawn([process.execPath, path.join(ROOT, "bench/rtt-proxy.ts"), siteUrl, String(rttMs)], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const { value } = await child.stdout.getReader().read();
  return { url: new TextDecoder().decode(value).trim(), stop: () => child.kill() };
}

/**
 * A worktree of the baseline commit, sharing this checkout's node_modules (a superset). It
 * lives outside the repository, where `bun test` would find its tests.
 */
function baselineCheckout(): string {
  const dir = path.join(tmpdir(), `wpreport-bench-baseline-${baselineRef}`);
  if (!existsSync(dir)) {
    execFileSync("git", ["worktree", "add", "--detach", dir, baselineRef], { cwd: ROOT, stdio: "ignore" });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  }
  return dir;
}

function rssBytes(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

interface Row {
  design: string;
  rtt: number;
  processes: string;
  perMinute: number;
  completed: number;
  failed: number;
  healthP99: number;
  peakRssMb: number;
}

async function scenario(design: "queue" | "in-process", workers: number, rttMs: number): Promise<Row> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const dbName = `wpreport_bench_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  await admin.unsafe(`create database ${dbName}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const proxy = rttMs > 0 ? await startProxy(rttMs) : undefined;
  const target = proxy?.url ?? siteUrl;
  const cwd = design === "queue" ? ROOT : baselineCheckout();
  const env = {
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: redisUrl,
    // The baseline predates ports in allowlist entries.
    TARGET_ALLOWLIST: design === "queue" ? `127.0.0.1:${new URL(target).port || 80}` : "127.0.0.1",
    HOST_CONCURRENCY: "50",
    TARGET_MAX_RPS: "0",
  };
  const procs: Proc[] = [];
  try {
    let apis: Proc[];
    if (design === "queue") {
      const api = await startProcess(cwd, { ...env, WPREPORT_ROLE: "api" });
      procs.push(api);
      apis = [api];
      for (let i = 0; i < workers; i++) procs.push(await startProcess(cwd, { ...env, WPREPORT_ROLE: "worker" }));
    } else {
      for (let i = 0; i < workers; i++) procs.push(await startProcess(cwd, env));
      apis = procs;
    }
    const tokens: string[] = [];
    for (let i = 0; i < accounts; i++) {
      const out = execFileSync(
        process.execPath,
        ["server/cli/main.ts", "token", "create", "--email", `bench${i}@example.com`, "--plan", "enterprise"],
        {
          cwd,
          env: { ...process.env, ...env, LOG_LEVEL: "silent" },
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        },
      );
      tokens.push(out.trim().split("\n").at(-1) as string);
    }

    const health: number[] = [];
    let peakRss = 0;
    let running = true;
    const probing = (async () => {
      while (running) {
        const started = performance.now();
        await Promise.all(apis.map((api) => fetch(`${api.url}/healthz`).then((r) => r.arrayBuffer())));
        health.push(performance.now() - started);
        peakRss = Math.max(
          peakRss,
          procs.reduce((sum, p) => sum + rssBytes(p.child.pid), 0),
        );
        await Bun.sleep(100);
      }
    })();

    const started = performance.now();
    await Promise.all(
      Array.from({ length: reports }, async (_, i) => {
        const response = await fetch(`${apis[i % apis.length]?.url}/api/generate-report`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${tokens[i % accounts]}`,
            "content-type": "application/json",
            prefer: "respond-async",
          },
          body: JSON.stringify({ url: target }),
        });
        if (response.status !== 202 && response.status !== 201)
          throw new Error(`generate-report answered ${response.status}: ${await response.text()}`);
      }),
    );
    let completed = 0;
    let failed = 0;
    for (;;) {
      completed = 0;
      failed = 0;
      for (const token of tokens) {
        const response = await fetch(`${apis[0]?.url}/api/reports?limit=100`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const { data } = (await response.json()) as { data: { status: string }[] };
        completed += data.filter((item) => item.status === "completed").length;
        failed += data.filter((item) => item.status === "failed").length;
      }
      if (completed + failed >= reports || performance.now() - started > 600_000) break;
      await Bun.sleep(200);
    }
    const elapsedMs = performance.now() - started;
    running = false;
    await probing;
    return {
      design,
      rtt: rttMs,
      processes: design === "queue" ? `1 API + ${workers} worker${workers > 1 ? "s" : ""}` : `${workers} × all-in-one`,
      perMinute: Math.round((completed / elapsedMs) * 60_000),
      completed,
      failed,
      healthP99: Math.round(percentile(health, 99)),
      peakRssMb: Math.round(peakRss / 1024 ** 2),
    };
  } finally {
    for (const proc of procs) proc.child.kill("SIGKILL");
    await Promise.all(procs.map((proc) => proc.child.exited));
    proxy?.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

const rows: Row[] = [];
const designs: ("queue" | "in-process")[] = baselineRef ? ["queue", "in-process"] : ["queue"];
console.log(`${reports} reports of ${siteUrl} from ${accounts} accounts per run; baseline ${baselineRef || "(none)"}`);
for (const rtt of rtts) {
  for (const workers of workerCounts) {
    for (const design of designs) {
      const row = await scenario(design, workers, rtt);
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
}
console.log("\n| RTT | design | processes | reports/min | completed / failed | /healthz p99 | peak RSS (all) |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) {
  console.log(
    `| ${row.rtt} ms | ${row.design} | ${row.processes} | ${row.perMinute} | ${row.completed} / ${row.failed} | ${row.healthP99} ms | ${row.peakRssMb} MB |`,
  );
}
process.exit(0);
