/**
 * Flood: 60 concurrent generate-report calls for a site whose every page is 5 MB of deeply
 * nested HTML, against the service as it is deployed — API and worker processes on
 * PostgreSQL + Redis, and the one-process embedded default (`npm start`). Throughout:
 * - `GET /healthz` and `GET /api/usage` answer with p99 ≤ 200 ms (the API's event loop
 *   never runs an analysis);
 * - the resident memory of all the service's processes together stays ≤ 1 GB;
 * - every call ends in 201, 202, 429 or 503, never 500;
 * - afterwards the credits used equal the reports completed, exactly.
 * Figures are printed; the limits are the issue's, far above what a healthy run shows.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { isIncomplete } from "../../../server/analyzer/completeness.ts";
import { createPostgresDatabase, preparePgliteDataDir, type TestDatabase } from "../../helpers/databases.ts";
import { HAS_POSTGRES, HAS_REDIS, REDIS_URL } from "../../helpers/env.ts";
import { firstLine, ROOT, runCli, type ServerProcess, startServerProcess } from "../../helpers/processes.ts";

const FLOOD = 60;
const ACCOUNTS = 6;
/** /api/usage is rate limited per account (Enterprise: 300 a minute): the probes rotate. */
const PROBE_ACCOUNTS = 4;
const SITE_HOST = "127.0.0.2";
const P99_LIMIT_MS = 200;
const RSS_LIMIT_BYTES = 1024 ** 3;
/** How long the background reports may take to end (see flood()). */
const DRAIN_LIMIT_MS = 240_000;
const TEST_TIMEOUT_MS = DRAIN_LIMIT_MS + 120_000;

interface Site {
  url: string;
  stop(): void;
}

