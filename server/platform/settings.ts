/**
 * The platform's own settings: where the service listens and answers, its database, Redis,
 * logging, role, proxies and the browser it may start. Read with the shared parsers
 * (settings-reader.ts); start/config.ts composes them with every feature's settings.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { SettingsReader } from "./settings-reader.ts";

export interface PlatformSettings {
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
  /**
   * True when PUBLIC_BASE_URL was set. Unset, the web interface treats the origin each
   * request was sent to (its Host) as ours, so a local trial works at any address.
   */
  publicBaseUrlSet: boolean;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  /** Connections in the database pool. */
  dbPoolMax: number;
  /** How often stale credit reservations and idempotency keys are swept, in ms. */
  sweepIntervalMs: number;
  /** Minimum log level written to stdout. */
  logLevel: LogLevel;
  /**
   * Reverse proxies of ours in front of the service (0 = none). With N, the client address is
   * the N-th X-Forwarded-For entry from the right, and X-Forwarded-Host/-Proto are honoured.
   */
  trustProxy: number;
  /** WPREPORT_ROLE: `all` (API and worker in one process), `api` or `worker`. */
  role: ServiceRole;
  /** Bearer token that opens GET /metrics; unset → /metrics is 404. */
  metricsToken: string | undefined;
  /** Chromium for client reports as PDF and lab runs (CHROMIUM_PATH); undefined → none. */
  chromiumPath: string | undefined;
}

export type ServiceRole = "all" | "api" | "worker";
const ROLES: readonly ServiceRole[] = ["all", "api", "worker"];

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];

/** Where Debian's chromium package puts the browser. */
export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

export function parsePlatformSettings(settings: SettingsReader): PlatformSettings {
  const { read, int, url, problems, cwd } = settings;
  const port = int("PORT", 3000, 0, 65535);
  const host = read("HOST") ?? "0.0.0.0";
  const databaseUrl = url("DATABASE_URL", ["postgres:", "postgresql:"]);
  const redisUrl = url("REDIS_URL", ["redis:", "rediss:"]);
  const dataDir = path.resolve(cwd, read("DATA_DIR") ?? "./data");

  let publicBaseUrl = `http://localhost:${port}`;
  const base = url("PUBLIC_BASE_URL", ["http:", "https:"]);
  const publicBaseUrlSet = read("PUBLIC_BASE_URL") !== undefined;
  if (base !== undefined) {
    const parsed = new URL(base);
    if (parsed.search || parsed.hash) {
      problems.push("PUBLIC_BASE_URL must not contain a query string or fragment");
    }
    publicBaseUrl = `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, "");
  }

  const trustProxy = (): number => {
    const raw = (read("TRUST_PROXY") ?? "false").toLowerCase();
    if (["0", "false", "no"].includes(raw)) return 0;
    if (["true", "yes"].includes(raw)) return 1;
    if (/^\d+$/.test(raw) && Number(raw) <= 10) return Number(raw);
    problems.push(`TRUST_PROXY must be true, false or the number of proxies in front (0-10), got "${raw}"`);
    return 0;
  };

  const roleRaw = (read("WPREPORT_ROLE") ?? "all").toLowerCase();
  if (!ROLES.includes(roleRaw as ServiceRole))
    problems.push(`WPREPORT_ROLE must be one of ${ROLES.join(", ")}, got "${roleRaw}"`);
  else if (roleRaw !== "all" && !databaseUrl)
    problems.push(`WPREPORT_ROLE=${roleRaw} needs DATABASE_URL: the embedded database has one owner process (use all)`);

  const logLevelRaw = (read("LOG_LEVEL") ?? "info").toLowerCase();
  if (!LOG_LEVELS.includes(logLevelRaw as LogLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevelRaw}"`);
  }

  /** CHROMIUM_PATH: a path, or off; unset → Debian's /usr/bin/chromium when it is there. */
  const chromiumPath = (): string | undefined => {
    const raw = read("CHROMIUM_PATH");
    if (raw === undefined) return existsSync(DEFAULT_CHROMIUM) ? DEFAULT_CHROMIUM : undefined;
    if (raw.toLowerCase() === "off") return undefined;
    const resolved = path.resolve(cwd, raw);
    if (!existsSync(resolved) || !statSync(resolved).isFile()) {
      problems.push(`CHROMIUM_PATH must name the Chromium executable (or be off), got "${raw}": no such file`);
      return undefined;
    }
    return resolved;
  };

  return {
    port,
    host,
    databaseUrl,
    dataDir,
    redisUrl,
    publicBaseUrl,
    publicBaseUrlSet,
    maxBodyBytes: int("MAX_BODY_BYTES", 64 * 1024, 1_024, 10 * 1024 * 1024),
    dbPoolMax: int("DB_POOL_MAX", databaseUrl ? 10 : 4, 1, 100),
    sweepIntervalMs: int("SWEEP_INTERVAL_MS", 60_000, 100, 3_600_000),
    logLevel: LOG_LEVELS.includes(logLevelRaw as LogLevel) ? (logLevelRaw as LogLevel) : "info",
    trustProxy: trustProxy(),
    role: ROLES.includes(roleRaw as ServiceRole) ? (roleRaw as ServiceRole) : "all",
    metricsToken: read("METRICS_TOKEN"),
    chromiumPath: chromiumPath(),
  };
}
