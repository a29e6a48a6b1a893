/**
 * Issue 21, row 6: 16 addresses each send a wrong password for one account every 0.5 s. The
 * owner, in a new browser on an address of their own, must get in within the bound
 * docs/accounts.md states for that case — no wait at all: an address new to the account is
 * not held by the account's cooldown, however hard others guess. The real throttle with its
 * real policy (soft limit 10, cooldown 5 s doubling to 60 s), through the web's log-in form;
 * the owner tries once every address has sent 8 guesses, and the attack stops when the owner
 * has had an answer (after 90 s at most, whatever happens).
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { LOGIN_POLICY } from "../../server/accounts/login-throttle.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { PASSWORD } from "./browser.ts";
import { Browserless, textOf } from "./forms.ts";

setDefaultTimeout(90_000);

const ATTACKERS = 16;
const INTERVAL_MS = 500;
/** Rounds every address has sent before the owner tries: past its own limit of 5 on the account. */
const WARM_UP_ROUNDS = 8;
/** The attack stops by itself after this long, whatever happens (a bound, not an assertion). */
const ATTACK_LIMIT_MS = 90_000;

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

test("16 addresses guessing every 0.5 s: the owner in a new browser gets in at the first try", async () => {
  const email = `attacked-${Date.now().toString(36)}@example.com`;
  await new Browserless(service.url, {}, "127.0.0.90").signUp(email, PASSWORD);

  const statuses: number[] = [];
  const rounds = Array.from({ length: ATTACKERS }, () => 0);
  let accountRefusals = 0;
  let attacking = true;
  const started = Date.now();
  const attacker = async (index: number) => {
    const browser = new Browserless(service.url, {}, `127.0.0.${100 + index}`);
    for (let round = 0; attacking && Date.now() - started < ATTACK_LIMIT_MS; round++) {
      const next = Date.now() + INTERVAL_MS;
      const answer = await browser.logIn(email, `wrong guess ${index}-${round}`);
      statuses.push(answer.status);
      rounds[index] = (rounds[index] ?? 0) + 1;
      if (answer.status === 429 && textOf(answer.body).includes("Too many failed attempts on this account"))
        accountRefusals++;
      await Bun.sleep(Math.max(0, next - Date.now()));
    }
  };
  const attack = Promise.all(Array.from({ length: ATTACKERS }, (_, index) => attacker(index)));

  // Wait until the attack has pushed the account past its soft limit, into the cooldown, and
  // every address has sent WARM_UP_ROUNDS guesses (past its own per-account limit of 5).
  const warm = () => accountRefusals > 0 && rounds.every((count) => count >= WARM_UP_ROUNDS);
  while (!warm() && Date.now() - started < ATTACK_LIMIT_MS) await Bun.sleep(100);
  expect(rounds.every((count) => count >= WARM_UP_ROUNDS)).toBe(true);
  expect(accountRefusals).toBeGreaterThan(0);

  // The owner, in a new browser (no device cookie), from an address of their own.
  const owner = new Browserless(service.url, {}, "127.0.0.200");
  const attempt = await owner.logIn(email, PASSWORD);
  attacking = false;
  await attack;
  expect(attempt.status).toBe(303);

  // The attack was real: the 16 addresses got far past the account's soft limit, and were refused.
  expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(LOGIN_POLICY.accountSoftLimit);
  expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(2 * ATTACKERS);
});
