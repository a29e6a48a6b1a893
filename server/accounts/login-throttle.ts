/**
 * Throttling of password guesses without handing attackers a way to lock people out
 * (OWASP Authentication cheat sheet: per-address limits, per-account backoff, device cookies).
 *
 * Every attempt is counted *before* its password is checked (atomically, so a burst of
 * parallel attempts cannot all slip past the check), and taken back when it succeeds: in
 * effect only failures count, and a person who types their password right is never slowed
 * down by their own log-ins.
 * - Per address: after `perAddress` failures in the window, that address is refused for
 *   every account (one machine guessing many accounts). IPv6 clients count per /64.
 * - Per account and address: after `perAccountAddress` failures, that address is refused for
 *   that account. An attacker locks out only themselves; the owner logs in from elsewhere.
 * - Per account, all addresses: from `accountSoftLimit` failures on (a guess spread over
 *   many addresses), each failure starts a cooldown before the next attempt, from
 *   `backoffBaseSeconds` doubling up to `maxBackoffSeconds`, and only one attempt at a time
 *   is checked — except an address's first `freshAddressAttempts` attempts on the account
 *   in the window, which never wait for it.
 *
 * Why the exception: the cooldown admits one check at a time for the whole account, and an
 * attacker who tries every half second from a few addresses takes that one check every
 * time it opens — the owner, typing once, was refused for minutes (issue 21, row 6). An
 * address that has not failed on the account is not part of that attack; its first tries
 * are checked at once. So the owner in a new browser, on an address of their own, waits
 * for nothing; a known browser (device cookie) skips the cooldown from any address. What
 * it costs: a guess spread over N addresses gets `freshAddressAttempts` checks per address
 * and window past the soft limit (2N per 15 minutes), plus one per cooldown.
 *
 * A client whose address says nothing (`address` undefined: a same-host proxy's peer
 * without TRUST_PROXY, see throttleClient) is counted by the account only: per-address
 * limits would be one limit for everybody behind the proxy, and it gets no fresh-address
 * exception (it could be anyone).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import ipaddr from "ipaddr.js";
import type { RateLimiter } from "../access/rate-limiter.ts";

export interface LoginPolicy {
  windowMs: number;
  perAddress: number;
  perAccountAddress: number;
  accountSoftLimit: number;
  backoffBaseSeconds: number;
  maxBackoffSeconds: number;
  /** Attempts per address and account in the window that never wait for the account's cooldown. */
  freshAddressAttempts: number;
}

export const LOGIN_POLICY: LoginPolicy = {
  windowMs: 15 * 60_000,
  perAddress: 20,
  perAccountAddress: 5,
  accountSoftLimit: 10,
  backoffBaseSeconds: 5,
  maxBackoffSeconds: 60,
  freshAddressAttempts: 2,
};

export interface LoginRefusal {
  /** Whose counter refused: decides the wording. */
  scope: "address" | "account";
  retryAfterSeconds: number;
}

