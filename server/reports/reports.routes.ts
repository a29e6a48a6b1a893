/** HTTP surface of reports: POST /api/generate-report and GET /api/report/{report_id}. */
import { Elysia, t } from "elysia";
import { SARIF_CONTENT_TYPE, toSarif } from "../../shared/sarif.ts";
import { type ApiGuardDeps, apiGuard } from "../auth/api-guard.plugin.ts";
import { entityTag } from "../http/etag.ts";
import { jsonResponse } from "../http/json-response.ts";
import { chooseMediaType } from "../http/media-type.ts";
import { AUTHENTICATED_ERRORS, ProblemSchema } from "../http/problem.schema.ts";
import { ApiProblem } from "../http/problem.ts";
import { API_VERSION } from "../version.ts";
import { MetadataSchema, ReportSchema } from "./report.schema.ts";
import type { ReportService } from "./reports.service.ts";

export const GenerateReportBody = t.Object(
  {
    url: t.String({ description: "The site to analyse (http or https)", examples: ["https://example.com/"] }),
    metadata: t.Optional(MetadataSchema),
    mode: t.Optional(
      t.UnionEnum(["passive", "aggressive"], {
        description:
          'Default "passive": only what the site shows. "aggressive" also probes a bounded list of plugin and theme slugs (those with known vulnerabilities first, then popular ones), within a request and time budget; the report says which findings came from it.',
        default: "passive",
      }),
    ),
  },
  { additionalProperties: false },
);

/** What GET /api/report/{id} can send; the first is the default. */
const REPORT_TYPES = ["application/json", SARIF_CONTENT_TYPE] as const;

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
        const outcome = await deps.reports.generate(principal, body, {
          respondAsync,
          idempotencyKey: headers["idempotency-key"],
        });
        const extra: Record<string, string> = {
          location: `${deps.baseUrlFor(request)}/api/report/${outcome.report.id}`,
        };
        if (outcome.status === 202) extra["preference-applied"] = "respond-async";
        if (outcome.replayed) extra["idempotent-replayed"] = "true";
        return jsonResponse(outcome.report, outcome.status, extra);
      },
      {
        body: GenerateReportBody,
        headers: t.Object({
          "idempotency-key": t.Optional(
            t.String({
              description: "Makes retries safe: a repeat within 24 h returns the first result and is not charged",
            }),
          ),
          prefer: t.Optional(t.String({ description: "respond-async → 202 with a queued report; poll its Location" })),
        }),
        response: {
          201: ReportSchema,
          202: ReportSchema,
          400: ProblemSchema,
          402: ProblemSchema,
          409: ProblemSchema,
          413: ProblemSchema,
          415: ProblemSchema,
          422: ProblemSchema,
          ...AUTHENTICATED_ERRORS,
        },
        detail: {
          summary: "Generate a report",
          description:
            "Analyses the site and returns the report (201, Location header). Costs one credit when a report is produced; rejected calls and unreachable sites are free.",
          tags: ["Reports"],
          security: [{ bearerAuth: [] }],
        },
      },
    )
    .get(
      "/report/:report_id",
      async ({ params, principal, request }) => {
        const report = await deps.reports.get(principal.accountId, params.report_id);
        if (!report) throw new ApiProblem("not_found", "There is no report with this id in your account.");
        // Content negotiation (q-values count): SARIF for code-scanning uploads, JSON otherwise.
        if (chooseMediaType(request, REPORT_TYPES) === SARIF_CONTENT_TYPE) {
          const sarif = toSarif(report, API_VERSION, `${deps.baseUrlFor(request)}/docs/checks`);
          const body = JSON.stringify(sarif);
          return new Response(body, {
            headers: {
              "content-type": `${SARIF_CONTENT_TYPE}; charset=utf-8`,
              vary: "accept",
              ...validators(report, body),
            },
          });
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
      {
        params: t.Object({ report_id: t.String({ maxLength: 64 }) }),
        response: { 200: ReportSchema, 404: ProblemSchema, ...AUTHENTICATED_ERRORS },
        detail: {
          summary: "Get a report",
          description:
            "Returns a report of your account; unknown ids and other accounts' reports are 404. With `Accept: application/sarif+json` the report comes as SARIF 2.1.0 (failed and warned checks as results), ready for GitHub code scanning.",
          tags: ["Reports"],
          security: [{ bearerAuth: [] }],
        },
      },
    );
}
