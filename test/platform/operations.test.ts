/**
 * Operations: one JSON log line per request without secrets, graceful shutdown that lets
 * in-flight work finish, readiness turning 503 while stopping.
 */
import { describe, expect, test } from "bun:test";
import { createLogger } from "../../server/platform/logger.ts";
import { loadConfig } from "../../server/start/config.ts";
import { startService } from "../../server/start/runtime.ts";
import { createPgliteDatabase } from "../helpers/databases.ts";
import { freePort } from "../helpers/service.ts";
import { blogHomepage, startSite } from "../helpers/sites.ts";

async function start(lines: string[]) {
  const db = await createPgliteDatabase();
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    HOST: "127.0.0.1",
    TARGET_ALLOWLIST: "127.0.0.1",
    LOG_LEVEL: "info",
  });
  const service = await startService(
    config,
    createLogger("info", (line) => lines.push(line)),
    { db },
  );
  const { account } = await service.services.accounts.ensure(`ops${Date.now()}@example.com`, "starter");
  const { token } = await service.services.tokens.create(account.id);
  return { db, service, token, url: `http://127.0.0.1:${port}`, accountId: account.id };
}

describe("operations", () => {
  test("one JSON line per request: id, account, route template, status, duration — never the token", async () => {
    const lines: string[] = [];
    const { db, service, token, url, accountId } = await start(lines);
    try {
      const ok = await fetch(`${url}/api/usage`, { headers: { authorization: `Bearer ${token}` } });
      await fetch(`${url}/api/report/rep_00000000000000000000000000?access_token=${token}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await fetch(`${url}/api/usage`, { headers: { authorization: "Bearer wpr_wrong" } });
      const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === "request");
      expect(requests).toHaveLength(3);
      expect(requests[0]).toMatchObject({
        level: "info",
        request_id: ok.headers.get("x-request-id"),
        method: "GET",
        route: "/api/usage",
        status: 200,
        account_id: accountId,
      });
      expect(typeof requests[0].duration_ms).toBe("number");
      expect(requests[1]).toMatchObject({ route: "/api/report/:report_id", status: 404 });
      expect(requests[2]).toMatchObject({ route: "/api/usage", status: 401 });
      expect(requests[2].account_id).toBeUndefined();
      expect(lines.join("\n")).not.toContain(token.slice(4));
    } finally {
      await service.stop();
      await db.destroy();
    }
  });

  test("graceful stop: refuses new work, finishes the analysis in flight, then closes", async () => {
    const lines: string[] = [];
    const site = startSite({
      "/": async () => {
        await Bun.sleep(800);
        return new Response(blogHomepage("http://x"), { headers: { "content-type": "text/html" } });
      },
    });
    const { db, service, token, url } = await start(lines);
    try {
      const inFlight = fetch(`${url}/api/generate-report`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ url: site.url }),
      });
      await Bun.sleep(200);
      const stopping = service.stop();
      const response = await inFlight;
      expect(response.status).toBe(201);
      await stopping;
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      site.stop();
      await db.destroy();
    }
  });

  test("database unreachable: API calls answer 503 unavailable with Retry-After, readiness fails", async () => {
    const lines: string[] = [];
    const { db, service, token, url } = await start(lines);
    try {
      await db.sql.end({ timeout: 0 });
      const response = await fetch(`${url}/api/usage`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(((await response.json()) as { code: string }).code).toBe("unavailable");
      expect((await fetch(`${url}/readyz`)).status).toBe(503);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await service.stop().catch(() => {});
      await db.destroy().catch(() => {});
    }
  });
});
