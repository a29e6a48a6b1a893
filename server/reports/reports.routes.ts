/**
 * HTTP surface of reports: POST /api/generate-report, GET /api/report/{report_id} and
 * POST /api/report/{report_id}/cancel. Each
 * operation is declared once (schemas, answers, errors): the route validates with it and the
 * OpenAPI document is written from it.
 */
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { GenerateReportRequestSchema, SarifLogSchema } from "../../shared/api.ts";
import { type Report, ReportSchema } from "../../shared/report.ts";
import {
  MAX_SARIF_LOCATION_LENGTH,
  parseSarifLocation,
  SARIF_CONTENT_TYPE,
  SarifLocationError,
  toSarif,
} from "../../shared/sarif.ts";
import { type ApiGuardDeps, apiGuard } from "../access/api-guard.plugin.ts";
import type { ApiModule } from "../platform/http/api-module.ts";
import { entityTag } from "../platform/http/etag.ts";
import { jsonResponse } from "../platform/http/json-response.ts";
import { chooseMediaType } from "../platform/http/media-type.ts";
import type { ApiOperation } from "../platform/http/openapi.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { parseQuery } from "../platform/http/query.ts";
import { API_VERSION } from "../platform/version.ts";
import type { ApiContext } from "../start/app.ts";
import { parseReportOptions } from "./report-options.ts";
import type { ReportService } from "./reports.service.ts";

const REPORT_ID = Type.Object({
  report_id: Type.String({
    maxLength: 64,
    description: "The report's id (rep_…)",
    examples: ["rep_01m807a3aghb72nx4r1yzpj8en"],
  }),
});

export const generateReportOperation = {
  method: "post",
  path: "/api/generate-report",
  operationId: "generateReport",
  summary: "Generate a report",
  description:
    "Analyses the site and returns the report (201, Location header). Costs one credit when a report is produced; rejected calls and unreachable sites are free. With `Prefer: respond-async` it answers 202 at once with a queued report: poll its Location.",
  tag: "Reports",
  auth: "bearer",
  headers: Type.Object({
    "idempotency-key": Type.Optional(
      Type.String({
        maxLength: 255,
        description:
          "Makes retries safe: a repeat within 24 h with the same body returns the first result and is not charged",
      }),
    ),
    prefer: Type.Optional(
      Type.String({
        description: "respond-async → 202 with a queued report; poll its Location",
        examples: ["respond-async"],
      }),
    ),
  }),
  body: GenerateReportRequestSchema,
  responses: {
    201: {
      description: "The completed (or failed) report",
      content: { "application/json": ReportSchema },
      headers: ["Location", "Idempotent-Replayed"],
    },
    202: {
      description: "Queued (Prefer: respond-async): poll the Location until status is completed or failed",
      content: { "application/json": ReportSchema },
      headers: ["Location", "Preference-Applied", "Idempotent-Replayed"],
    },
  },
  errors: [
    "invalid_request",
    "quota_exhausted",
    "idempotency_in_progress",
    "payload_too_large",
    "unsupported_media_type",
    "invalid_url",
    "url_not_allowed",
    "site_unreachable",
    "idempotency_key_reused",
    "report_cancelled",
    "overloaded",
  ],
} as const satisfies ApiOperation;

const SARIF_LOCATION_DESCRIPTION = `The repository file (relative path, at most ${MAX_SARIF_LOCATION_LENGTH} characters, no ..) that results are attached to at line 1, e.g. .github/workflows/deploy.yml. Default .wpreport.yml.`;

