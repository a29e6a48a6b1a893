/** Liveness (/healthz: the process answers) and readiness (/readyz: it can serve traffic). */
import { Elysia } from "elysia";
import { HealthSchema, ReadinessSchema } from "../../shared/api.ts";
import type { Sql } from "./db/database.ts";
import type { ApiModule } from "./http/api-module.ts";
import type { ApiOperation } from "./http/openapi.ts";

const healthOperations: ApiOperation[] = [
  {
    method: "get",
    path: "/healthz",
    operationId: "getHealth",
    summary: "Liveness",
    description: "200 while the process answers; no database call, so a slow database never restarts it.",
    tag: "Operations",
    auth: "none",
    responses: { 200: { description: "Alive", content: { "application/json": HealthSchema } } },
    errors: [],
  },
  {
    method: "get",
    path: "/readyz",
    operationId: "getReadiness",
    summary: "Readiness",
    description:
      "200 when this instance can serve traffic (its database answers within 2 s); 503 while it shuts down or cannot reach the database.",
    tag: "Operations",
    auth: "none",
    responses: {
      200: { description: "Ready", content: { "application/json": ReadinessSchema } },
      503: {
        description: "Not ready: shutting down, or the database is unreachable",
        content: { "application/json": ReadinessSchema },
        headers: ["Retry-After"],
      },
    },
    errors: [],
  },
];

/** What the health checks need from the app. */
export interface HealthContext {
  sql: Sql;
  isShuttingDown: () => boolean;
}

/** The health checks for app.ts: their operations and routes. */
export const healthApi: ApiModule<HealthContext> = {
  name: "health",
  operations: healthOperations,
  routes: (context) => healthRoutes(context),
};

export function healthRoutes(deps: HealthContext) {
  return new Elysia()
    .get("/healthz", () => ({ status: "ok" as const }))
    .get("/readyz", async () => {
      const unavailable = (reason: string) =>
        new Response(JSON.stringify({ status: "unavailable", reason }), {
          status: 503,
          headers: { "content-type": "application/json", "retry-after": "5", "cache-control": "no-store" },
        });
      if (deps.isShuttingDown()) return unavailable("shutting down");
      try {
        await Promise.race([
          deps.sql`select 1`,
          Bun.sleep(2_000).then(() => {
            throw new Error("timeout");
          }),
        ]);
        return { status: "ready" };
      } catch {
        return unavailable("database unreachable");
      }
    });
}