async function startFloodSite(): Promise<Site> {
  const child = Bun.spawn([process.execPath, path.join(ROOT, "test/platform/queue/flood-site.ts"), SITE_HOST], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const url = await firstLine(child.stdout, "the flood site");
  return { url: url.trim(), stop: () => child.kill("SIGKILL") };
}

/** Resident set size of a process, from /proc (Linux). */
function rssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function timed(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

interface Deployment {
  name: string;
  /** One environment per process; the first one serves the API. */
  start(): Promise<{ processes: ServerProcess[]; env: Record<string, string>; cleanup(): Promise<void> }>;
}

const common = (site: Site) => ({
  TARGET_ALLOWLIST: `${SITE_HOST}:${new URL(site.url).port}`,
  WORKER_CONCURRENCY: "4",
  HOST_CONCURRENCY: "4",
  TARGET_MAX_RPS: "0",
  SYNC_WAIT_MS: "5000",
  ANALYSIS_TIMEOUT_MS: "20000",
  LOG_LEVEL: "error",
});

async function flood(deployment: Deployment, site: Site): Promise<void> {
  const { processes, env, cleanup } = await deployment.start();
  try {
    const api = processes[0]?.url as string;
    const tokens: string[] = [];
    for (let i = 0; i < ACCOUNTS + PROBE_ACCOUNTS; i++) {
      const created = await runCli(
        ["token", "create", "--email", `flood${i}@example.com`, "--plan", "enterprise"],
        env,
      );
      expect(created.code).toBe(0);
      tokens.push(created.stdout.trim().split("\n").at(-1) as string);
    }
    const probeTokens = tokens.splice(ACCOUNTS);
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });

    // Probe the API and sample memory every 100 ms until the flood has been answered.
    const health: number[] = [];
    const usage: number[] = [];
    const probeStatuses = new Set<number>();
    let peakRss = 0;
    let flooding = true;
    const probing = (async () => {
      while (flooding) {
        const [h, u] = await Promise.all([
          timed(`${api}/healthz`),
          timed(`${api}/api/usage`, auth(probeTokens[health.length % PROBE_ACCOUNTS] as string)),
        ]);
        health.push(h.ms);
        usage.push(u.ms);
        probeStatuses.add(h.status).add(u.status);
        peakRss = Math.max(
          peakRss,
          processes.reduce((sum, p) => sum + rssBytes(p.child.pid), 0),
        );
        await Bun.sleep(100);
      }
    })();

    const started = performance.now();
    const calls = await Promise.all(
      Array.from({ length: FLOOD }, async (_, i) => {
        const token = tokens[i % ACCOUNTS] as string;
        const response = await fetch(`${api}/api/generate-report`, {
          method: "POST",
          headers: { ...auth(token), "content-type": "application/json" },
          body: JSON.stringify({ url: site.url }),
        });
        const body = (await response.json()) as { id?: string };
        return { status: response.status, id: body.id, token };
      }),
    );
    const answeredMs = performance.now() - started;

    // The 202s finish in the background: wait for them while still probing. One listing per
    // account per second keeps well inside the plan's rate limit.
    const pending = calls.filter((call) => call.status === 202);
    const finished = new Map<string, string>();
    // The drain is the machine's CPU (60 parses of a 5 MB page of 200,000 nested elements):
    // 94-100 s alone on a 2-core machine, more with another test file beside it. What is
    // asserted is that every report ends, exactly charged, with the API responsive meanwhile;
    // how long the drain took is a figure (drained_s), not a limit.
    const deadline = Date.now() + DRAIN_LIMIT_MS;
    while (finished.size < pending.length && Date.now() < deadline) {
      await Bun.sleep(1000);
      for (const token of tokens) {
        const response = await fetch(`${api}/api/reports?limit=100`, { headers: auth(token) });
        if (response.status !== 200) continue;
        const { data } = (await response.json()) as { data: { id: string; status: string }[] };
        for (const item of data)
          if (item.status !== "queued" && item.status !== "running") finished.set(item.id, item.status);
      }
      for (const id of finished.keys()) if (!pending.some((call) => call.id === id)) finished.delete(id);
    }
    flooding = false;
    await probing;
    const drainedMs = performance.now() - started;

    const statuses = calls.map((call) => call.status);
    const counts = Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length]));
    const figures = {
      deployment: deployment.name,
      calls: counts,
      background: Object.fromEntries(
        [...new Set(finished.values())].map((s) => [s, [...finished.values()].filter((x) => x === s).length]),
      ),
      answered_s: +(answeredMs / 1000).toFixed(1),
      drained_s: +(drainedMs / 1000).toFixed(1),
      probes: health.length,
      healthz_p99_ms: +percentile(health, 99).toFixed(1),
      usage_p99_ms: +percentile(usage, 99).toFixed(1),
      peak_rss_mb: Math.round(peakRss / 1024 ** 2),
    };
    console.log(`[flood] ${JSON.stringify(figures)}`);

    for (const status of statuses) expect([201, 202, 429, 503]).toContain(status);
    expect([...probeStatuses]).toEqual([200]);
    expect(finished.size).toBe(pending.length);
    expect(figures.healthz_p99_ms).toBeLessThanOrEqual(P99_LIMIT_MS);
    expect(figures.usage_p99_ms).toBeLessThanOrEqual(P99_LIMIT_MS);
    expect(peakRss).toBeLessThanOrEqual(RSS_LIMIT_BYTES);
    expect(peakRss).toBeGreaterThan(0);

    // Quota exact: one credit per completed report across the accounts, none for the rest —
    // nor for incomplete ones (docs/report.md: 5 MB pages soon spend the download budget, and
    // a report whose probes mostly went unasked is incomplete, without a grade).
    let used = 0;
    for (const token of tokens) {
      const body = (await (await fetch(`${api}/api/usage`, { headers: auth(token) })).json()) as { used: number };
      used += body.used;
    }
    const completedIds = [
      ...calls.filter((call) => call.status === 201).map((call) => call.id as string),
      ...[...finished].filter(([, status]) => status === "completed").map(([id]) => id),
    ];
    let charged = 0;
    for (const id of completedIds) {
      const owner = calls.find((call) => call.id === id)?.token as string;
      const report = (await (await fetch(`${api}/api/report/${id}`, { headers: auth(owner) })).json()) as {
        errors: { stage: string; kind: string }[];
      };
      if (!isIncomplete(report)) charged++;
    }
    expect(completedIds.length).toBeGreaterThan(0);
    expect(used).toBe(charged);
  } finally {
    await Promise.all(processes.map((p) => p.stop("SIGKILL").catch(() => 0)));
    await cleanup();
  }
}

/** The two deployments the flood runs against, each with the site it floods. */
const DEPLOYMENTS: { title: string; deployment(site: Site): Deployment }[] = [
  {
    title: "API and worker processes on PostgreSQL + Redis",
    deployment: (site) => ({
      name: "api + worker (PostgreSQL, Redis)",
      async start() {
        const db: TestDatabase = await createPostgresDatabase();
        const env = { ...common(site), DATABASE_URL: db.url as string, REDIS_URL };
        const processes = await Promise.all([
          startServerProcess({ ...env, WPREPORT_ROLE: "api" }),
          startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
        ]);
        return { processes, env, cleanup: () => db.destroy() };
      },
    }),
  },
  {
    title: "one process on the embedded database (npm start)",
    deployment: (site) => ({
      name: "all (PGlite)",
      async start() {
        const dataDir = await preparePgliteDataDir();
        const env = { ...common(site), DATA_DIR: dataDir };
        const processes = [await startServerProcess(env)];
        return { processes, env, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
      },
    }),
  },
];

describe.skipIf(!HAS_POSTGRES || !HAS_REDIS)("a flood of reports for a site of 5 MB nested pages", () => {
  let site: Site | undefined;
  afterAll(() => site?.stop());

  for (const { title, deployment } of DEPLOYMENTS) {
    test(
      title,
      async () => {
        site ??= await startFloodSite();
        await flood(deployment(site), site);
      },
      TEST_TIMEOUT_MS,
    );
  }
});
