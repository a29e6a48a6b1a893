/**
 * A real wpreport instance for a test: real HTTP server, real database (PGlite or a
 * fresh PostgreSQL database), real rate limiter; plus helpers to mint tokens and call it.
 */
import net from "node:net";
import type { PlanId } from "../../server/billing/plans.ts";
import { createLogger } from "../../server/platform/logger.ts";
import { loadConfig } from "../../server/start/config.ts";
import { type RunningService, type StartOptions, startService } from "../../server/start/runtime.ts";
import { type Backend, createTestDatabase, type TestDatabase } from "./databases.ts";

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestService {
  url: string;
  running: RunningService;
  db: TestDatabase;
  /** Creates (or reuses) an account and returns a fresh token for it. */
  token(email?: string, plan?: PlanId): Promise<{ token: string; accountId: string; tokenId: string }>;
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

let accountCounter = 0;

export async function startTestService(
  options: {
    backend?: Backend;
    /** Share an existing database (several instances on one PostgreSQL). */
    db?: TestDatabase;
    env?: Record<string, string>;
  } & Omit<StartOptions, "db"> = {},
): Promise<TestService> {
  const db = options.db ?? (await createTestDatabase(options.backend ?? "pglite"));
  const ownsDb = !options.db;
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    TARGET_ALLOWLIST: "127.0.0.1,localhost,::1",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
    // No lookups on the internet from tests (there is none here); tests that need
    // WordPress.org, WPVulnerability or a refresh point these at local stubs.
    WPORG_API_URL: "off",
    WPVULNERABILITY_API_URL: "off",
    INTEL_REFRESH_CRON: "off",
    // Every test site is on 127.0.0.1, one target for the per-target limits: the pace (and the
    // second a slot is held after each analysis) would only slow the suites down. The tests of
    // the pace set it (test/platform/queue/target-limits.test.ts).
    TARGET_MAX_RPS: "0",
    // The embedded database's folder, where the service keeps its files (the webhook secret key).
    ...(db.dataDir ? { DATA_DIR: db.dataDir } : {}),
    ...options.env,
  });
  const running = await startService(config, createLogger(config.platform.logLevel), { ...options, db });
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    running,
    db,
    async token(email, plan = "starter") {
      const address = email ?? `user${++accountCounter}-${Date.now()}@example.com`;
      const { account } = await running.services.accounts.ensure(address, plan);
      const { token, record } = await running.services.tokens.create(account.id, { name: "test" });
      return { token, accountId: account.id, tokenId: record.id };
    },
    async call(method, path, callOptions = {}) {
      const headers: Record<string, string> = { ...callOptions.headers };
      if (callOptions.token) headers.authorization = `Bearer ${callOptions.token}`;
      let body: string | undefined;
      if (callOptions.body !== undefined) {
        body = typeof callOptions.body === "string" ? callOptions.body : JSON.stringify(callOptions.body);
        headers["content-type"] ??= "application/json";
      }
      const response = await fetch(`${url}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed as never };
    },
    async stop() {
      await running.stop();
      if (ownsDb) await db.destroy();
    },
  };
}