export const getReportOperation = {
  method: "get",
  path: "/api/report/:report_id",
  operationId: "getReport",
  summary: "Get a report",
  description:
    "Returns a report of your account as JSON; unknown ids and other accounts' reports are 404. The same report as SARIF for code scanning is `GET /api/report/{report_id}/sarif`. (Clients of API 1.3 and earlier that ask this path for SARIF with `Accept: application/sarif+json` and `sarif_location` still get it; that way is deprecated.)",
  tag: "Reports",
  auth: "bearer",
  params: REPORT_ID,
  query: Type.Object({
    sarif_location: Type.Optional(
      Type.String({
        maxLength: MAX_SARIF_LOCATION_LENGTH,
        deprecated: true,
        description: `Deprecated, with Accept: application/sarif+json only: use GET /api/report/{report_id}/sarif. ${SARIF_LOCATION_DESCRIPTION}`,
      }),
    ),
  }),
  responses: {
    200: {
      description: "The report",
      content: { "application/json": ReportSchema },
      headers: ["ETag", "Queue-Position"],
    },
    304: {
      description:
        "Not modified: If-None-Match named the ETag of this finished report's representation (reports are immutable once completed or failed)",
      headers: ["ETag"],
    },
  },
  errors: ["invalid_request", "not_found", "not_acceptable"],
} as const satisfies ApiOperation;

export const getReportSarifOperation = {
  method: "get",
  path: "/api/report/:report_id/sarif",
  operationId: "getReportSarif",
  summary: "Get a report as SARIF",
  description:
    "The report as SARIF 2.1.0 for GitHub code scanning (`github/codeql-action/upload-sarif`): failed and warned checks as results attached to line 1 of `sarif_location`, the site URL in each message; a report that did not complete is a run with `executionSuccessful: false` and no results (docs/sarif.md). Reading it costs nothing: it is the stored report, written as SARIF.",
  tag: "Reports",
  auth: "bearer",
  params: REPORT_ID,
  query: Type.Object({
    sarif_location: Type.Optional(
      Type.String({ maxLength: MAX_SARIF_LOCATION_LENGTH, description: SARIF_LOCATION_DESCRIPTION }),
    ),
  }),
  responses: {
    200: {
      description: "The report as SARIF 2.1.0",
      content: { [SARIF_CONTENT_TYPE]: SarifLogSchema },
      headers: ["ETag"],
    },
    304: {
      description:
        "Not modified: If-None-Match named the ETag of this finished report's SARIF (reports are immutable once completed or failed)",
      headers: ["ETag"],
    },
  },
  errors: ["invalid_request", "not_found", "not_acceptable"],
} as const satisfies ApiOperation;

export const cancelReportOperation = {
  method: "post",
  path: "/api/report/:report_id/cancel",
  operationId: "cancelReport",
  summary: "Cancel a report",
  description:
    "Cancels a queued or running report of your account: it ends as `failed` with an `errors[]` entry of kind `cancelled`, nothing is charged and its credit is returned; a worker analyzing it stops within a few seconds. A synchronous `generate-report` call waiting for it answers `409 report_cancelled`. Cancelling a cancelled report answers it again (200); a report that already completed or failed for another reason is `409 report_already_finished`. No body.",
  tag: "Reports",
  auth: "bearer",
  params: REPORT_ID,
  responses: {
    200: {
      description: "The cancelled report",
      content: { "application/json": ReportSchema },
    },
  },
  errors: ["invalid_request", "not_found", "report_already_finished"],
} as const satisfies ApiOperation;

/** What GET /api/report/{id} can send; the first is the default (SARIF there is the deprecated way). */
const REPORT_TYPES = ["application/json", SARIF_CONTENT_TYPE] as const;
/** What GET /api/report/{id}/sarif can send: SARIF, which is JSON too. */
const SARIF_TYPES = [SARIF_CONTENT_TYPE, "application/json"] as const;

/**
 * A finished report (completed or failed) never changes: clients may keep it and revalidate
 * with If-None-Match (a 304 without a body). `private`: a bearer-token answer is for the
 * caller's cache only; `no-cache`: revalidated every time, so a deleted report or a revoked
 * token is never served from a cache. One still in progress changes: not stored.
 * The ETag hashes the exact bytes of this representation (representation.ts answers the 304).
 */
function validators(report: { status: string }, body: string): Record<string, string> {
  const finished = report.status === "completed" || report.status === "failed";
  return finished ? { etag: entityTag(body), "cache-control": "private, no-cache" } : { "cache-control": "no-store" };
}

