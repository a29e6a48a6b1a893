/**
 * Conditional GETs beyond the report: every GET that returns a JSON document or list — the
 * OpenAPI document, the report's JSON Schema, /api/reports, /api/sites (and one site),
 * /api/components and the diff — carries an ETag and answers 304 to its own tag,
 * whichever coding carried it; a change in what it lists changes the tag.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Report } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type SwitchableBlog, startSwitchableBlog } from "../helpers/sites.ts";

describe.each(BACKENDS)("ETag and 304 on every document and list, on %s", (backend) => {
  let service: TestService;
  let site: SwitchableBlog;
  let token: string;
  let first: Report;
  let second: Report;

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  const generate = async () => {
    const response = await service.call<Report>("POST", "/api/generate-report", {
      token,
      body: { url: site.url, metadata: { environment: "etag" } },
    });
    expect(response.status).toBe(201);
    return response.body;
  };

  beforeAll(async () => {
    service = await startTestService({ backend });
    ({ token } = await service.token(undefined, "business"));
    site = startSwitchableBlog();
    first = await generate();
    second = await generate();
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    site?.stop();
  });

  test("each answers 304 to its own ETag, with or without compression", async () => {
    const sites = (await (await get("/api/sites")).json()) as { data: { id: string }[] };
    const siteId = sites.data[0]?.id as string;
    const paths = [
      "/api/openapi.json",
      "/api/schema/report.json",
      "/api/reports",
      "/api/sites",
      `/api/sites/${siteId}`,
      "/api/components?slug=wordpress",
      `/api/report/${second.id}/diff`,
      // (GET /api/usage is tagged too, but it counts the call itself in its rate-limit figures,
      // so its tag changes with every call.)
    ];
    for (const path of paths) {
      for (const encoding of ["identity", "gzip, br"]) {
        const response = await get(path, { "accept-encoding": encoding });
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
        await response.arrayBuffer();
        const etag = response.headers.get("etag");
        expect({ path, etag }).toEqual({ path, etag: expect.stringMatching(/^(W\/)?"[^"]+"$/) });
        const again = await get(path, { "accept-encoding": encoding, "if-none-match": etag as string });
        expect({ path, encoding, status: again.status }).toEqual({ path, encoding, status: 304 });
        expect(await again.text()).toBe("");
        // A tag the client does not hold gets the whole document.
        const other = await get(path, { "accept-encoding": encoding, "if-none-match": 'W/"not-it"' });
        expect({ path, status: other.status }).toEqual({ path, status: 200 });
        await other.arrayBuffer();
      }
    }
  });

  test("the list's tag changes when a report is added, so a cached list is never served stale", async () => {
    const before = await get("/api/reports");
    const tag = before.headers.get("etag") as string;
    await before.arrayBuffer();
    const third = await generate();
    const after = await get("/api/reports", { "if-none-match": tag });
    expect(after.status).toBe(200);
    const body = (await after.json()) as { data: { id: string }[] };
    expect(body.data[0]?.id).toBe(third.id);
    expect(after.headers.get("etag")).not.toBe(tag);
    expect(first.id).not.toBe(third.id);
  });

  test("errors and unfinished work carry no validator: a 404 and a queued report", async () => {
    const missing = await get("/api/sites/site_doesnotexist");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("etag")).toBeNull();
    await missing.arrayBuffer();
  });
});
