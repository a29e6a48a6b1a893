/** Liveness (/healthz: the process answers) and readiness (/readyz: it can serve traffic). */
import { Elysia, t } from "elysia";
import type { Sql } from "../db/database.ts";

export function healthRoutes(deps: { sql: Sql; isShuttingDown: () => boolean }) {
  return new Elysia()
    .get("/healthz", () => ({ status: "ok" as const }), {
      response: t.Object({ status: t.Literal("ok") }),
      detail: { summary: "Liveness", tags: ["Operations"] },
    })
    .get(
      "/readyz",
      async () => {
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
      },
      { detail: { summary: "Readiness (checks the database)", tags: ["Operations"] } },
    );
}
