/**
 * Signing up, signing in and changing the password: the rules, with no HTTP in them. The web
 * interface turns forms into these calls and the answers into pages; sessions and cookies
 * stay there.
 *
 * - Sign-up: a few accounts per client address and hour, a plausible email, a password that
 *   passes `passwordProblem`, and one account per email. A taken email answers like any other
 *   failure, so the form does not tell who has an account.
 * - Sign-in: throttled before the password is checked (login-throttle.ts); an unknown email
 *   costs the same Argon2id work as a wrong password (`verifyDecoy`), and both answer alike.
 * - Password change: the current password, throttled like a sign-in (a stolen session must
 *   not make guessing it cheap), then the new one must pass `passwordProblem`.
 *
 * `device` is the browser's proof of an earlier sign-in to the account (the device cookie,
 * see login-throttle.ts): it skips the per-account cooldown. Each success answers the new
 * proof to give the browser.
 */
import type { RateLimiter } from "../access/rate-limiter.ts";
import { type AccountAuthService, normaliseEmail } from "./account.service.ts";
import {
  deviceCookieValue,
  isTrustedDevice,
  type LoginRefusal,
  LoginThrottle,
  throttleAddress,
} from "./login-throttle.ts";
import { hashPassword, passwordProblem, verifyDecoy, verifyPassword } from "./password.ts";

/** Sign-ups per client address and window (sign-ins: see login-throttle.ts). */
const SIGNUP_WINDOW_MS = 60 * 60_000;
const SIGNUP_PER_IP = 10;

/** A sign-in or sign-up that worked: whose account, and the device proof for this browser. */
export interface SignedIn {
  ok: true;
  accountId: string;
  device: string;
}

export type SignUpResult =
  | SignedIn
  | { ok: false; reason: "throttled"; retryAfterMinutes: number }
  | { ok: false; reason: "invalid_email" }
  | { ok: false; reason: "weak_password"; email: string; problem: string }
  /** The email is taken, or the account could not be made: the same answer either way. */
  | { ok: false; reason: "not_created"; email: string };

export type SignInResult =
  | SignedIn
  | ({ ok: false; reason: "throttled" } & LoginRefusal)
  | { ok: false; reason: "wrong_credentials" };

export type PasswordChangeResult =
  | { ok: true; device: string }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number; hasPassword: boolean }
  | { ok: false; reason: "wrong_password"; hasPassword: boolean }
  | { ok: false; reason: "weak_password"; problem: string; hasPassword: boolean };

export class SignInService {
  private readonly logins: LoginThrottle;

  constructor(
    private readonly auth: AccountAuthService,
    private readonly limiter: RateLimiter,
  ) {
    this.logins = new LoginThrottle(limiter);
  }

  /** `address`: the client's address (IPv6 counts per /64). */
  async signUp(input: { email: string; password: string; address: string }): Promise<SignUpResult> {
    const window = await this.limiter.count(`signup:ip:${throttleAddress(input.address)}`, SIGNUP_WINDOW_MS);
    if (window.count > SIGNUP_PER_IP)
      return { ok: false, reason: "throttled", retryAfterMinutes: Math.ceil(window.resetMs / 60_000) };
    const email = normaliseEmail(input.email);
    if (!email) return { ok: false, reason: "invalid_email" };
    const problem = passwordProblem(input.password, email);
    if (problem) return { ok: false, reason: "weak_password", email, problem };
    const passwordHash = await hashPassword(input.password);
    const account = await this.auth.createWithPassword(email, passwordHash);
    if (!account) return { ok: false, reason: "not_created", email };
    return { ok: true, accountId: account.id, device: deviceCookieValue(account.id, passwordHash) };
  }

  /** `address`: the client's address, undefined when it cannot be told apart (throttleClient). */
  async signIn(input: {
    email: string;
    password: string;
    address: string | undefined;
    device: string | undefined;
  }): Promise<SignInResult> {
    const email = normaliseEmail(input.email) ?? "";
    const credentials = email ? await this.auth.credentials(email) : undefined;
    const address = input.address === undefined ? undefined : throttleAddress(input.address);
    const refusal = await this.logins.attempt(email, address, isTrustedDevice(input.device, credentials));
    if (refusal) return { ok: false, reason: "throttled", ...refusal };
    const ok = credentials?.passwordHash
      ? await verifyPassword(input.password, credentials.passwordHash)
      : await verifyDecoy(input.password);
    if (!ok || !credentials?.passwordHash) {
      await this.logins.failed(email);
      return { ok: false, reason: "wrong_credentials" };
    }
    await this.logins.succeeded(email, address);
    return {
      ok: true,
      accountId: credentials.accountId,
      device: deviceCookieValue(credentials.accountId, credentials.passwordHash),
    };
  }

  /**
   * `current` is not asked of an account without a password (made by the admin CLI): it
   * sets its first one. Every device proof made with the old password ends with it.
   */
  async changePassword(input: {
    accountId: string;
    email: string;
    current: string;
    password: string;
    address: string | undefined;
    device: string | undefined;
  }): Promise<PasswordChangeResult> {
    const { accountId, email } = input;
    const currentHash = await this.auth.passwordHash(accountId);
    const hasPassword = currentHash !== null;
    const address = input.address === undefined ? undefined : throttleAddress(input.address);
    const trusted = isTrustedDevice(input.device, { accountId, passwordHash: currentHash });
    const refusal = await this.logins.attempt(email, address, trusted);
    if (refusal) return { ok: false, reason: "throttled", retryAfterSeconds: refusal.retryAfterSeconds, hasPassword };
    if (currentHash !== null && !(await verifyPassword(input.current, currentHash))) {
      await this.logins.failed(email);
      return { ok: false, reason: "wrong_password", hasPassword };
    }
    await this.logins.succeeded(email, address);
    const problem = passwordProblem(input.password, email);
    if (problem) return { ok: false, reason: "weak_password", problem, hasPassword };
    const passwordHash = await hashPassword(input.password);
    await this.auth.setPassword(accountId, passwordHash);
    return { ok: true, device: deviceCookieValue(accountId, passwordHash) };
  }
}
