/**
 * Public identifiers: a type prefix, then 26 Crockford base32 characters holding a
 * 48-bit millisecond timestamp followed by 80 random bits (the ULID layout).
 *
 * The random part makes ids unguessable (docs/api.md: never sequential); the time prefix
 * makes them sort by creation, which keeps indexes compact and cursors simple.
 */
import { createHash } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** rep report, acc account, tok token, res reservation, clm claim; issue 25: mon monitor, whk webhook, evt event, dlv delivery, sit site. */
export type IdPrefix = "rep" | "acc" | "tok" | "res" | "clm" | "mon" | "whk" | "evt" | "dlv" | "sit";

export function newId(prefix: IdPrefix, now = Date.now()): string {
  const random = crypto.getRandomValues(new Uint8Array(10));
  let out = "";
  // 48-bit timestamp → 10 base32 characters (50 bits, top two always zero).
  let time = now;
  const timeChars: string[] = [];
  for (let i = 0; i < 10; i++) {
    timeChars.push(ALPHABET[time % 32] as string);
    time = Math.floor(time / 32);
  }
  out += timeChars.reverse().join("");
  // 80 random bits → 16 base32 characters.
  let buffer = 0;
  let bits = 0;
  for (const byte of random) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return `${prefix}_${out}`;
}

const ID_PATTERN = /^[a-z]{3}_[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `value` has the shape of an id with this prefix (cheap check before a query). */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.startsWith(`${prefix}_`) && ID_PATTERN.test(value);
}

/**
 * A site's id (docs/portfolio.md): deterministic, never stored. A site is an account's reports
 * of one normalised site key (server/analyzer/target-url.ts, `siteKey`) and one environment;
 * its id is `sit_` + the first 130 bits of SHA-256(account id, site key, environment joined by
 * line feeds) in the ids' base32 alphabet, so it has the shape `isId` checks. Reports without an
 * environment (and with an empty one) belong to the site whose environment is "".
 */
export function siteId(accountId: string, siteKey: string, environment: string | null | undefined): string {
  const digest = createHash("sha256")
    .update(`${accountId}\n${siteKey}\n${environment ?? ""}`, "utf8")
    .digest();
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of digest) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
    if (out.length === 26) break;
  }
  return `sit_${out}`;
}
