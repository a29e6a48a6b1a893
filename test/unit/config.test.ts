import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../server/config.ts";

describe("loadConfig", () => {
  test("defaults: port 3000, embedded database under ./data, memory rate limiter, empty allowlist", () => {
    const config = loadConfig({}, "/srv/app");
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      databaseUrl: undefined,
      dataDir: "/srv/app/data",
      redisUrl: undefined,
      publicBaseUrl: "http://localhost:3000",
      targetAllowlist: [],
      analysisTimeoutMs: 30_000,
      maxBodyBytes: 65_536,
      logLevel: "info",
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
      port: 8080,
      databaseUrl: "postgres://u@db:5432/wp",
      redisUrl: "redis://cache:6379",
      dataDir: "/var/lib/wpreport",
      publicBaseUrl: "https://api.example.com",
      targetAllowlist: ["127.0.0.1", "localhost", "10.0.0.0/8"],
      logLevel: "warn",
      dbPoolMax: 10,
    });
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
});
