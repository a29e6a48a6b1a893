/**
 * The Elysia application: composes the feature modules. Knows nothing about ports,
 * processes or start-up; see server/start/main.ts for that.
 */
import { Elysia } from "elysia";
import type { ApiGuardDeps } from "../access/api-guard.plugin.ts";
import { tokensRoutes } from "../access/tokens.web.tsx";
import { authRoutes } from "../accounts/auth.web.tsx";
import { billingRoutes } from "../billing/billing.web.tsx";
import { PlanTable } from "../billing/pages/plans.tsx";
import { stripeWebhookRoutes } from "../billing/stripe-webhooks.routes.ts";
import { usageApi } from "../billing/usage.routes.ts";
import { alertsRoutes } from "../monitoring/alerts.web.tsx";
import { monitorsApi } from "../monitoring/monitors/monitors.routes.ts";
import { monitorsWebRoutes } from "../monitoring/monitors.web.tsx";
import { webhooksApi } from "../monitoring/webhooks/webhooks.routes.ts";
import { type HealthContext, healthApi } from "../platform/health.routes.ts";
import { type ApiModule, mountApiModule } from "../platform/http/api-module.ts";
import { documentServerUrl, requestBase } from "../platform/http/client-request.ts";
import { type DocsContext, docsApi } from "../platform/http/docs.routes.ts";
import { errorsPlugin } from "../platform/http/errors.plugin.ts";
import { requestContext } from "../platform/http/request-context.ts";
import { RouteTable } from "../platform/http/route-table.ts";
import { metricsRoutes } from "../platform/prometheus.routes.ts";
import { portfolioApi } from "../portfolio/portfolio.routes.ts";
import { portfolioWebRoutes } from "../portfolio/portfolio.web.tsx";
import { dashboardRoutes } from "../reports/dashboard.web.tsx";
import { historyApi } from "../reports/history.routes.ts";
import { reportJsonSchema } from "../reports/report-json-schema.ts";
import { reportsApi } from "../reports/reports.routes.ts";
import { reportsRoutes as reportsWebRoutes } from "../reports/reports.web.tsx";
import { assetsRoutes } from "../web/assets.routes.ts";
import { WebError } from "../web/context.ts";
import { publicRoutes } from "../web/public.routes.tsx";
import { htmlError } from "../web/web.plugin.ts";
import type { Services } from "./services.ts";

/**
 * What the app hands every API module (platform/http/api-module.ts): the services, the API
 * guard's dependencies, the request's public base URL, and what the public documents and the
 * health checks read. A feature's routes file picks what its routes need from it, so a route
 * added to a feature changes that file only.
 */
export interface ApiContext extends DocsContext, HealthContext {
  services: Services;
  /** For routes behind a bearer token (access/api-guard.plugin.ts). */
  guard: ApiGuardDeps;
  /** PUBLIC_BASE_URL, or the address the request came to (client-request.ts). */
  baseUrlFor: (request: Request) => string;
}

/** Every API module, in the order /api/openapi.json documents them. A new feature's API is one line here. */
const API_MODULES: readonly ApiModule<ApiContext>[] = [
  reportsApi,
  historyApi,
  portfolioApi,
  usageApi,
  webhooksApi,
  monitorsApi,
  docsApi,
  healthApi,
];

/** Every operation of the public API: what /api/openapi.json documents. */
export const API_OPERATIONS = API_MODULES.flatMap((module) => module.operations);

export function createApp(
  services: Services,
  state: { isShuttingDown: () => boolean } = { isShuttingDown: () => false },
) {
  const { config, logger } = services;
  const guard: ApiGuardDeps = {
    tokens: services.tokens,
    limiter: services.limiter,
    maxBodyBytes: config.platform.maxBodyBytes,
    rateWindowSeconds: config.access.rateLimitWindowSeconds,
    onRateLimited: () => services.metrics.rateLimited(),
  };
  const origins = {
    publicBaseUrl: config.platform.publicBaseUrl,
    publicBaseUrlSet: config.platform.publicBaseUrlSet,
    trustedProxies: config.platform.trustProxy,
  };
  const baseUrlFor = (request: Request) => requestBase(request, origins).baseUrl;
  const api: ApiContext = {
    services,
    guard,
    baseUrlFor,
    operations: API_OPERATIONS,
    serverUrlFor: (request) => documentServerUrl(request, origins),
    reportSchema: reportJsonSchema(),
    sql: services.db.sql,
    isShuttingDown: state.isShuttingDown,
  };
  const web = {
    sessions: services.sessions,
    baseUrl: config.platform.publicBaseUrl,
    publicBaseUrlSet: config.platform.publicBaseUrlSet,
    trustProxy: config.platform.trustProxy,
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
      app.routes.filter((route) => config.platform.metricsToken !== undefined || route.path !== "/metrics"),
    );
    return routes;
  };
  const app = new Elysia({ normalize: false })
    .use(
      errorsPlugin({
        baseUrl: config.platform.publicBaseUrl,
        logger,
        passThrough: (error) => error instanceof WebError,
        renderHtml: (problem, request) => htmlError(problem, request, web),
        allowedMethods: (pathname) => routeTable().match(pathname)?.methods,
      }),
    )
    .onTransform({ as: "global" }, ({ request, route }) => {
      requestContext(request).route = route;
    })
    .use(metricsRoutes(services));
  // The API: each module checked against its operations as it is mounted.
  for (const module of API_MODULES) app.use(mountApiModule(module, api));
  app
    // The web interface: the shell (assets, public pages, the dashboard), then each feature's pages.
    .use(assetsRoutes(webDeps))
    .use(publicRoutes({ ...webDeps, Pricing: () => PlanTable({}) }))
    .use(dashboardRoutes(webDeps))
    .use(authRoutes(webDeps))
    .use(reportsWebRoutes(webDeps))
    .use(tokensRoutes(webDeps))
    .use(billingRoutes(webDeps))
    .use(monitorsWebRoutes(webDeps))
    .use(alertsRoutes(webDeps))
    .use(portfolioWebRoutes(webDeps))
    .use(stripeWebhookRoutes({ service: services.stripeWebhooks, maxBodyBytes: config.platform.maxBodyBytes }));
  return Object.assign(app, { routeTable });
}

export type App = ReturnType<typeof createApp>;
