/**
 * Webhook signing secrets at rest. They sign every delivery, so unlike API tokens they cannot
 * be hashed: they are sealed with AES-256-GCM under a key that is not in the database —
 * WEBHOOK_SECRET_KEY on PostgreSQL, a key file (mode 0600) beside the embedded database — so a
 * copy of the database alone (a backup, a dump) does not give them away. The webhook's id is
 * the associated data: a sealed secret copied into another row does not open.
 *
 * Sealed form: `v1.` + base64url(12-byte nonce ‖ ciphertext ‖ 16-byte tag).
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import path from "node:path";

const VERSION = "v1.";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_FILE = "webhook-secret.key";

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("the webhook secret key must be 32 bytes");
  }

  seal(plaintext: string, associated: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, nonce);
    cipher.setAAD(Buffer.from(associated, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return VERSION + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
  }

  /** Throws when the value was not sealed under this key for this associated data. */
  open(sealed: string, associated: string): string {
    if (!sealed.startsWith(VERSION)) throw new Error("not a sealed webhook secret");
    const bytes = Buffer.from(sealed.slice(VERSION.length), "base64url");
    if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new Error("sealed webhook secret is too short");
    const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(associated, "utf8"));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString("utf8");
  }
}

/**
 * The embedded database's key: DATA_DIR/webhook-secret.key (base64, mode 0600), made on first
 * use. Two processes cannot race here: the embedded database admits one server process.
 */
export function keyFromFile(dataDir: string): Buffer {
  const file = path.join(dataDir, KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      const fd = openSync(file, "wx", 0o600);
      try {
        writeSync(fd, `${randomBytes(32).toString("base64")}\n`);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const key = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key in base64`);
  return key;
}

/** A new signing secret in the format of the standardwebhooks libraries: whsec_ + base64 of 32 bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
