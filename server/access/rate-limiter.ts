/**
 * Per-account request rate limiting (docs/plans.md, "Rate limits"), on unstorage.
 *
 * A fixed window per account opens at its first request and lasts `windowMs`; a request is
 * allowed while the window's count is within the limit. Counting must be atomic: on the
 * memory driver the check-and-increment runs synchronously on the driver's Map (one JS
 * thread, no await in between); on the Redis driver it is one Lua script on the driver's
 * ioredis client, so instances sharing a Redis share the limit exactly.
 *
 * If Redis cannot be reached the limiter fails open to the per-instance memory counter
 * (each instance then enforces the limit on its own) and logs it, rather than refusing
 * paying users' requests because of a cache outage.
 */
import type Redis from "ioredis";
import { createStorage, type Storage } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import redisDriver from "unstorage/drivers/redis";
import type { Logger } from "../platform/logger.ts";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
  windowMs: number;
}

/** One request counted in a window. */
export interface WindowCount {
  count: number;
  resetMs: number;
  windowMs: number;
}

export interface RateLimiter {
  readonly backend: "memory" | "redis";
  /** Counts one request for `key` in its current window, atomically. */
  count(key: string, windowMs?: number): Promise<WindowCount>;
  /** The current window's count for `key` without counting (0 when no window is open). */
  peek(key: string): Promise<{ count: number; resetMs: number }>;
  /** Takes one count back from the current window (never below 0, never opens a window). */
  uncount(key: string): Promise<void>;
  close(): Promise<void>;
}

export const RATE_WINDOW_MS = 60_000;

/**
 * A plan's per-minute limit over a window of `windowSeconds` (RATE_LIMIT_WINDOW_SECONDS):
 * the same average rate, at least one request per window.
 */
export function limitForWindow(perMinute: number, windowSeconds: number): number {
  return Math.max(1, Math.round((perMinute * windowSeconds) / 60));
}
const KEY_PREFIX = "wpreport:rl:";

export function decide(window: WindowCount, limit: number): RateLimitDecision {
  return {
    allowed: window.count <= limit,
    limit,
    remaining: Math.max(0, limit - window.count),
    resetMs: Math.max(0, window.resetMs),
    windowMs: window.windowMs,
  };
}

/** Count and decide in one step. */
export async function hit(limiter: RateLimiter, key: string, limit: number, windowMs = RATE_WINDOW_MS) {
  return decide(await limiter.count(key, windowMs), limit);
}

interface WindowState {
  count: number;
  resetAt: number;
}

// KEYS[1] = counter, ARGV[1] = window in ms. Returns { count, ms until reset }.
const COUNT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }`;

// KEYS[1] = counter. Decrements an open window, never below 0.
const UNCOUNT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

// KEYS[1] = counter. Returns { count, ms until reset } without changing anything.
const PEEK_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return { count, ttl }`;

type RedisWithScripts = Redis & {
  wpreportCount(key: string, windowMs: number): Promise<[number, number]>;
  wpreportPeek(key: string): Promise<[number, number]>;
  wpreportUncount(key: string): Promise<number>;
};

/** Atomic in-process counting on the unstorage memory driver's Map. */
class MemoryCounter {
  private readonly windows: Map<string, unknown>;
  private lastPrune = Date.now();

  constructor(private readonly storage: Storage) {
    this.windows = storage.getMount("").driver.getInstance?.() as Map<string, unknown>;
  }

  count(key: string, windowMs: number): WindowCount {
    const now = Date.now();
    this.prune(now);
    let state = this.windows.get(key) as WindowState | undefined;
    if (!state || state.resetAt <= now) {
      state = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, state);
    }
    state.count += 1;
    return { count: state.count, resetMs: state.resetAt - now, windowMs };
  }

  uncount(key: string): void {
    const state = this.windows.get(key) as WindowState | undefined;
    if (state && state.resetAt > Date.now() && state.count > 0) state.count -= 1;
  }

  peek(key: string): { count: number; resetMs: number } {
    const now = Date.now();
    const state = this.windows.get(key) as WindowState | undefined;
    if (!state || state.resetAt <= now) return { count: 0, resetMs: 0 };
    return { count: state.count, resetMs: state.resetAt - now };
  }

  /** Drops expired windows now and then so idle accounts do not accumulate. */
  private prune(now: number) {
    if (now - this.lastPrune < 60_000) return;
    this.lastPrune = now;
    for (const [key, value] of this.windows) {
      if ((value as WindowState).resetAt <= now) this.windows.delete(key);
    }
  }

  async close() {
    await this.storage.dispose();
  }
}

