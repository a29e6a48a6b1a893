/**
 * API overhead benchmark (issue: platform). Loads GET /api/usage with a valid token on
 * PostgreSQL + Redis (the account's rate limit raised for the run) and, in the same run,
 * a bare Elysia route; prints req/s, p50/p99 latency and the ratio authenticated/bare.
 *
 *   npm run bench:api            # needs PostgreSQL and Redis (figures: docs/benchmarks.md)
 *   BENCH_SECONDS=20 BENCH_CONNECTIONS=50 npm run bench:api
 *
 * autocannon runs as a separate Node process so that the load generator and the server do
 * not share one event loop. Targets: p99 ≤ 10 ms and ratio ≥ 0.25 on a 2-core machine.
 */
import { Elysia } from "elysia";
import Redis from "ioredis";
import postgres from "postgres";
import { openDatabase } from "../server/platform/db/database.ts";
import { createLogger } from "../server/platform/logger.ts";
import { loadConfig } from "../server/start/config.ts";

const devNull = Bun.file("/dev/null").writer();

import { startService } from "../server/start/runtime.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

interface Result {
  requests: { average: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
}

async function load(url: string, headers: Record<string, string> = {}): Promise<Result> {
  const args = ["node_modules/.bin/autocannon", "-j", "-c", String(connections), "-d", String(seconds)];
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}=${value}`);
  args.push(url);
  const child = Bun.spawn(["node", ...args], { stdout: "pipe", stderr: "ignore" });
  const output = await new Response(child.stdout).text();
  await child.exited;
  return JSON.parse(output) as Result;
}

const name = `wpreport_bench_${Date.now().toString(36)}`;
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${name}`);
const dbUrl = new URL(adminUrl);
dbUrl.pathname = `/${name}`;

const config = loadConfig({
  PORT: "0",
  HOST: "127.0.0.1",
  DATABASE_URL: dbUrl.toString(),
  REDIS_URL: redisUrl,
  LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
  DB_POOL_MAX: "4",
});
// Request logs are part of the cost of a request; they go to /dev/null here, not the terminal.
const logger = createLogger(config.platform.logLevel, (line) => devNull.write(`${line}\n`));
const db = await openDatabase(config.platform, logger, { role: "server" });
const service = await startService(config, logger, { db });
const { account } = await service.services.accounts.ensure("bench@example.com", "enterprise");
await service.services.accounts.setRateLimitOverride(account.id, 100_000_000);
const { token } = await service.services.tokens.create(account.id, { name: "bench" });

// The floor of any design that checks a token in PostgreSQL and counts in Redis: one
// trivial query and one trivial script per request, nothing else.
const redis = new Redis(redisUrl);
const floorSql = postgres(dbUrl.toString(), { max: 4 });
const bare = new Elysia()
  .get("/bare", () => ({ status: "ok" }))
  .get("/floor", async () => {
    const [row] = await floorSql`select 1 as one`;
    const count = await redis.eval("return redis.call('INCR', KEYS[1])", 1, "wpreport:bench:floor");
    return { one: row?.one, count };
  })
  .listen({ port: 0, hostname: "127.0.0.1" });
const bareUrl = `http://127.0.0.1:${bare.server?.port}/bare`;
const floorUrl = `http://127.0.0.1:${bare.server?.port}/floor`;

try {
  // Warm up both (JIT, connection pools, prepared statements).
  for (let i = 0; i < 200; i++) {
    await fetch(`${service.url}/api/usage`, { headers: { authorization: `Bearer ${token}` } });
    await fetch(bareUrl);
  }
  const authed = await load(`${service.url}/api/usage`, { authorization: `Bearer ${token}` });
  const plain = await load(bareUrl);
  const floor = await load(floorUrl);
  const ratio = authed.requests.average / plain.requests.average;
  const row = (label: string, r: Result) =>
    `${label.padEnd(34)} ${r.requests.average.toFixed(0).padStart(8)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(3)} ms   non-2xx ${r.non2xx}   errors ${r.errors}`;
  console.log(`bench:api — ${connections} connections, ${seconds} s each, PostgreSQL + Redis`);
  console.log(row("GET /api/usage (token, rate limit)", authed));
  console.log(row("bare Elysia route", plain));
  console.log(row("floor: 1 SQL query + 1 Redis script", floor));
  console.log(`ratio authenticated/bare: ${ratio.toFixed(2)}   (targets: p99 ≤ 10 ms, ratio ≥ 0.25)`);
  console.log(
    `ratio floor/bare:         ${(floor.requests.average / plain.requests.average).toFixed(2)}   (what two round trips cost here)`,
  );
} finally {
  bare.stop(true);
  redis.disconnect();
  await floorSql.end();
  await service.stop();
  await db.close();
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
