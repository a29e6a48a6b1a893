/**
 * Configuration from environment variables, validated once at start-up.
 *
 * The names are part of the public contract (SPEC.md §4 "Configuration and scripting
 * contract") and are documented as a table in the README; keep the two in sync.
 * Every bad value is reported together, one clear line each, so an operator fixes them
 * in one go instead of one restart per mistake.
 */
import path from "node:path";
import { parseAllowlist } from "./analyzer/fetch/target-policy.ts";

export interface Config {
  /** TCP port the HTTP server listens on. */
  port: number;
  /** Interface the HTTP server binds to. */
  host: string;
  /** PostgreSQL connection string; undefined → embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Folder for the embedded database (absolute). */
  dataDir: string;
  /** Redis connection string for the shared rate limiter; undefined → per-instance memory. */
  redisUrl: string | undefined;
  /** Public origin used in Location headers and links, without a trailing slash. */
  publicBaseUrl: string;
  /** Hosts, IPs or CIDRs the target policy lets through although private. */
  targetAllowlist: string[];
  /** Hard deadline for one analysis, in milliseconds. */
  analysisTimeoutMs: number;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  /** Connections in the database pool. */
  dbPoolMax: number;
  /** How often stale credit reservations and idempotency keys are swept, in ms. */
  sweepIntervalMs: number;
  /** Minimum log level written to stdout. */
  logLevel: LogLevel;
}

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

/** Reads and validates the configuration; throws ConfigError listing every bad value. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
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

  const port = int("PORT", 3000, 0, 65535);
  const host = read("HOST") ?? "0.0.0.0";
  const databaseUrl = url("DATABASE_URL", ["postgres:", "postgresql:"]);
  const redisUrl = url("REDIS_URL", ["redis:", "rediss:"]);
  const dataDir = path.resolve(cwd, read("DATA_DIR") ?? "./data");

  let publicBaseUrl = `http://localhost:${port}`;
  const base = url("PUBLIC_BASE_URL", ["http:", "https:"]);
  if (base !== undefined) {
    const parsed = new URL(base);
    if (parsed.search || parsed.hash) {
      problems.push("PUBLIC_BASE_URL must not contain a query string or fragment");
    }
    publicBaseUrl = `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, "");
  }

  const targetAllowlist = (read("TARGET_ALLOWLIST") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  problems.push(...parseAllowlist(targetAllowlist).problems);

  const logLevelRaw = (read("LOG_LEVEL") ?? "info").toLowerCase();
  if (!LOG_LEVELS.includes(logLevelRaw as LogLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevelRaw}"`);
  }

  const config: Config = {
    port,
    host,
    databaseUrl,
    dataDir,
    redisUrl,
    publicBaseUrl,
    targetAllowlist,
    analysisTimeoutMs: int("ANALYSIS_TIMEOUT_MS", 30_000, 1_000, 300_000),
    maxBodyBytes: int("MAX_BODY_BYTES", 64 * 1024, 1_024, 10 * 1024 * 1024),
    dbPoolMax: int("DB_POOL_MAX", databaseUrl ? 10 : 4, 1, 100),
    sweepIntervalMs: int("SWEEP_INTERVAL_MS", 60_000, 100, 3_600_000),
    logLevel: LOG_LEVELS.includes(logLevelRaw as LogLevel) ? (logLevelRaw as LogLevel) : "info",
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
