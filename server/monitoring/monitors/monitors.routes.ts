/**
 * HTTP surface of monitors: /api/monitors… (docs/monitoring.md#monitors). Each operation is
 * declared once beside its route; the route only turns the request into a MonitorService call.
 */
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import {
  CreateMonitorRequestSchema,
  MonitorListSchema,
  MonitorSchema,
  UpdateMonitorRequestSchema,
} from "../../../shared/monitors-api.ts";
import { ReportSchema } from "../../../shared/report.ts";
import { type ApiGuardDeps, apiGuard } from "../../access/api-guard.plugin.ts";
import type { IdempotencyService } from "../../access/idempotency.service.ts";
import type { ApiModule } from "../../platform/http/api-module.ts";
import { jsonDocument, jsonResponse } from "../../platform/http/json-response.ts";
import type { ApiOperation } from "../../platform/http/openapi.ts";
import { deleted, idParam, olderPageDocument, olderPageQuery } from "../../platform/http/resource-routes.ts";
import type { ApiContext } from "../../start/app.ts";
import { answer, emptyBodyAllowed, IDEMPOTENCY, IDEMPOTENCY_ERRORS, idempotent, queryOf } from "../route-helpers.ts";
import { DEFAULT_PAGE, MAX_PAGE, type MonitorService } from "./monitors.service.ts";

const MONITOR_ID = Type.Object(idParam("monitor_id", "monitor", "mon"));
const URL_ERRORS = ["invalid_url", "url_not_allowed"] as const;

export const createMonitorOperation = {
  method: "post",
  path: "/api/monitors",
  operationId: "createMonitor",
  summary: "Create a monitor",
  description:
    "Audits the site on a schedule (`hourly`, `daily`, `weekly` or a 5-field cron expression in UTC): each run is a report made like any other (queue, limits, one credit), judged against the site's baseline by the Action's rule with `fail_on` and `assert`; a failed gate emits `monitor.regressed`, a refused run `monitor.skipped` (docs/monitoring.md#monitors). Answers 201 with the monitor, its `next_run_at` (jitter included) and its Location. The plan limits how many monitors an account has.",
  tag: "Monitors",
  auth: "bearer",
  headers: IDEMPOTENCY,
  body: CreateMonitorRequestSchema,
  responses: {
    201: {
      description: "The monitor",
      content: { "application/json": MonitorSchema },
      headers: ["Location", "Idempotent-Replayed"],
    },
  },
  errors: ["invalid_request", "unsupported_media_type", ...URL_ERRORS, "monitor_limit_reached", ...IDEMPOTENCY_ERRORS],
} as const satisfies ApiOperation;

export const listMonitorsOperation = {
  method: "get",
  path: "/api/monitors",
  operationId: "listMonitors",
  summary: "List monitors",
  description:
    "Your monitors, newest first, each with its status (last run, last skip, next run). Page with `before=<next_cursor>`; the Link header has the next page's URL.",
  tag: "Monitors",
  auth: "bearer",
  query: Type.Object(olderPageQuery("monitor", { max: MAX_PAGE, default: DEFAULT_PAGE })),
  responses: {
    200: { description: "A page of monitors", content: { "application/json": MonitorListSchema }, headers: ["Link"] },
  },
  errors: ["invalid_request"],
} as const satisfies ApiOperation;

export const getMonitorOperation = {
  method: "get",
  path: "/api/monitors/:monitor_id",
  operationId: "getMonitor",
  summary: "Get a monitor",
  description:
    "One of your monitors with its status: `last_run` (its report, status, grade and gate verdict, and what the report did not check: `vulnerability_data`, `not_checked`, `incomplete`), `last_skip` (why a run did not happen), `next_run_at`.",
  tag: "Monitors",
  auth: "bearer",
  params: MONITOR_ID,
  responses: { 200: { description: "The monitor", content: { "application/json": MonitorSchema } } },
  errors: ["not_found"],
} as const satisfies ApiOperation;

export const updateMonitorOperation = {
  method: "patch",
  path: "/api/monitors/:monitor_id",
  operationId: "updateMonitor",
  summary: "Change a monitor",
  description:
    "Changes the fields given, checked as at creation; `enabled: false` pauses the monitor, `enabled: true` resumes it from the next slot (missed runs are not made up). A new schedule starts from its next slot.",
  tag: "Monitors",
  auth: "bearer",
  params: MONITOR_ID,
  body: UpdateMonitorRequestSchema,
  responses: { 200: { description: "The monitor as changed", content: { "application/json": MonitorSchema } } },
  errors: ["invalid_request", "unsupported_media_type", "not_found", ...URL_ERRORS],
} as const satisfies ApiOperation;

