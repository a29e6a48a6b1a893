/**
 * The OpenAPI document as users' own tools see it, fetched from a running service:
 * - Redocly CLI lints it clean (recommended-strict, no warnings);
 * - it documents exactly the API routes the app serves (no web pages, nothing missing);
 * - openapi-typescript turns it into types, a client written with openapi-fetch against those
 *   types type-checks with TypeScript 5, and calls every route of the running service.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { API_OPERATIONS, createApp } from "../../server/start/app.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startBlog, type TestSite } from "../helpers/sites.ts";

const ROOT = join(import.meta.dir, "../..");
const CLIENT = join(import.meta.dir, "openapi-client");
const GENERATED = join(CLIENT, "generated");

interface OpenApiDocument {
  openapi: string;
  servers: { url: string; description: string }[];
  paths: Record<string, Record<string, { operationId: string; security: unknown[] }>>;
  components: { schemas: Record<string, unknown> };
}

async function run(command: string[], cwd = ROOT): Promise<{ code: number; out: string }> {
  const child = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code: await child.exited, out: `${out}\n${err}` };
}

describe("the OpenAPI document", () => {
  let service: TestService;
  let site: TestSite;
  let document: OpenApiDocument;
  let documentFile: string;

  beforeAll(async () => {
    // PUBLIC_BASE_URL unset, as after `npm start`: the document describes the address it is asked at.
    service = await startTestService({ env: { PUBLIC_BASE_URL: "" } });
    site = startBlog();
    // Asked at localhost, as the README's quick start does (Redocly must lint that document clean).
    const response = await fetch(`${service.url}/api/openapi.json`, {
      headers: { host: `localhost:${new URL(service.url).port}` },
    });
    expect(response.status).toBe(200);
    document = (await response.json()) as OpenApiDocument;
    await mkdir(GENERATED, { recursive: true });
    documentFile = join(GENERATED, "openapi.json");
    await writeFile(documentFile, JSON.stringify(document, null, 2));
  });

  afterAll(async () => {
    site?.stop();
    await service?.stop();
    await rm(GENERATED, { recursive: true, force: true });
  });

  test("is OpenAPI 3.1 whose server is the address it was asked at; localhost is named by its address", async () => {
    expect(document.openapi).toBe("3.1.0");
    // Asked at localhost:<port>: 127.0.0.1:<port>, the same place, which linters do not take for a placeholder.
    expect(document.servers).toEqual([{ url: service.url, description: "This wpreport service" }]);
    const serversAt = async (headers: Record<string, string>) =>
      ((await (await fetch(`${service.url}/api/openapi.json`, { headers })).json()) as OpenApiDocument).servers;
    // Any host name the service is reached by, not only its own (the document is public).
    expect(await serversAt({ host: "wpreport.lan:8080" })).toEqual([
      { url: "http://wpreport.lan:8080", description: "This wpreport service" },
    ]);
    expect((await serversAt({ host: "10.1.2.3:3000" }))[0]?.url).toBe("http://10.1.2.3:3000");
    expect((await serversAt({ host: "app.localhost:3000" }))[0]?.url).toBe("http://127.0.0.1:3000");
    // A Host that is not a plain host[:port] falls back to the default base, written by address.
    expect((await serversAt({ host: "under_score!" }))[0]?.url).toBe(
      `http://127.0.0.1:${service.running.services.config.platform.port}`,
    );
  });

  test("with PUBLIC_BASE_URL set, the server is PUBLIC_BASE_URL whatever the request's Host", async () => {
    const configured = await startTestService({ env: { PUBLIC_BASE_URL: "https://wpreport.acme.test/reports/" } });
    try {
      const response = await fetch(`${configured.url}/api/openapi.json`, { headers: { host: "other.lan" } });
      const servers = ((await response.json()) as OpenApiDocument).servers;
      expect(servers).toEqual([{ url: "https://wpreport.acme.test/reports", description: "This wpreport service" }]);
      expect(response.headers.get("vary")).toContain("host");
    } finally {
      await configured.stop();
    }
  });

  test("Redocly lints it clean: recommended-strict, no errors, no warnings", async () => {
    const redocly = Bun.spawn(
      [
        join(ROOT, "node_modules/.bin/redocly"),
        "lint",
        documentFile,
        "--config",
        join(ROOT, "redocly.yaml"),
        "--format",
        "json",
      ],
      { cwd: ROOT, stdout: "pipe", stderr: "ignore" },
    );
    const result = JSON.parse(await new Response(redocly.stdout).text()) as {
      totals: { errors: number; warnings: number; ignored: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(result.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(result.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    expect(await redocly.exited).toBe(0);
  }, 60_000);

  test("documents exactly the API routes the app serves, web pages excluded", async () => {
    const app = createApp(service.running.services);
    const isApi = (path: string) => path.startsWith("/api/") || path === "/healthz" || path === "/readyz";
    const served = app.routes
      .filter((route) => isApi(route.path) && ["GET", "POST", "PUT", "PATCH", "DELETE"].includes(route.method))
      .map((route) => `${route.method} ${route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`)
      .sort();
    const documented = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(documented).toEqual([...new Set(served)].sort());
    expect(API_OPERATIONS.length).toBe(documented.length);
    expect(Object.keys(document.paths).some((path) => !isApi(path))).toBe(false);
    // Public routes say so; the rest need the bearer token.
    expect(document.paths["/healthz"]?.get?.security).toEqual([]);
    expect(document.paths["/api/usage"]?.get?.security).toEqual([{ bearerAuth: [] }]);
  });

  test("a client generated by openapi-typescript + openapi-fetch type-checks and calls every route", async () => {
    const generate = await run(
      [join(CLIENT, "node_modules/.bin/openapi-typescript"), documentFile, "-o", join(GENERATED, "schema.d.ts")],
      CLIENT,
    );
    expect(generate.out).not.toContain("Error");
    expect(generate.code).toBe(0);
    const typecheck = await run([join(CLIENT, "node_modules/.bin/tsc"), "-p", join(CLIENT, "tsconfig.json")], CLIENT);
    expect(typecheck.out.trim()).toBe("");
    expect(typecheck.code).toBe(0);

    const { token } = await service.token();
    // Imported by path: the client is type-checked by its own workspace's TypeScript 5, not the project's.
    const { callEveryRoute } = (await import(join(CLIENT, "calls.ts"))) as {
      callEveryRoute(baseUrl: string, token: string, siteUrl: string): Promise<Record<string, unknown>>;
    };
    const calls = await callEveryRoute(service.url, token, site.url);
    expect(calls.statuses).toEqual({
      healthz: 200,
      readyz: 200,
      generate: 201,
      report: 200,
      sarif: 200,
      missing: 404,
      list: 200,
      badQuery: 400,
      diff: 200,
      usage: 200,
      sites: 200,
      sitesCsv: 200,
      site: 200,
      components: 200,
      clientReport: 200,
      createWebhook: 201,
      listWebhooks: 200,
      getWebhook: 200,
      updateWebhook: 200,
      testWebhook: 202,
      listDeliveries: 200,
      getDelivery: 200,
      redeliver: 202,
      rotateSecret: 200,
      deleteWebhook: 204,
      createMonitor: 201,
      listMonitors: 200,
      getMonitor: 200,
      updateMonitor: 200,
      runMonitor: 202,
      deleteMonitor: 204,
      schema: 200,
      openapi: 200,
    });
    expect(calls.siteGrade).toBe(calls.grade);
    expect(calls.componentSites).toBe(1);
    expect(typeof calls.score).toBe("number");
    expect(calls.grade).toMatch(/^[A-F]$/);
    // data.summary.grade read from GET /api/report/{report_id} with no cast: the body type is Report.
    expect(calls.fetchedGrade).toBe(calls.grade);
    expect(calls.listed).toContain(calls.reportId);
    expect(calls.verdict).toBe("pass");
    expect(calls.remaining).toBeGreaterThan(0);
    expect(calls.notFoundCode).toBe("not_found");
    expect(calls.badQueryCode).toBe("invalid_request");
    expect(calls.sarifVersion).toBe("2.1.0");
    expect(calls.schemaId).toBe("https://wpreport.dev/schema/report-v1.json");
    expect(calls.openapiVersion).toBe("3.1.0");
  }, 120_000);

  test("errors are application/problem+json, with a schema and the headers they carry", () => {
    const raw = JSON.stringify(document);
    const generate = (document.paths["/api/generate-report"] as Record<string, unknown>).post as {
      responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
    };
    expect(Object.keys(generate.responses).sort()).toEqual(
      ["201", "202", "400", "401", "402", "409", "413", "415", "422", "429", "503"].sort(),
    );
    for (const status of ["400", "401", "402", "409", "413", "415", "422", "429", "503"]) {
      expect(Object.keys(generate.responses[status]?.content ?? {})).toEqual(["application/problem+json"]);
    }
    expect(Object.keys(generate.responses["201"]?.headers ?? {})).toEqual(
      expect.arrayContaining(["X-Request-Id", "Location", "RateLimit", "RateLimit-Policy", "Idempotent-Replayed"]),
    );
    expect(Object.keys(generate.responses["429"]?.headers ?? {})).toContain("Retry-After");
    expect(Object.keys(generate.responses["401"]?.headers ?? {})).toContain("WWW-Authenticate");
    expect(raw).not.toContain('"application/x-www-form-urlencoded"');
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(["Report", "Check", "Problem", "Usage", "ReportList", "Diff", "GenerateReportRequest"]),
    );
  });
});
