/**
 * A feature's API as the app mounts it: the operations it serves (what /api/openapi.json
 * documents, in order) together with its routes, built from what the app hands every module
 * (server/start/app.ts, ApiContext: the services, the API guard, the request's base URL…). A route
 * added to a feature is written in that feature's routes file only — its operation beside its
 * route, listed in the module's `operations` — and mounting checks that the two agree, so a
 * route nobody documents (or an operation no route serves) stops the start-up, naming it.
 */
import type { AnyElysia } from "elysia";
import type { ApiOperation } from "./openapi.ts";

export interface ApiModule<Context> {
  /** The feature, for messages. */
  name: string;
  operations: readonly ApiOperation[];
  routes(context: Context): AnyElysia;
}

/** The paths the OpenAPI document covers: the API's, and the health checks. */
export function isDocumentedPath(path: string): boolean {
  return path.startsWith("/api/") || path === "/healthz" || path === "/readyz";
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/** The module's routes, once they are checked against its operations. */
export function mountApiModule<Context>(module: ApiModule<Context>, context: Context): AnyElysia {
  const plugin = module.routes(context);
  const served = new Set(
    plugin.routes
      .filter((route) => METHODS.has(route.method) && isDocumentedPath(route.path))
      .map((route) => `${route.method} ${route.path}`),
  );
  const documented = new Set(
    module.operations.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`),
  );
  const undocumented = [...served].filter((route) => !documented.has(route));
  const unserved = [...documented].filter((route) => !served.has(route));
  if (undocumented.length > 0 || unserved.length > 0) {
    const parts = [
      undocumented.length > 0 ? `routes without an operation: ${undocumented.join(", ")}` : "",
      unserved.length > 0 ? `operations without a route: ${unserved.join(", ")}` : "",
    ].filter(Boolean);
    throw new Error(`The ${module.name} API module's routes and operations differ — ${parts.join("; ")}`);
  }
  return plugin;
}
