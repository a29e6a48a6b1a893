/**
 * The log-in throttle's policy on both limiter backends (memory, and Redis where it runs):
 * only failures count, per address and per account+address limits, the account cooldown
 * that doubles and is capped, and the device cookie that skips it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from "../../server/access/rate-limiter.ts";
import {
  deviceCookieValue,
  isTrustedDevice,
  LOGIN_POLICY,
  LoginThrottle,
  retryWords,
  throttleAddress,
} from "../../server/accounts/login-throttle.ts";
import { silentLogger } from "../../server/platform/logger.ts";
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

  test("per account and address: the 6th failure from one address is refused, other addresses are not", async () => {
    const throttle = new LoginThrottle(limiter);
    const account = unique("owner@example.com");
    for (let i = 0; i < LOGIN_POLICY.perAccountAddress; i++) {
      expect(await throttle.attempt(account, "192.0.2.1", false)).toBeUndefined();
      await throttle.failed(account);
    }
    const refusal = await throttle.attempt(account, "192.0.2.1", false);
    expect(refusal?.scope).toBe("address");
    expect(refusal?.retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect(await throttle.attempt(account, "192.0.2.2", false)).toBeUndefined();
  });

  test("successful attempts are taken back: the owner is never throttled by their own log-ins", async () => {
    const throttle = new LoginThrottle(limiter);
    const account = unique("regular@example.com");
    for (let i = 0; i < 3 * LOGIN_POLICY.perAccountAddress; i++) {
      expect(await throttle.attempt(account, "192.0.2.9", false)).toBeUndefined();
      await throttle.succeeded(account, "192.0.2.9");
    }
  });

  test("a parallel burst cannot slip past the check: only the limit gets through", async () => {
    const throttle = new LoginThrottle(limiter);
    const account = unique("burst@example.com");
    const results = await Promise.all(Array.from({ length: 40 }, () => throttle.attempt(account, "192.0.2.50", false)));
    expect(results.filter((refusal) => refusal === undefined)).toHaveLength(LOGIN_POLICY.perAccountAddress);
  });

  test("per address: 20 failures over many accounts refuse the address for every account", async () => {
    const throttle = new LoginThrottle(limiter);
    const address = unique("198.51.100.1");
    for (let i = 0; i < LOGIN_POLICY.perAddress; i++) {
      const account = unique("a@example.com");
      expect(await throttle.attempt(account, address, false)).toBeUndefined();
      await throttle.failed(account);
    }
    expect((await throttle.attempt(unique("b@example.com"), address, true))?.scope).toBe("address");
    expect(await throttle.attempt("", address, false)).toBeDefined();
  });

  test("the account cooldown starts at the soft limit, doubles, is capped, and a trusted device skips it", async () => {
    // No fresh-address exception here: this test is about the cooldown itself.
    const policy = {
      ...LOGIN_POLICY,
      accountSoftLimit: 3,
      backoffBaseSeconds: 5,
      maxBackoffSeconds: 12,
      freshAddressAttempts: 0,
    };
    const throttle = new LoginThrottle(limiter, policy);
    const account = unique("target@example.com");
    const cooldowns: number[] = [];
    for (let i = 1; i <= 6; i++) {
      await throttle.failed(account);
      cooldowns.push((await throttle.attempt(account, `203.0.113.${i}`, false))?.retryAfterSeconds ?? 0);
    }
    expect(cooldowns).toEqual([0, 0, 5, 10, 12, 12]);
    expect(await throttle.attempt(account, "203.0.113.200", true)).toBeUndefined();
  });

  test("past the soft limit, parallel attempts from many addresses are checked one at a time", async () => {
    const policy = { ...LOGIN_POLICY, accountSoftLimit: 2, backoffBaseSeconds: 5, freshAddressAttempts: 0 };
    const throttle = new LoginThrottle(limiter, policy);
    const account = unique("gated@example.com");
    await throttle.failed(account);
    // Failure 1 of 2: below the soft limit, every address may try.
    expect(await throttle.attempt(account, "203.0.113.1", false)).toBeUndefined();
    await throttle.failed(account);
    // Failure 2 starts a cooldown: nobody without a device cookie gets a check now.
    const during = await Promise.all(
      Array.from({ length: 10 }, (_, i) => throttle.attempt(account, `203.0.113.${10 + i}`, false)),
    );
    expect(during.every((refusal) => refusal?.scope === "account")).toBe(true);
  });

  test("past the soft limit, an address's first attempts on the account never wait; later ones do", async () => {
    const policy = { ...LOGIN_POLICY, accountSoftLimit: 2, backoffBaseSeconds: 5 };
    const throttle = new LoginThrottle(limiter, policy);
    const account = unique("fresh@example.com");
    for (let i = 0; i < 4; i++) await throttle.failed(account);
    const address = unique("198.51.100.70");
    for (let i = 0; i < policy.freshAddressAttempts; i++)
      expect(await throttle.attempt(account, address, false)).toBeUndefined();
    expect((await throttle.attempt(account, address, false))?.scope).toBe("account");
    expect(await throttle.attempt(account, unique("198.51.100.71"), false)).toBeUndefined();
  });

  test("a client with no address (a same-host proxy's peer) is counted by the account only", async () => {
    const policy = { ...LOGIN_POLICY, accountSoftLimit: 3 };
    const throttle = new LoginThrottle(limiter, policy);
    const account = unique("proxied@example.com");
    // Far past every per-address limit: still not refused while the account is under its soft limit.
    for (let i = 0; i < 2; i++) {
      expect(await throttle.attempt(account, undefined, false)).toBeUndefined();
      await throttle.failed(account);
    }
    for (let i = 0; i < 3 * LOGIN_POLICY.perAddress; i++)
      expect(await throttle.attempt(unique("other@example.com"), undefined, false)).toBeUndefined();
    expect(await throttle.attempt(account, undefined, false)).toBeUndefined();
    await throttle.failed(account);
    // Past it, the cooldown holds everyone without a device cookie — no fresh-address exception.
    expect((await throttle.attempt(account, undefined, false))?.scope).toBe("account");
    expect(await throttle.attempt(account, undefined, true)).toBeUndefined();
  });
});

test("IPv6 clients are throttled per /64; IPv4 per address", () => {
  expect(throttleAddress("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
  expect(throttleAddress("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
  expect(throttleAddress("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
  expect(throttleAddress("198.51.100.7")).toBe("198.51.100.7");
  expect(throttleAddress("unknown")).toBe("unknown");
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
