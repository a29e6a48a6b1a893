/**
 * Entity tags for responses whose bytes a client may keep (RFC 9110 §8.8.3). A strong tag is
 * a hash of the exact body, so it changes whenever a byte does — another representation
 * (JSON vs SARIF), a new server version that writes a field differently — and no record of
 * versions is needed. Compressed bodies get their own tag in representation.ts.
 */
import { createHash } from "node:crypto";

/** `"<22 base64url characters of SHA-256>"` (132 bits): collisions are not a concern. */
export function entityTag(body: string | Uint8Array): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
}
