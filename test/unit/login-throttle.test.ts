/**
 * The log-in throttle's policy on both limiter backends (memory, and Redis where it runs):
 * only failures count, per address and per account+address limits, the account cooldown
 * that doubles and is capped, and the device cookie that skips it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { silentLogger } from "../../server/logging/logger.ts";
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from "../../server/ratelimit/limiter.ts";
import {
  deviceCookieValue,
  isTrustedDevice,
  LOGIN_POLICY,
  LoginThrottle,
  retryWords,
} from "../../server/web/login-throttle.ts";
import { HAS_REDIS, REDIS_URL } from "../helpers/env.ts";

const limiters: [string, () => RateLimiter][] = [["memory", createMemoryRateLimiter]];
if (HAS_REDIS) limiters.push(["redis", () => createRedisRateLimiter(REDIS_URL, silentLogger)]);

describe.each(limiters)("LoginThrottle on the %s limiter", (_name, create) => {
  const limiter = create();
  afterAll(() => limiter.close());
  let n = 0;
  const unique = (label: string) => `${label}-${++n}-${crypto.randomUUID()}`;

  test("peek reads a window without counting", async () => {
    const key = unique("peek");
    expect(await limiter.peek(key)).toEqual({ count: 0, resetMs: 0 });
    await limiter.count(key, 10_000);
    await limiter.count(key, 10_000);
    const seen = await limiter.peek(key);
    expect(seen.count).toBe(2);
    expect(seen.resetMs).toBeGreaterThan(9_000);
    expect((await limiter.peek(key)).count).toBe(2);
  });

  test("per account and address: the 6th attempt from one address is refused, other addresses are not", async () => {
    const throttle = new LoginThrottle(limiter);
    const account = unique("owner@example.com");
    for (let i = 0; i < LOGIN_POLICY.perAccountAddress; i++) {
      expect(await throttle.refusal(account, "192.0.2.1", false)).toBeUndefined();
      await throttle.failed(account, "192.0.2.1");
    }
    const refusal = await throttle.refusal(account, "192.0.2.1", false);
    expect(refusal?.scope).toBe("address");
    expect(refusal?.retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect(await throttle.refusal(account, "192.0.2.2", false)).toBeUndefined();
  });

  test("per address: 20 failures over many accounts refuse the address for every account", async () => {
    const throttle = new LoginThrottle(limiter);
    const address = unique("198.51.100.1");
    for (let i = 0; i < LOGIN_POLICY.perAddress; i++) await throttle.failed(unique("a@example.com"), address);
    expect((await throttle.refusal(unique("b@example.com"), address, true))?.scope).toBe("address");
    expect(await throttle.refusal("", address, false)).toBeDefined();
  });

  test("the account cooldown starts at the soft limit, doubles, is capped, and a trusted device skips it", async () => {
    const policy = { ...LOGIN_POLICY, accountSoftLimit: 3, backoffBaseSeconds: 5, maxBackoffSeconds: 12 };
    const throttle = new LoginThrottle(limiter, policy);
    const account = unique("target@example.com");
    const cooldowns: number[] = [];
    for (let i = 1; i <= 6; i++) {
      await throttle.failed(account, `203.0.113.${i}`);
      cooldowns.push((await throttle.refusal(account, "203.0.113.200", false))?.retryAfterSeconds ?? 0);
    }
    expect(cooldowns).toEqual([0, 0, 5, 10, 12, 12]);
    expect(await throttle.refusal(account, "203.0.113.200", true)).toBeUndefined();
  });
});

describe("device cookie", () => {
  const credentials = { accountId: "acc_1", passwordHash: "$argon2id$v=19$m=65536,t=2,p=1$salt$hash" };

  test("valid for its account until it expires or the password changes", () => {
    const now = Date.parse("2026-11-23T10:00:00Z");
    const value = deviceCookieValue("acc_1", credentials.passwordHash, now);
    expect(isTrustedDevice(value, credentials, now)).toBe(true);
    expect(isTrustedDevice(value, credentials, now + 89 * 86_400_000)).toBe(true);
    expect(isTrustedDevice(value, credentials, now + 91 * 86_400_000)).toBe(false);
    expect(isTrustedDevice(value, { ...credentials, passwordHash: "$argon2id$other" }, now)).toBe(false);
    expect(isTrustedDevice(value, { ...credentials, accountId: "acc_2" }, now)).toBe(false);
    expect(isTrustedDevice(value, { ...credentials, passwordHash: null }, now)).toBe(false);
  });

  test("tampering and garbage are refused", () => {
    const now = Date.now();
    const [account, expires, mac] = deviceCookieValue("acc_1", credentials.passwordHash, now).split(".");
    for (const value of [
      `${account}.${Number(expires) + 1}.${mac}`,
      `${account}.${expires}.${mac?.slice(1)}`,
      `${account}.${expires}`,
      "",
      "...",
      undefined,
    ]) {
      expect(isTrustedDevice(value, credentials, now)).toBe(false);
    }
  });

  test("retry wording", () => {
    expect([retryWords(1), retryWords(45), retryWords(120), retryWords(900)]).toEqual([
      "1 second",
      "45 seconds",
      "2 minutes",
      "15 minutes",
    ]);
  });
});