export const deleteMonitorOperation = {
  method: "delete",
  path: "/api/monitors/:monitor_id",
  operationId: "deleteMonitor",
  summary: "Delete a monitor",
  description: "Deletes the monitor and its run log; its reports stay, with their `monitor_id`.",
  tag: "Monitors",
  auth: "bearer",
  params: MONITOR_ID,
  responses: { 204: { description: "Deleted" } },
  errors: ["not_found"],
} as const satisfies ApiOperation;

export const runMonitorOperation = {
  method: "post",
  path: "/api/monitors/:monitor_id/run",
  operationId: "runMonitor",
  summary: "Run a monitor now",
  description:
    "Runs the monitor now, paused or not: a report asked for as `POST /api/generate-report` with `Prefer: respond-async` (same queue, limits and quota; one credit when it completes), judged like a scheduled run. Answers 202 with the queued report; poll its Location. A refusal (quota, limits) is this call's answer, not a `monitor.skipped` event.",
  tag: "Monitors",
  auth: "bearer",
  params: MONITOR_ID,
  headers: IDEMPOTENCY,
  responses: {
    202: {
      description: "The report, queued: poll its Location until status is completed or failed",
      content: { "application/json": ReportSchema },
      headers: ["Location", "Idempotent-Replayed"],
    },
  },
  errors: [
    "invalid_request",
    "not_found",
    "quota_exhausted",
    "rate_limited",
    "overloaded",
    ...URL_ERRORS,
    ...IDEMPOTENCY_ERRORS,
  ],
} as const satisfies ApiOperation;

export interface MonitorsRouteDeps extends ApiGuardDeps {
  monitors: MonitorService;
  idempotency: IdempotencyService;
  baseUrlFor: (request: Request) => string;
}

export function monitorsRoutes(deps: MonitorsRouteDeps) {
  const { monitors, idempotency } = deps;
  const withJson = new Elysia()
    .use(apiGuard(deps))
    .post(
      "/monitors",
      async ({ body, principal, headers, request }) => {
        const result = await idempotent(
          idempotency,
          principal.accountId,
          headers["idempotency-key"],
          { operation: createMonitorOperation.operationId, body },
          async () => {
            const created = await monitors.create(principal, body);
            return { status: 201, id: created.id, body: created };
          },
          (id) => monitors.get(principal.accountId, id),
        );
        return answer(result, { location: `${deps.baseUrlFor(request)}/api/monitors/${result.id}` });
      },
      { body: createMonitorOperation.body, headers: createMonitorOperation.headers },
    )
    .get("/monitors", async ({ principal, query: raw, request }) => {
      const query = queryOf(listMonitorsOperation.query, raw);
      const page = await monitors.list(principal.accountId, query);
      return olderPageDocument(page, `${deps.baseUrlFor(request)}/api/monitors`, query);
    })
    .get(
      "/monitors/:monitor_id",
      async ({ principal, params }) => jsonDocument(await monitors.get(principal.accountId, params.monitor_id)),
      { params: getMonitorOperation.params },
    )
    .patch(
      "/monitors/:monitor_id",
      async ({ principal, params, body }) =>
        jsonResponse(await monitors.update(principal.accountId, params.monitor_id, body)),
      { params: updateMonitorOperation.params, body: updateMonitorOperation.body },
    );
  const withoutBody = new Elysia()
    .use(emptyBodyAllowed("monitors"))
    .use(apiGuard(deps))
    .delete(
      "/monitors/:monitor_id",
      async ({ principal, params }) => {
        await monitors.delete(principal.accountId, params.monitor_id);
        return deleted();
      },
      { params: deleteMonitorOperation.params },
    )
    .post(
      "/monitors/:monitor_id/run",
      async ({ principal, params, headers, request }) => {
        // Idempotency-Key as on POST /api/generate-report: a repeat gets the same report.
        const outcome = await monitors.runNow(principal, params.monitor_id, {
          idempotencyKey: headers["idempotency-key"],
        });
        return jsonResponse(outcome.report, 202, {
          location: `${deps.baseUrlFor(request)}/api/report/${outcome.report.id}`,
          ...(outcome.replayed ? { "idempotent-replayed": "true" } : {}),
        });
      },
      { params: runMonitorOperation.params, headers: runMonitorOperation.headers },
    );
  return new Elysia({ prefix: "/api" }).use(withJson).use(withoutBody);
}

/** The monitors API for app.ts: its operations and its routes. */
export const monitorsApi: ApiModule<ApiContext> = {
  name: "monitors",
  operations: [
    createMonitorOperation,
    listMonitorsOperation,
    getMonitorOperation,
    updateMonitorOperation,
    deleteMonitorOperation,
    runMonitorOperation,
  ],
  routes: ({ guard, services, baseUrlFor }) =>
    monitorsRoutes({
      ...guard,
      monitors: services.monitoring.monitors,
      idempotency: services.idempotency,
      baseUrlFor,
    }),
};