export function createMemoryRateLimiter(): RateLimiter {
  const memory = new MemoryCounter(createStorage({ driver: memoryDriver() }));
  return {
    backend: "memory",
    async count(key, windowMs = RATE_WINDOW_MS) {
      return memory.count(KEY_PREFIX + key, windowMs);
    },
    async peek(key) {
      return memory.peek(KEY_PREFIX + key);
    },
    async uncount(key) {
      memory.uncount(KEY_PREFIX + key);
    },
    close: () => memory.close(),
  };
}

export function createRedisRateLimiter(redisUrl: string, logger: Logger): RateLimiter {
  const storage = createStorage({
    driver: redisDriver({
      url: redisUrl,
      // Fail fast instead of queueing while Redis is away: the memory fallback answers.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2_000,
      commandTimeout: 500,
      lazyConnect: false,
    }),
  });
  const client = storage.getMount("").driver.getInstance?.() as RedisWithScripts;
  client.defineCommand("wpreportCount", { numberOfKeys: 1, lua: COUNT_SCRIPT });
  client.defineCommand("wpreportPeek", { numberOfKeys: 1, lua: PEEK_SCRIPT });
  client.defineCommand("wpreportUncount", { numberOfKeys: 1, lua: UNCOUNT_SCRIPT });
  // ioredis reconnects on its own; errors are reported through the fallback warning.
  client.on("error", () => {});

  const fallback = new MemoryCounter(createStorage({ driver: memoryDriver() }));
  let lastWarning = 0;
  const warn = (error: unknown) => {
    const now = Date.now();
    if (now - lastWarning < 30_000) return;
    lastWarning = now;
    logger.warn("rate limiter: Redis unavailable, using the per-instance memory limiter", {
      error: (error as Error).message,
    });
  };

  return {
    backend: "redis",
    async count(key, windowMs = RATE_WINDOW_MS) {
      try {
        const [count, ttl] = await client.wpreportCount(KEY_PREFIX + key, windowMs);
        return { count: Number(count), resetMs: Number(ttl), windowMs };
      } catch (error) {
        warn(error);
        return fallback.count(KEY_PREFIX + key, windowMs);
      }
    },
    async peek(key) {
      try {
        const [count, ttl] = await client.wpreportPeek(KEY_PREFIX + key);
        return { count: Number(count), resetMs: Number(ttl) };
      } catch (error) {
        warn(error);
        return fallback.peek(KEY_PREFIX + key);
      }
    },
    async uncount(key) {
      try {
        await client.wpreportUncount(KEY_PREFIX + key);
      } catch (error) {
        warn(error);
        fallback.uncount(KEY_PREFIX + key);
      }
    },
    async close() {
      await fallback.close();
      await storage.dispose();
    },
  };
}

export function createRateLimiter(redisUrl: string | undefined, logger: Logger): RateLimiter {
  return redisUrl ? createRedisRateLimiter(redisUrl, logger) : createMemoryRateLimiter();
}

/** The response headers for a decision: IETF draft RateLimit fields and the X- classics. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const resetSeconds = Math.ceil(decision.resetMs / 1000);
  const windowSeconds = Math.round(decision.windowMs / 1000);
  return {
    "ratelimit-policy": `"default";q=${decision.limit};w=${windowSeconds}`,
    ratelimit: `"default";r=${decision.remaining};t=${resetSeconds}`,
    "x-ratelimit-limit": String(decision.limit),
    "x-ratelimit-remaining": String(decision.remaining),
    // Unix time in seconds, as GitHub's API does.
    "x-ratelimit-reset": String(Math.ceil((Date.now() + decision.resetMs) / 1000)),
  };
}
