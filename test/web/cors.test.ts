/**
 * CORS as a browser enforces it: Debian's Chromium loads a page from another origin (a second
 * loopback server, on another host name and port) whose script calls the API with a bearer
 * token. Chromium sends the preflight itself; the calls work, the exposed headers are
 * readable, and what the policy does not allow (credentials, other headers, the web
 * interface) is refused by the browser. The HTTP-level checks are in test/http-conventions.test.ts.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Server } from "bun";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startBlog, type TestSite } from "../helpers/sites.ts";
import { acquireBrowser, HAS_CHROMIUM, openPage, releaseBrowser, type TestPage } from "./browser.ts";

setDefaultTimeout(30_000);

let service: TestService;
let blog: TestSite;
let other: Server<undefined>;
let client: TestPage;
let token: string;

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  [service] = await Promise.all([startTestService(), acquireBrowser()]);
  blog = startBlog();
  ({ token } = await service.token());
  // Another origin: `localhost` and its own port, while the API is at 127.0.0.1.
  other = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response("<!doctype html><html lang=en><title>dashboard elsewhere</title><h1>client</h1></html>", {
        headers: { "content-type": "text/html; charset=utf-8" },
      }),
  });
  client = await openPage(`http://localhost:${other.port}`);
  await client.page.goto("/");
});
afterAll(async () => {
  if (!HAS_CHROMIUM) return;
  await client?.close();
  releaseBrowser();
  other?.stop(true);
  blog?.stop();
  await service?.stop();
});

interface PageAnswer {
  status: number;
  body: string;
  headers: Record<"location" | "etag" | "requestId" | "remaining" | "rateLimit" | "retryAfter", string | null>;
}

/** Runs fetch in the page (origin http://localhost:<port>); a call the browser refuses comes back as `error`. */
function fetchFromPage(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; credentials?: RequestCredentials } = {},
): Promise<PageAnswer | { error: string }> {
  return client.page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        const read = (name: string) => response.headers.get(name);
        return {
          status: response.status,
          body: await response.text(),
          headers: {
            location: read("location"),
            etag: read("etag"),
            requestId: read("x-request-id"),
            remaining: read("x-ratelimit-remaining"),
            rateLimit: read("ratelimit"),
            retryAfter: read("retry-after"),
          },
        };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { url, init },
  );
}

describe.skipIf(!HAS_CHROMIUM)("CORS in Chromium", () => {
  test("the page's origin is not the API's", async () => {
    expect(await client.page.evaluate(() => location.origin)).not.toBe(service.url);
  });

  test("GET /api/usage with a bearer token from another origin works; exposed headers are readable", async () => {
    const answer = await fetchFromPage(`${service.url}/api/usage`, { headers: { authorization: `Bearer ${token}` } });
    if (!("status" in answer)) throw new Error(`refused by the browser: ${answer.error}`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).plan.id).toBe("starter");
    expect(answer.headers.requestId).toMatch(/^req_/);
    expect(Number(answer.headers.remaining)).toBeGreaterThan(0);
    expect(answer.headers.rateLimit).toContain("r=");
  });

  test("POST /api/generate-report with JSON, Idempotency-Key and Prefer; Location and ETag are readable", async () => {
    const created = await fetchFromPage(`${service.url}/api/generate-report`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "idempotency-key": `cors-${Date.now()}`,
        prefer: "return=representation",
        "x-request-id": "cors-test-0001",
      },
      body: JSON.stringify({ url: blog.url }),
    });
    if (!("status" in created)) throw new Error(`refused by the browser: ${created.error}`);
    expect(created.status).toBe(201);
    expect(created.headers.requestId).toBe("cors-test-0001");
    const location = created.headers.location as string;
    expect(location).toBe(`${service.url}/api/report/${JSON.parse(created.body).id}`);
    const fetched = await fetchFromPage(location, {
      headers: { authorization: `Bearer ${token}`, accept: "application/sarif+json" },
    });
    if (!("status" in fetched)) throw new Error(`refused by the browser: ${fetched.error}`);
    expect(fetched.status).toBe(200);
    expect(JSON.parse(fetched.body).version).toBe("2.1.0");
    expect(fetched.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}(-br|-gzip)?"$/);
  });

  test("errors are readable too (401 with its problem body)", async () => {
    const answer = await fetchFromPage(`${service.url}/api/usage`, { headers: { authorization: "Bearer wpr_nope" } });
    if (!("status" in answer)) throw new Error(`refused by the browser: ${answer.error}`);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).code).toBe("unauthorized");
  });

  test("what the policy does not allow is refused by the browser", async () => {
    // Credentials: never with `*` (and the API does not use cookies).
    const credentialed = await fetchFromPage(`${service.url}/api/usage`, {
      headers: { authorization: `Bearer ${token}` },
      credentials: "include",
    });
    expect(credentialed).toEqual({ error: expect.stringContaining("TypeError") });
    // A request header the preflight does not allow.
    const custom = await fetchFromPage(`${service.url}/api/usage`, {
      headers: { authorization: `Bearer ${token}`, "x-custom": "1" },
    });
    expect(custom).toEqual({ error: expect.stringContaining("TypeError") });
    // The web interface shares nothing with other origins.
    for (const path of ["/", "/dashboard", "/healthz"]) {
      expect({ path, answer: await fetchFromPage(`${service.url}${path}`) }).toEqual({
        path,
        answer: { error: expect.stringContaining("TypeError") },
      });
    }
  });
});
