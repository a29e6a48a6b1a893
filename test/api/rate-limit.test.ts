/**
 * Rate limits (docs/plans.md): headers on every authenticated response, 429 with
 * Retry-After, one shared limit for instances on one Redis, and fail-open to the
 * per-instance memory limiter when Redis is down.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMemoryRateLimiter, hit, rateLimitHeaders } from "../../server/access/rate-limiter.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/databases.ts";
import { HAS_POSTGRES, HAS_REDIS, REDIS_URL } from "../helpers/env.ts";
import { freePort, startTestService, type TestService } from "../helpers/service.ts";

describe("memory rate limiter", () => {
  test("counts a window per key and reports what is left", async () => {
    const limiter = createMemoryRateLimiter();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await hit(limiter, "acc_a", 3, 1_000));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect((await hit(limiter, "acc_b", 3, 1_000)).allowed).toBe(true);
    await Bun.sleep(1_050);
    expect((await hit(limiter, "acc_a", 3, 1_000)).remaining).toBe(2);
    await limiter.close();
  });

  test("headers follow the IETF draft and the X- convention", () => {
    const headers = rateLimitHeaders({ allowed: true, limit: 30, remaining: 12, resetMs: 41_200, windowMs: 60_000 });
    expect(headers["ratelimit-policy"]).toBe('"default";q=30;w=60');
    expect(headers.ratelimit).toBe('"default";r=12;t=42');
    expect(headers["x-ratelimit-limit"]).toBe("30");
    expect(headers["x-ratelimit-remaining"]).toBe("12");
    const reset = Number(headers["x-ratelimit-reset"]);
    expect(reset).toBeGreaterThan(Date.now() / 1000 + 40);
    expect(reset).toBeLessThan(Date.now() / 1000 + 43);
  });
});

describe("rate limiting through the API", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  test("every authenticated response carries the headers; over the limit → 429 with Retry-After", async () => {
    const { token } = await service.token(undefined, "free"); // 10 requests per minute
    const responses = [];
    for (let i = 0; i < 11; i++) responses.push(await service.call("GET", "/api/usage", { token }));
    expect(responses.slice(0, 10).every((r) => r.status === 200)).toBe(true);
    expect(responses.map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual([
      "9",
      "8",
      "7",
      "6",
      "5",
      "4",
      "3",
      "2",
      "1",
      "0",
      "0",
    ]);
    const limited = responses[10];
    expect(limited?.status).toBe(429);
    expect(limited?.body.code).toBe("rate_limited");
    const retryAfter = Number(limited?.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited?.headers.get("ratelimit-policy")).toBe('"default";q=10;w=60');
    expect(limited?.headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);

    // Errors of rate-limited callers carry the headers too (here: a 404).
    const { token: other } = await service.token(undefined, "free");
    const missing = await service.call("GET", "/api/report/rep_00000000000000000000000000", { token: other });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-ratelimit-limit")).toBe("10");
  });

  test("reads and rejected calls count against the limit; the quota does not", async () => {
    const { token } = await service.token(undefined, "free");
    for (let i = 0; i < 10; i++)
      await service.call("POST", "/api/generate-report", { token, body: { url: "ftp://x.example" } });
    expect((await service.call("GET", "/api/usage", { token })).status).toBe(429);
  });
});

describe.skipIf(!HAS_POSTGRES || !HAS_REDIS)("one limit across two instances sharing Redis", () => {
  let db: TestDatabase;
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    a = await startTestService({ db, env: { REDIS_URL } });
    b = await startTestService({ db, env: { REDIS_URL } });
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
    await db.destroy();
  });

  test("a burst of 2×limit spread over both instances gets exactly limit successes", async () => {
    expect(a.running.services.limiter.backend).toBe("redis");
    const { token } = await a.token(undefined, "starter"); // 30 per minute
    const limit = 30;
    const responses = await Promise.all(
      Array.from({ length: 2 * limit }, (_, i) => (i % 2 === 0 ? a : b).call("GET", "/api/usage", { token })),
    );
    expect(responses.filter((r) => r.status === 200).length).toBe(limit);
    expect(responses.filter((r) => r.status === 429).length).toBe(limit);
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get("x-ratelimit-remaining")));
    expect(new Set(remaining).size).toBe(limit); // each success saw a distinct count
  });
});

describe.skipIf(!HAS_POSTGRES)("Redis unreachable", () => {
  test("the service keeps serving with the per-instance memory limiter (fail open)", async () => {
    const deadPort = await freePort();
    const lines: string[] = [];
    const service = await startTestService({
      backend: "postgres",
      env: { REDIS_URL: `redis://127.0.0.1:${deadPort}` },
    });
    const originalWarn = service.running.services.logger.warn;
    service.running.services.logger.warn = (msg, fields) => {
      lines.push(msg);
      originalWarn(msg, fields);
    };
    try {
      const { token } = await service.token(undefined, "free");
      const statuses = [];
      for (let i = 0; i < 11; i++) statuses.push((await service.call("GET", "/api/usage", { token })).status);
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
      expect(statuses[10]).toBe(429);
      expect(lines).toContain("rate limiter: Redis unavailable, using the per-instance memory limiter");
    } finally {
      await service.stop();
    }
  });
});
