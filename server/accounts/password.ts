/**
 * Passwords: Argon2id through Bun.password (memory-hard, salted, parameters in the hash).
 * Verification of an unknown account still spends the same work, so response time does not
 * tell whether an email is registered.
 */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash, "argon2id");
}

// A valid hash of a random password: verifying against it costs what a real check costs.
const decoy = Bun.password.hash(crypto.randomUUID(), { algorithm: "argon2id" });

/** Burns the time a password check would take (for unknown emails). */
export async function verifyDecoy(password: string): Promise<false> {
  await Bun.password.verify(password, await decoy, "argon2id");
  return false;
}

/** Why a new password is not acceptable, or undefined when it is. */
export function passwordProblem(password: string, email?: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Use at most ${MAX_PASSWORD_LENGTH} characters.`;
  if (email && password.toLowerCase() === email.toLowerCase()) return "Do not use your email address as the password.";
  if (/^(.)\1+$/.test(password)) return "Use more than one repeated character.";
  return undefined;
}
