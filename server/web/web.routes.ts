/**
 * The web interface: server-rendered pages, plain HTML forms (CSRF-protected), sessions by
 * cookie. Each feature has its routes file; every one of them uses web.plugin.ts, which gives
 * a route its context, session, account and CSRF check by declaration, and HTML error pages.
 * Reports made here use the same service and the same quota as the API, and the report page
 * renders exactly the report JSON the API returns.
 */
import { Elysia } from "elysia";
import { type AlertsRouteDeps, alertsRoutes } from "../monitoring/web/alerts.routes.tsx";
import { type PortfolioWebDeps, portfolioWebRoutes } from "../portfolio/portfolio.web.tsx";
import { assetsRoutes } from "./assets.routes.ts";
import { type AuthRouteDeps, authRoutes } from "./auth.routes.tsx";
import { type BillingRouteDeps, billingRoutes } from "./billing.routes.tsx";
import { type DashboardRouteDeps, dashboardRoutes } from "./dashboard.routes.tsx";
import { publicRoutes } from "./public.routes.tsx";
import { type ReportsRouteDeps, reportsRoutes } from "./reports.routes.tsx";
import { type TokensRouteDeps, tokensRoutes } from "./tokens.routes.tsx";

export type WebRouteDeps = AuthRouteDeps &
  DashboardRouteDeps &
  ReportsRouteDeps &
  TokensRouteDeps &
  BillingRouteDeps &
  AlertsRouteDeps &
  PortfolioWebDeps;

export function webRoutes(deps: WebRouteDeps) {
  return new Elysia({ name: "web" })
    .use(assetsRoutes(deps))
    .use(publicRoutes(deps))
    .use(authRoutes(deps))
    .use(dashboardRoutes(deps))
    .use(reportsRoutes(deps))
    .use(tokensRoutes(deps))
    .use(billingRoutes(deps))
    .use(alertsRoutes(deps))
    .use(portfolioWebRoutes(deps));
}
