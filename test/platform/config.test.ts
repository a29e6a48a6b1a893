import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../server/start/config.ts";

describe("loadConfig", () => {
  test("defaults: port 3000, embedded database under ./data, memory rate limiter, empty allowlist", () => {
    const config = loadConfig({}, "/srv/app");
    expect(config).toMatchObject({
      platform: {
        port: 3000,
        host: "0.0.0.0",
        databaseUrl: undefined,
        dataDir: "/srv/app/data",
        redisUrl: undefined,
        publicBaseUrl: "http://localhost:3000",
        maxBodyBytes: 65_536,
        logLevel: "info",
      },
      reports: { targetAllowlist: [], analysisTimeoutMs: 30_000 },
    });
  });

  test("values are read and normalised", () => {
    const config = loadConfig(
      {
        PORT: "8080",
        DATABASE_URL: "postgres://u@db:5432/wp",
        REDIS_URL: "redis://cache:6379",
        DATA_DIR: "/var/lib/wpreport",
        PUBLIC_BASE_URL: "https://api.example.com/",
        TARGET_ALLOWLIST: " 127.0.0.1, localhost ,10.0.0.0/8,,",
        LOG_LEVEL: "WARN",
      },
      "/srv",
    );
    expect(config).toMatchObject({
      platform: {
        port: 8080,
        databaseUrl: "postgres://u@db:5432/wp",
        redisUrl: "redis://cache:6379",
        dataDir: "/var/lib/wpreport",
        publicBaseUrl: "https://api.example.com",
        logLevel: "warn",
        dbPoolMax: 10,
      },
      reports: { targetAllowlist: ["127.0.0.1", "localhost", "10.0.0.0/8"] },
    });
  });

  test("aggressive enumeration's budgets: defaults fit the deadline; a time budget over half of it is refused", () => {
    expect(loadConfig({}).reports.enumeration).toEqual({ maxRequests: 300, timeBudgetMs: 12_000 });
    // A short deadline shrinks the default rather than refusing to start.
    expect(loadConfig({ ANALYSIS_TIMEOUT_MS: "5000" }).reports.enumeration.timeBudgetMs).toBe(2_500);
    expect(
      loadConfig({ AGGRESSIVE_MAX_REQUESTS: "50", AGGRESSIVE_TIME_BUDGET_MS: "4000" }).reports.enumeration,
    ).toEqual({
      maxRequests: 50,
      timeBudgetMs: 4_000,
    });
    expect(() => loadConfig({ ANALYSIS_TIMEOUT_MS: "10000", AGGRESSIVE_TIME_BUDGET_MS: "8000" })).toThrow(
      "AGGRESSIVE_TIME_BUDGET_MS (8000) must be at most half of ANALYSIS_TIMEOUT_MS (10000)",
    );
  });

  test("WPVULNERABILITY_API_URL: on by default, another origin (a mirror, a stub), off, or a clear error", () => {
    expect(loadConfig({}).intel.wpvulnerabilityApiUrl).toBe("https://www.wpvulnerability.net");
    expect(loadConfig({ WPVULNERABILITY_API_URL: "http://127.0.0.1:9999" }).intel.wpvulnerabilityApiUrl).toBe(
      "http://127.0.0.1:9999",
    );
    expect(loadConfig({ WPVULNERABILITY_API_URL: "OFF" }).intel.wpvulnerabilityApiUrl).toBeUndefined();
    for (const [value, problem] of [
      ["ftp://mirror.example", 'WPVULNERABILITY_API_URL must start with http: or https:, got "ftp:"'],
      ["not a url", "WPVULNERABILITY_API_URL is not a valid URL (expected http: or https:…)"],
    ]) {
      expect(() => loadConfig({ WPVULNERABILITY_API_URL: value as string })).toThrow(ConfigError);
      try {
        loadConfig({ WPVULNERABILITY_API_URL: value as string });
      } catch (error) {
        expect((error as ConfigError).problems).toEqual([problem as string]);
      }
    }
  });

  test("every bad value is reported at once", () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: "70000",
        DATABASE_URL: "mysql://x",
        PUBLIC_BASE_URL: "https://x.example/?a=1",
        ANALYSIS_TIMEOUT_MS: "fast",
        TARGET_ALLOWLIST: "bad host!",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      "PORT must be between 0 and 65535, got 70000",
      'DATABASE_URL must start with postgres: or postgresql:, got "mysql:"',
      "PUBLIC_BASE_URL must not contain a query string or fragment",
      'TARGET_ALLOWLIST entry "bad host!" is not a host name, IP address or CIDR range',
      'ANALYSIS_TIMEOUT_MS must be a whole number between 1000 and 300000, got "fast"',
    ]);
  });

  test("TARGET_ALLOWLIST entries may name a port or a port range", () => {
    const config = loadConfig({
      TARGET_ALLOWLIST: "127.0.0.1:8088, localhost:8000-8099,10.0.0.0/8:443,[::1]:8080,[fd00::/8]:443,::1",
    });
    expect(config.reports.targetAllowlist).toEqual([
      "127.0.0.1:8088",
      "localhost:8000-8099",
      "10.0.0.0/8:443",
      "[::1]:8080",
      "[fd00::/8]:443",
      "::1",
    ]);
  });

  test("bad TARGET_ALLOWLIST ports are reported with the other problems", () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: "x",
        TARGET_ALLOWLIST: "127.0.0.2:0,127.0.0.2:65536,localhost:9000-8000,localhost:redis,fd00::/8:443,127.0.0.2:6379",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.filter((problem) => problem.startsWith("TARGET_ALLOWLIST"))).toEqual([
      'TARGET_ALLOWLIST entry "127.0.0.2:0" has an invalid port "0" (a port is 1-65535; a range is low-high, e.g. 8000-8099)',
      'TARGET_ALLOWLIST entry "127.0.0.2:65536" has an invalid port "65536" (a port is 1-65535; a range is low-high, e.g. 8000-8099)',
      'TARGET_ALLOWLIST entry "localhost:9000-8000" has an invalid port "9000-8000" (a port is 1-65535; a range is low-high, e.g. 8000-8099)',
      'TARGET_ALLOWLIST entry "localhost:redis" has an invalid port "redis" (a port is 1-65535; a range is low-high, e.g. 8000-8099)',
      'TARGET_ALLOWLIST entry "fd00::/8:443" is not a valid IPv6 address or range (with a port, IPv6 goes in brackets: [fd00::/8]:443)',
    ]);
    expect(problems.some((problem) => problem.startsWith("PORT"))).toBe(true);
  });
});
