/**
 * Per-account request rate limiting (SPEC.md §3, §5), on unstorage.
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
import type { Logger } from "../logging/logger.ts";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
  windowMs: number;
}

export interface RateLimiter {
  readonly backend: "memory" | "redis";
  hit(key: string, limit: number, windowMs?: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export const RATE_WINDOW_MS = 60_000;
const KEY_PREFIX = "wpreport:rl:";

interface WindowState {
  count: number;
  resetAt: number;
}

// KEYS[1] = counter, ARGV[1] = window in ms. Returns { count, ms until reset }.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }`;

type RedisWithHit = Redis & {
  wpreportHit(key: string, windowMs: number): Promise<[number, number]>;
};

function decide(count: number, limit: number, resetMs: number, windowMs: number): RateLimitDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetMs: Math.max(0, resetMs),
    windowMs,
  };
}

/** Atomic in-process counting on the unstorage memory driver's Map. */
class MemoryCounter {
  private readonly windows: Map<string, unknown>;
  private lastPrune = Date.now();

  constructor(private readonly storage: Storage) {
    this.windows = storage.getMount("").driver.getInstance?.() as Map<string, unknown>;
  }

  hit(key: string, limit: number, windowMs: number): RateLimitDecision {
    const now = Date.now();
    this.prune(now);
    let state = this.windows.get(key) as WindowState | undefined;
    if (!state || state.resetAt <= now) {
      state = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, state);
    }
    state.count += 1;
    return decide(state.count, limit, state.resetAt - now, windowMs);
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
    async hit(key, limit, windowMs = RATE_WINDOW_MS) {
      return memory.hit(KEY_PREFIX + key, limit, windowMs);
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
  const client = storage.getMount("").driver.getInstance?.() as RedisWithHit;
  client.defineCommand("wpreportHit", { numberOfKeys: 1, lua: HIT_SCRIPT });
  // ioredis reconnects on its own; errors are reported through the fallback warning.
  client.on("error", () => {});

  const fallback = new MemoryCounter(createStorage({ driver: memoryDriver() }));
  let lastWarning = 0;

  return {
    backend: "redis",
    async hit(key, limit, windowMs = RATE_WINDOW_MS) {
      try {
        const [count, ttl] = await client.wpreportHit(KEY_PREFIX + key, windowMs);
        return decide(Number(count), limit, Number(ttl), windowMs);
      } catch (error) {
        const now = Date.now();
        if (now - lastWarning > 30_000) {
          lastWarning = now;
          logger.warn("rate limiter: Redis unavailable, using the per-instance memory limiter", {
            error: (error as Error).message,
          });
        }
        return fallback.hit(KEY_PREFIX + key, limit, windowMs);
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
