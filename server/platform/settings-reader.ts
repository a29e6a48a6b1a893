/**
 * The small parsers every feature's settings (`<feature>/settings.ts`) read environment
 * variables with. They never throw: a bad value is written down in `problems` and the default
 * stands in, so start/config.ts can report every mistake at once (one restart, not one per
 * mistake).
 */

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export interface SettingsReader {
  /** The folder relative paths in settings are resolved against. */
  readonly cwd: string;
  /** What is wrong so far, one line each; a parser adds to it. */
  readonly problems: string[];
  /** The trimmed value, or undefined when unset or blank. */
  read(name: string): string | undefined;
  /** A whole number in [min, max]; the fallback when unset (or wrong, with a problem). */
  int(name: string, fallback: number, min: number, max: number): number;
  /** A URL with one of the protocols (e.g. "https:"); undefined when unset (or wrong, with a problem). */
  url(name: string, protocols: string[]): string | undefined;
}

export function settingsReader(env: Env, cwd: string): SettingsReader {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const raw = env[name];
    return raw === undefined || raw.trim() === "" ? undefined : raw.trim();
  };

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw)) {
      problems.push(`${name} must be a whole number between ${min} and ${max}, got "${raw}"`);
      return fallback;
    }
    const value = Number(raw);
    if (value < min || value > max) {
      problems.push(`${name} must be between ${min} and ${max}, got ${value}`);
      return fallback;
    }
    return value;
  };

  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      problems.push(`${name} is not a valid URL (expected ${protocols.join(" or ")}…)`);
      return undefined;
    }
    if (!protocols.includes(parsed.protocol)) {
      problems.push(`${name} must start with ${protocols.join(" or ")}, got "${parsed.protocol}"`);
      return undefined;
    }
    return raw;
  };

  return { cwd, problems, read, int, url };
}
