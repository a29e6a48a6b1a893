/**
 * The Elysia application: composes the feature modules. Knows nothing about ports,
 * processes or start-up; see server/main.ts for that.
 */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { healthRoutes } from "./health/health.routes.ts";
import { docsRoutes } from "./http/docs.routes.ts";
import { errorsPlugin } from "./http/errors.plugin.ts";
import { requestContext } from "./http/request-context.ts";
import { reportsRoutes } from "./reports/reports.routes.ts";
import type { Services } from "./services.ts";
import { usageRoutes } from "./usage/usage.routes.ts";

export const API_VERSION = "1.0.0";

export function createApp(
  services: Services,
  state: { isShuttingDown: () => boolean } = { isShuttingDown: () => false },
) {
  const { config, logger } = services;
  const guard = { tokens: services.tokens, limiter: services.limiter, maxBodyBytes: config.maxBodyBytes };
  return new Elysia({ normalize: false })
    .use(errorsPlugin({ baseUrl: config.publicBaseUrl, logger }))
    .onTransform({ as: "global" }, ({ request, route }) => {
      requestContext(request).route = route;
    })
    .use(
      openapi({
        path: "/api/docs",
        specPath: "/api/openapi.json",
        provider: null,
        exclude: { paths: ["/problems/:code"] },
        documentation: {
          info: {
            title: "wpreport API",
            version: API_VERSION,
            description:
              "In-depth WordPress site reports on demand. Every error is RFC 9457 problem+json with a stable `code`. Every authenticated response carries RateLimit-Policy, RateLimit and X-RateLimit-* headers; every response carries X-Request-Id.",
          },
          servers: [{ url: config.publicBaseUrl }],
          components: {
            securitySchemes: {
              bearerAuth: { type: "http", scheme: "bearer", description: "API token (wpr_…)" },
            },
          },
        },
      }),
    )
    .use(healthRoutes({ sql: services.db.sql, isShuttingDown: state.isShuttingDown }))
    .use(docsRoutes())
    .use(reportsRoutes({ ...guard, reports: services.reports, baseUrl: config.publicBaseUrl }))
    .use(usageRoutes({ ...guard, quota: services.quota }));
}

export type App = ReturnType<typeof createApp>;
