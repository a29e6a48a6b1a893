/**
 * The Elysia application: composes the feature modules. Knows nothing about ports,
 * processes or start-up; see server/main.ts for that.
 */
import { Elysia } from "elysia";
import { tokensRoutes } from "./access/tokens.web.tsx";
import { authRoutes } from "./accounts/auth.web.tsx";
import { billingRoutes } from "./billing/billing.web.tsx";
import { stripeWebhookRoutes } from "./billing/stripe-webhooks.routes.ts";
import { usageOperations, usageRoutes } from "./billing/usage.routes.ts";
import { alertsRoutes } from "./monitoring/alerts.web.tsx";
import { webhooksOperations, webhooksRoutes } from "./monitoring/webhooks/webhooks.routes.ts";
import { healthOperations, healthRoutes } from "./platform/health.routes.ts";
import { documentServerUrl, requestBase } from "./platform/http/client-request.ts";
import { docsOperations, docsRoutes } from "./platform/http/docs.routes.ts";
import { errorsPlugin } from "./platform/http/errors.plugin.ts";
import { requestContext } from "./platform/http/request-context.ts";
import { RouteTable } from "./platform/http/route-table.ts";
import { metricsRoutes } from "./platform/prometheus.routes.ts";
import { API_VERSION } from "./platform/version.ts";
import { portfolioOperations, portfolioRoutes } from "./portfolio/portfolio.routes.ts";
import { portfolioWebRoutes } from "./portfolio/portfolio.web.tsx";
import { historyOperations, historyRoutes } from "./reports/history.routes.ts";
import { reportJsonSchema } from "./reports/report-json-schema.ts";
import { reportsOperations, reportsRoutes } from "./reports/reports.routes.ts";
import { reportsRoutes as reportsWebRoutes } from "./reports/reports.web.tsx";
import type { Services } from "./services.ts";
import { assetsRoutes } from "./web/assets.routes.ts";
import { WebError } from "./web/context.ts";
import { dashboardRoutes } from "./web/dashboard.routes.tsx";
import { publicRoutes } from "./web/public.routes.tsx";
import { htmlError } from "./web/web.plugin.ts";

/** Every operation of the public API: what /api/openapi.json documents. */
export const API_OPERATIONS = [
  ...reportsOperations,
  ...historyOperations,
  ...portfolioOperations,
  ...usageOperations,
  ...webhooksOperations,
  ...docsOperations,
  ...healthOperations,
];

export function createApp(
  services: Services,
  state: { isShuttingDown: () => boolean } = { isShuttingDown: () => false },
) {
  const { config, logger } = services;
  const guard = {
    tokens: services.tokens,
    limiter: services.limiter,
    maxBodyBytes: config.maxBodyBytes,
    rateWindowSeconds: config.rateLimitWindowSeconds,
    onRateLimited: () => services.metrics.rateLimited(),
  };
  const origins = {
    publicBaseUrl: config.publicBaseUrl,
    publicBaseUrlSet: config.publicBaseUrlSet,
    trustedProxies: config.trustProxy,
  };
  const baseUrlFor = (request: Request) => requestBase(request, origins).baseUrl;
  const web = {
    sessions: services.sessions,
    baseUrl: config.publicBaseUrl,
    publicBaseUrlSet: config.publicBaseUrlSet,
    trustProxy: config.trustProxy,
  };
  // Every web route file takes the web plugin's dependencies and the services its pages use.
  const webDeps = {
    ...web,
    auth: services.auth,
    signIn: services.signIn,
    tokens: services.tokens,
    quota: services.quota,
    reports: services.reports,
    history: services.history,
    billing: services.billing,
    monitoring: services.monitoring,
    portfolio: services.portfolio,
    clientReports: services.clientReports,
    branding: services.branding,
  };
  // Read from the composed app on first use, so every route below is in it (405, OPTIONS, CORS).
  let routes: RouteTable | undefined;
  const routeTable = () => {
    // While METRICS_TOKEN is unset, /metrics does not exist for clients (platform/prometheus.routes.ts): no Allow for it.
    routes ??= new RouteTable(
      app.routes.filter((route) => config.metricsToken !== undefined || route.path !== "/metrics"),
    );
    return routes;
  };
  const app = new Elysia({ normalize: false })
    .use(
      errorsPlugin({
        baseUrl: config.publicBaseUrl,
        logger,
        passThrough: (error) => error instanceof WebError,
        renderHtml: (problem, request) => htmlError(problem, request, web),
        allowedMethods: (pathname) => routeTable().match(pathname)?.methods,
      }),
    )
    .onTransform({ as: "global" }, ({ request, route }) => {
      requestContext(request).route = route;
    })
    .use(healthRoutes({ sql: services.db.sql, isShuttingDown: state.isShuttingDown }))
    .use(metricsRoutes(services))
    .use(
      docsRoutes({
        operations: API_OPERATIONS,
        version: API_VERSION,
        serverUrlFor: (request) => documentServerUrl(request, origins),
        reportSchema: reportJsonSchema(),
      }),
    )
    .use(reportsRoutes({ ...guard, reports: services.reports, baseUrlFor }))
    .use(historyRoutes({ ...guard, history: services.history, baseUrlFor }))
    .use(
      portfolioRoutes({ ...guard, portfolio: services.portfolio, clientReports: services.clientReports, baseUrlFor }),
    )
    .use(usageRoutes({ ...guard, quota: services.quota }))
    .use(
      webhooksRoutes({
        ...guard,
        webhooks: services.monitoring.webhooks,
        idempotency: services.idempotency,
        baseUrlFor,
      }),
    )
    // The web interface: the shell (assets, public pages, the dashboard), then each feature's pages.
    .use(assetsRoutes(webDeps))
    .use(publicRoutes(webDeps))
    .use(dashboardRoutes(webDeps))
    .use(authRoutes(webDeps))
    .use(reportsWebRoutes(webDeps))
    .use(tokensRoutes(webDeps))
    .use(billingRoutes(webDeps))
    .use(alertsRoutes(webDeps))
    .use(portfolioWebRoutes(webDeps))
    .use(stripeWebhookRoutes({ service: services.stripeWebhooks, maxBodyBytes: config.maxBodyBytes }));
  return Object.assign(app, { routeTable });
}

export type App = ReturnType<typeof createApp>;