export class LoginThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly policy: LoginPolicy = LOGIN_POLICY,
  ) {}

  /**
   * Counts the attempt and says why it may not be checked now, or undefined when it may.
   * Call `succeeded` after a right password (the attempt is taken back) or `failed` after a
   * wrong one; a refused attempt needs neither.
   */
  async attempt(
    account: string,
    address: string | undefined,
    trustedDevice: boolean,
  ): Promise<LoginRefusal | undefined> {
    const { policy } = this;
    let pairCount = Number.POSITIVE_INFINITY;
    if (address !== undefined) {
      const byAddress = await this.limiter.count(`login:fail:ip:${address}`, policy.windowMs);
      if (byAddress.count > policy.perAddress)
        return { scope: "address", retryAfterSeconds: seconds(byAddress.resetMs) };
      if (!account) return undefined;
      const pair = await this.limiter.count(`login:fail:pair:${account}:${address}`, policy.windowMs);
      if (pair.count > policy.perAccountAddress) return { scope: "address", retryAfterSeconds: seconds(pair.resetMs) };
      pairCount = pair.count;
    }
    if (!account || trustedDevice) return undefined;
    const failures = (await this.limiter.peek(`login:fail:account:${account}`)).count;
    if (failures < policy.accountSoftLimit) return undefined;
    // An address new to this account: its first tries are not part of the spread guess.
    if (pairCount <= policy.freshAddressAttempts) return undefined;
    const cooldown = await this.limiter.peek(`login:cooldown:${account}:${failures}`);
    if (cooldown.count > 0) return { scope: "account", retryAfterSeconds: seconds(cooldown.resetMs) };
    // Past the soft limit, one attempt per failure count: parallel guesses queue behind it.
    const gate = await this.limiter.count(`login:gate:${account}:${failures}`, this.cooldownMs(failures));
    return gate.count > 1 ? { scope: "account", retryAfterSeconds: seconds(gate.resetMs) } : undefined;
  }

  /** The password was right: this attempt does not count against the address or the pair. */
  async succeeded(account: string, address: string | undefined): Promise<void> {
    if (address === undefined) return;
    await this.limiter.uncount(`login:fail:ip:${address}`);
    if (account) await this.limiter.uncount(`login:fail:pair:${account}:${address}`);
  }

  /** The password was wrong: the account's failures grow, and past the soft limit a cooldown starts. */
  async failed(account: string): Promise<void> {
    if (!account) return;
    const failures = (await this.limiter.count(`login:fail:account:${account}`, this.policy.windowMs)).count;
    if (failures >= this.policy.accountSoftLimit) {
      // One cooldown per failure count: the next failure opens a new, twice as long one.
      await this.limiter.count(`login:cooldown:${account}:${failures}`, this.cooldownMs(failures));
    }
  }

  private cooldownMs(failures: number): number {
    const { policy } = this;
    const exponent = Math.max(0, failures - policy.accountSoftLimit);
    return Math.min(policy.maxBackoffSeconds, policy.backoffBaseSeconds * 2 ** exponent) * 1000;
  }
}

/**
 * The address a throttle counts: IPv4 as is, IPv6 by its /64 (one customer network is
 * usually a /64, and every address in it is the same attacker's).
 */
export function throttleAddress(address: string): string {
  if (!address.includes(":")) return address;
  try {
    const parts = ipaddr.IPv6.parse(address).toNormalizedString().split(":");
    return `${parts.slice(0, 4).join(":")}::/64`;
  } catch {
    return address;
  }
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** "Try again in …" for a refusal. */
export function retryWords(retryAfterSeconds: number): string {
  if (retryAfterSeconds < 90) return `${retryAfterSeconds} second${retryAfterSeconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/**
 * The device cookie: proof that this browser logged in to the account before. Keyed with
 * the account's password hash, which only the server knows, so it cannot be forged, needs
 * no stored secret, and every device cookie ends when the password changes.
 */
export const DEVICE_COOKIE = "wpr_device";
export const DEVICE_DAYS = 90;

function deviceMac(accountId: string, expires: number, passwordHash: string): string {
  return createHmac("sha256", passwordHash).update(`device|${accountId}|${expires}`).digest("base64url");
}

export function deviceCookieValue(accountId: string, passwordHash: string, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + DEVICE_DAYS * 86_400;
  return `${accountId}.${expires}.${deviceMac(accountId, expires, passwordHash)}`;
}

export function isTrustedDevice(
  value: string | null | undefined,
  credentials: { accountId: string; passwordHash: string | null } | undefined,
  now = Date.now(),
): boolean {
  if (!value || !credentials?.passwordHash) return false;
  const [accountId, expiresText, mac] = value.split(".");
  const expires = Number(expiresText);
  if (accountId !== credentials.accountId || !Number.isSafeInteger(expires) || expires * 1000 <= now || !mac)
    return false;
  const expected = Buffer.from(deviceMac(accountId, expires, credentials.passwordHash));
  const sent = Buffer.from(mac);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}
