/**
 * GET /metrics (Prometheus text format). Closed unless METRICS_TOKEN is set, and then only
 * with `Authorization: Bearer <METRICS_TOKEN>`: queue figures are the operator's business.
 * Answers 404 when closed, so its existence is not advertised.
 */
import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import type { ServiceMetrics } from "./prometheus.ts";
import type { PlatformSettings } from "./settings.ts";

/** What /metrics needs: the token that opens it and the registry it reads. */
interface MetricsDeps {
  config: { platform: Pick<PlatformSettings, "metricsToken"> };
  metrics: ServiceMetrics;
}

export async function metricsResponse(request: Request, services: MetricsDeps) {
  const expected = services.config.platform.metricsToken;
  const sent = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
  const ok =
    expected !== undefined &&
    sent.length === expected.length &&
    timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
  if (!ok) return new Response("Not found\n", { status: 404, headers: { "content-type": "text/plain" } });
  const body = await services.metrics.registry.metrics();
  return new Response(body, {
    headers: { "content-type": services.metrics.registry.contentType, "cache-control": "no-store" },
  });
}

export function metricsRoutes(services: MetricsDeps) {
  return new Elysia({ name: "metrics" }).get("/metrics", ({ request }) => metricsResponse(request, services), {
    detail: { hide: true },
  });
}
