/**
 * API token format (docs/accounts.md): `wpr_` + 30 base62 characters of secret (≈178 bits)
 * + 6 base62 characters of CRC32 checksum over the secret.
 *
 * The fixed prefix and the checksum let secret scanners (GitHub's, gitleaks) recognise a
 * leaked token with almost no false positives, and let the server reject a mistyped or
 * truncated token without a database lookup. Only the SHA-256 of the whole token is stored.
 */
import { createHash, randomInt } from "node:crypto";

export const TOKEN_PREFIX = "wpr_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
export const TOKEN_LENGTH = TOKEN_PREFIX.length + SECRET_LENGTH + CHECKSUM_LENGTH;
/** How much of a token is shown back to its owner to tell tokens apart. */
const VISIBLE_PREFIX_LENGTH = TOKEN_PREFIX.length + 6;
const TOKEN_PATTERN = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}$`);

function checksum(secret: string): string {
  let value = Bun.hash.crc32(secret);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export function generateToken(): string {
  let secret = "";
  for (let i = 0; i < SECRET_LENGTH; i++) secret += BASE62[randomInt(62)];
  return `${TOKEN_PREFIX}${secret}${checksum(secret)}`;
}

/** Shape and checksum only; says nothing about whether the token exists. */
export function isWellFormedToken(token: string): boolean {
  if (token.length !== TOKEN_LENGTH || !TOKEN_PATTERN.test(token)) return false;
  const secret = token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + SECRET_LENGTH);
  return token.endsWith(checksum(secret));
}

/** The SHA-256 digest stored at rest and used for lookups. */
export function hashToken(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** The first characters shown in listings (e.g. `wpr_a1B2c3`), never enough to use. */
export function visiblePrefix(token: string): string {
  return token.slice(0, VISIBLE_PREFIX_LENGTH);
}
