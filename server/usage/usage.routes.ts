/** GET /api/usage: the caller's plan, quota for the current period and rate limit. */
import { Elysia, t } from "elysia";
import { type ApiGuardDeps, apiGuard } from "../auth/api-guard.plugin.ts";
import { jsonResponse } from "../http/json-response.ts";
import { AUTHENTICATED_ERRORS } from "../http/problem.schema.ts";
import { requestContext } from "../http/request-context.ts";
import { getPlan } from "../plans/catalogue.ts";
import { quotaPeriod } from "../quota/period.ts";
import { type QuotaService, snapshot } from "../quota/quota.service.ts";
import { limitForWindow } from "../ratelimit/limiter.ts";

export const UsageSchema = t.Object({
  plan: t.Object({ id: t.String(), name: t.String() }),
  quota: t.Integer({ description: "Reports per period" }),
  used: t.Integer({ description: "Reports produced this period" }),
  in_progress: t.Integer({ description: "Analyses running now; their credits are held" }),
  remaining: t.Integer({ description: "Reports you can still start this period" }),
  period_start: t.String({ format: "date-time" }),
  period_end: t.String({ format: "date-time" }),
  resets_at: t.String({ format: "date-time", description: "When the quota resets (00:00 UTC on the 1st)" }),
  rate_limit: t.Object({
    limit: t.Integer({ description: "Requests per window" }),
    window_seconds: t.Integer(),
    remaining: t.Integer(),
  }),
});

export function usageRoutes(deps: ApiGuardDeps & { quota: QuotaService }) {
  return new Elysia({ prefix: "/api" }).use(apiGuard(deps)).get(
    "/usage",
    async ({ principal, request }) => {
      // Read with the token in one query; if the period just turned over, read it afresh.
      const period = quotaPeriod();
      const usage =
        principal.usage.periodKey === period.key
          ? snapshot(period, principal.monthlyQuota, principal.usage.used, principal.usage.reserved)
          : await deps.quota.usage(principal.accountId, principal.monthlyQuota);
      const headers = requestContext(request).responseHeaders;
      return jsonResponse({
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
      });
    },
    {
      response: { 200: UsageSchema, ...AUTHENTICATED_ERRORS },
      detail: {
        summary: "Usage and limits",
        description:
          "Plan, quota used and remaining in the current period (calendar month, UTC), and the rate limit. Free, but rate limited.",
        tags: ["Account"],
        security: [{ bearerAuth: [] }],
      },
    },
  );
}
