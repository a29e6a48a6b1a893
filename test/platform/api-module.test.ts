/**
 * An API module (platform/http/api-module.ts) declares its operations with its routes: mounting
 * one whose routes and operations differ stops the app, naming what is missing.
 */
import { describe, expect, test } from "bun:test";
import { type AnyElysia, Elysia } from "elysia";
import { type ApiModule, mountApiModule } from "../../server/platform/http/api-module.ts";
import type { ApiOperation } from "../../server/platform/http/openapi.ts";
import { API_OPERATIONS } from "../../server/start/app.ts";

const operation = (method: "get" | "post", path: string): ApiOperation => ({
  method,
  path,
  operationId: `${method}${path.replace(/\W/g, "")}`,
  summary: "A route",
  description: "A route of a test module",
  tag: "Reports",
  auth: "none",
  responses: { 200: { description: "ok" } },
  errors: [],
});

const module = (operations: ApiOperation[], routes: () => AnyElysia): ApiModule<object> => ({
  name: "test",
  operations,
  routes,
});

describe("API modules", () => {
  test("routes that match their operations mount; pages outside the API are not the document's business", () => {
    const plugin = mountApiModule(
      module([operation("get", "/api/things"), operation("post", "/api/things/:id/poke")], () =>
        new Elysia()
          .get("/api/things", () => "[]")
          .post("/api/things/:id/poke", () => "ok")
          .get("/things", () => "a web page"),
      ),
      {},
    );
    expect(plugin.routes.map((route) => `${route.method} ${route.path}`)).toContain("GET /api/things");
  });

  test("a route without its operation, or an operation without its route, is refused by name", () => {
    expect(() =>
      mountApiModule(
        module([operation("get", "/api/things")], () =>
          new Elysia().get("/api/things", () => "[]").delete("/api/things/:id", () => "gone"),
        ),
        {},
      ),
    ).toThrow(
      "The test API module's routes and operations differ — routes without an operation: DELETE /api/things/:id",
    );
    expect(() =>
      mountApiModule(
        module([operation("get", "/api/things"), operation("get", "/api/other")], () =>
          new Elysia().get("/api/things", () => "[]"),
        ),
        {},
      ),
    ).toThrow("operations without a route: GET /api/other");
  });

  test("the app's operations are its modules' operations, each once", () => {
    const ids = API_OPERATIONS.map((entry) => entry.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain("generateReport");
    expect(ids).toContain("getHealth");
  });
});