export function reportsRoutes(
  deps: ApiGuardDeps & { reports: ReportService; baseUrlFor: (request: Request) => string },
) {
  return new Elysia({ prefix: "/api" })
    .use(apiGuard(deps))
    .post(
      "/generate-report",
      async ({ body, principal, headers, request }) => {
        const prefer = (headers.prefer ?? "").toLowerCase();
        const respondAsync = /(^|[,;\s])respond-async($|[,;\s])/.test(prefer);
        const input = { url: body.url, metadata: body.metadata, options: parseReportOptions(body) };
        const outcome = await deps.reports.generate(principal, input, {
          respondAsync,
          idempotencyKey: headers["idempotency-key"],
          // A synchronous call whose client disconnects stops waiting (ReportService.generate).
          signal: request.signal,
        });
        const extra: Record<string, string> = {
          location: `${deps.baseUrlFor(request)}/api/report/${outcome.report.id}`,
        };
        if (outcome.status === 202) extra["preference-applied"] = "respond-async";
        if (outcome.replayed) extra["idempotent-replayed"] = "true";
        return jsonResponse(outcome.report, outcome.status, extra);
      },
      {
        body: generateReportOperation.body,
        headers: generateReportOperation.headers,
      },
    )
    .get(
      "/report/:report_id",
      async ({ params, principal, request, query: rawQuery }) => {
        const location = sarifLocation(parseQuery(getReportOperation.query, rawQuery).sarif_location);
        const report = await reportOf(principal.accountId, params.report_id);
        // Content negotiation (q-values count): SARIF still for API 1.3 clients that ask here.
        if (chooseMediaType(request, REPORT_TYPES) === SARIF_CONTENT_TYPE) {
          return sarifResponse(report, request, location, { vary: "accept" });
        }
        // Where a queued report stands: 1 = next to be taken by a worker.
        const position = report.status === "queued" ? await deps.reports.queuePosition(report.id) : undefined;
        const json = JSON.stringify(report);
        return new Response(json, {
          headers: {
            "content-type": "application/json; charset=utf-8",
            vary: "accept",
            ...validators(report, json),
            ...(position ? { "queue-position": String(position) } : {}),
          },
        });
      },
      { params: getReportOperation.params },
    )
    .get(
      "/report/:report_id/sarif",
      async ({ params, principal, request, query: rawQuery }) => {
        const location = sarifLocation(parseQuery(getReportSarifOperation.query, rawQuery).sarif_location);
        chooseMediaType(request, SARIF_TYPES); // 406 for an Accept that rules out JSON of any kind
        return sarifResponse(await reportOf(principal.accountId, params.report_id), request, location);
      },
      { params: getReportSarifOperation.params },
    )
    .post(
      "/report/:report_id/cancel",
      async ({ params, principal }) =>
        jsonResponse(await deps.reports.cancel(principal.accountId, params.report_id), 200),
      { params: cancelReportOperation.params },
    );

  async function reportOf(accountId: string, reportId: string): Promise<Report> {
    const report = await deps.reports.get(accountId, reportId);
    if (!report) throw new ApiProblem("not_found", "There is no report with this id in your account.");
    return report;
  }

  function sarifResponse(
    report: Report,
    request: Request,
    location: string | undefined,
    extra: Record<string, string> = {},
  ): Response {
    const sarif = toSarif(report, API_VERSION, `${deps.baseUrlFor(request)}/docs/checks`, location);
    const body = JSON.stringify(sarif);
    return new Response(body, {
      headers: { "content-type": `${SARIF_CONTENT_TYPE}; charset=utf-8`, ...extra, ...validators(report, body) },
    });
  }
}

/** The sarif_location parameter (parseSarifLocation); undefined → toSarif's default. */
function sarifLocation(location: string | undefined): string | undefined {
  try {
    return parseSarifLocation(location);
  } catch (error) {
    throw error instanceof SarifLocationError ? new ApiProblem("invalid_request", `${error.message}.`) : error;
  }
}

/** The reports API for app.ts: its operations and its routes. */
export const reportsApi: ApiModule<ApiContext> = {
  name: "reports",
  operations: [generateReportOperation, getReportOperation, getReportSarifOperation, cancelReportOperation],
  routes: ({ guard, services, baseUrlFor }) => reportsRoutes({ ...guard, reports: services.reports, baseUrlFor }),
};
