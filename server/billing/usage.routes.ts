/** GET /api/usage: the caller's plan, quota for the current period and rate limit. */
import { Elysia } from "elysia";
import { type Usage, UsageSchema } from "../../shared/api.ts";
import { type ApiGuardDeps, apiGuard } from "../access/api-guard.plugin.ts";
import { limitForWindow } from "../access/rate-limiter.ts";
import type { ApiModule } from "../platform/http/api-module.ts";
import { jsonDocument } from "../platform/http/json-response.ts";
import type { ApiOperation } from "../platform/http/openapi.ts";
import { requestContext } from "../platform/http/request-context.ts";
import { quotaPeriod } from "../platform/quota-period.ts";
import type { ApiContext } from "../start/app.ts";
import { getPlan } from "./plans.ts";
import { type QuotaService, snapshot } from "./quota.service.ts";

export const usageOperation = {
  method: "get",
  path: "/api/usage",
  operationId: "getUsage",
  summary: "Usage and limits",
  description:
    "Plan, quota used and remaining in the current period (calendar month, UTC), and the rate limit. Free, but rate limited.",
  tag: "Account",
  auth: "bearer",
  responses: { 200: { description: "Your usage this period", content: { "application/json": UsageSchema } } },
  errors: [],
} as const satisfies ApiOperation;

export function usageRoutes(deps: ApiGuardDeps & { quota: QuotaService }) {
  return new Elysia({ prefix: "/api" }).use(apiGuard(deps)).get("/usage", async ({ principal, request }) => {
    // Read with the token in one query; if the period just turned over, read it afresh.
    const period = quotaPeriod();
    const usage =
      principal.usage.periodKey === period.key
        ? snapshot(period, principal.monthlyQuota, principal.usage.used, principal.usage.reserved)
        : await deps.quota.usage(principal.accountId, principal.monthlyQuota);
    const headers = requestContext(request).responseHeaders;
    const body: Usage = {
      plan: { id: principal.planId, name: getPlan(principal.planId).name },
      quota: usage.quota,
      used: usage.used,
      in_progress: usage.reserved,
      remaining: usage.remaining,
      period_start: usage.period.start.toISOString(),
      period_end: usage.period.end.toISOString(),
      resets_at: usage.period.end.toISOString(),
      rate_limit: {
        limit: limitForWindow(principal.requestsPerMinute, deps.rateWindowSeconds),
        window_seconds: deps.rateWindowSeconds,
        remaining: Number(headers["x-ratelimit-remaining"]),
      },
    };
    return jsonDocument(body);
  });
}

/** The usage API for app.ts: its operation and its route. */
export const usageApi: ApiModule<ApiContext> = {
  name: "usage",
  operations: [usageOperation],
  routes: ({ guard, services }) => usageRoutes({ ...guard, quota: services.quota }),
};
