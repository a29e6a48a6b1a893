/**
 * The API's cross-cutting contract on both database backends: public documents, health,
 * request ids, problem+json for unknown routes, oversize and malformed bodies.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BACKENDS } from "../helpers/databases.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

const PROBLEM_KEYS = ["code", "detail", "request_id", "status", "title", "type"];

describe.each(BACKENDS)("API basics on %s", (backend) => {
  let service: TestService;
  let token: string;

  beforeAll(async () => {
    service = await startTestService({ backend });
    ({ token } = await service.token());
  });
  afterAll(() => service.stop());

  test("health and readiness", async () => {
    const live = await service.call("GET", "/healthz");
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: "ok" });
    const ready = await service.call("GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready" });
  });

  test("every response carries X-Request-Id; a caller's well-formed id is kept", async () => {
    for (const path of ["/healthz", "/nope", "/api/usage"]) {
      const response = await service.call("GET", path);
      expect(response.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    }
    const traced = await service.call("GET", "/healthz", { headers: { "x-request-id": "ci-run-1234.5" } });
    expect(traced.headers.get("x-request-id")).toBe("ci-run-1234.5");
    const hostile = await service.call("GET", "/healthz", { headers: { "x-request-id": "<script>x</script>" } });
    expect(hostile.headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("unknown routes are 404 problem+json", async () => {
    const response = await service.call("GET", "/api/nothing-here");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(Object.keys(response.body).sort()).toEqual(PROBLEM_KEYS);
    expect(response.body.code).toBe("not_found");
    expect(response.body.request_id).toBe(response.headers.get("x-request-id") as string);
    expect(response.body.type).toBe(`${service.url}/problems/not_found`);
    const explained = await fetch(String(response.body.type));
    expect(explained.status).toBe(200);
    expect(await explained.text()).toContain("Not found");
  });

  test("the OpenAPI document describes every endpoint, status code and error body", async () => {
    const response = await service.call<{
      paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: unknown[] }>>;
    }>("GET", "/api/openapi.json");
    expect(response.status).toBe(200);
    const { paths } = response.body;
    const generate = paths["/api/generate-report"]?.post;
    expect(Object.keys(generate?.responses ?? {}).sort()).toEqual(
      ["201", "202", "400", "401", "402", "409", "413", "415", "422", "429", "503"].sort(),
    );
    expect(Object.keys(paths["/api/report/{report_id}"]?.get?.responses ?? {}).sort()).toEqual([
      "200",
      "304", // If-None-Match
      "400", // a bad ?sarif_location=
      "401",
      "404",
      "406", // Accept allows neither JSON nor SARIF
      "413",
      "429",
      "503",
    ]);
    expect(JSON.stringify(paths["/api/report/{report_id}"]?.get?.parameters)).toContain('"name":"sarif_location"');
    expect(Object.keys(paths["/api/usage"]?.get?.responses ?? {}).sort()).toEqual(["200", "401", "413", "429", "503"]);
    expect(JSON.stringify(generate?.responses["422"])).toContain("application/problem+json");
    expect(JSON.stringify(response.body)).toContain('"request_id"');
  });

  test("the report JSON Schema is public", async () => {
    const response = await service.call<{ title: string; properties: Record<string, unknown> }>(
      "GET",
      "/api/schema/report.json",
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/schema+json");
    expect(response.body.title).toBe("wpreport report");
    expect(Object.keys(response.body.properties)).toContain("checks");
  });

  test("bad bodies: invalid JSON, missing and extra fields, wrong type, wrong media type", async () => {
    const bad = await service.call("POST", "/api/generate-report", { token, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_request");
    expect(bad.body.detail).toBe("The request body is not valid JSON.");

    const missing = await service.call("POST", "/api/generate-report", { token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toContain("url");

    const extra = await service.call("POST", "/api/generate-report", {
      token,
      body: { url: "https://example.com", color: "blue" },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.detail).toBe(
      'Unknown field: "color". Allowed: url, metadata, mode, site_auth, tls, tls_ca, lab, lab_device, lab_throttling, lab_runs.',
    );

    const wrongType = await service.call("POST", "/api/generate-report", { token, body: { url: 42 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors).toEqual([{ location: "body", pointer: "/url", detail: "Expected string" }]);

    const text = await service.call("POST", "/api/generate-report", {
      token,
      body: "url=https://example.com",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe("unsupported_media_type");

    const badUtf8 = await fetch(`${service.url}/api/generate-report`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    });
    expect(badUtf8.status).toBe(400);
    expect(((await badUtf8.json()) as { detail: string }).detail).toBe("The request body is not valid UTF-8.");
  });

  test("bodies over the limit get 413, whether declared or streamed", async () => {
    const big = JSON.stringify({ url: `https://example.com/?q=${"x".repeat(70_000)}` });
    const declared = await service.call("POST", "/api/generate-report", { token, body: big });
    expect(declared.status).toBe(413);
    expect(declared.body.code).toBe("payload_too_large");

    // Chunked: no Content-Length, so the limit is enforced while reading.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const chunk = new TextEncoder().encode("x".repeat(16_384));
        for (let i = 0; i < 8; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const streamed = await fetch(`${service.url}/api/generate-report`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: stream,
    });
    expect(streamed.status).toBe(413);
    expect(streamed.headers.get("content-type")).toBe("application/problem+json");
  });

  test("framework error text never reaches clients", async () => {
    const response = await service.call("POST", "/api/generate-report", { token, body: "[1,2" });
    expect(JSON.stringify(response.body)).not.toMatch(/elysia|typebox|stack|at \w+ \(/i);
  });
});
