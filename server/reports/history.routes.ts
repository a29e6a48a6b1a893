/** HTTP surface of report history: GET /api/reports and GET /api/report/{id}/diff. */
import { Elysia, t } from "elysia";
import { type DiffOptions, diff, isSeverity, parseBudgets } from "../../shared/diff.ts";
import type { Report, ReportStatus } from "../../shared/report.ts";
import { type ApiGuardDeps, apiGuard } from "../auth/api-guard.plugin.ts";
import { jsonResponse } from "../http/json-response.ts";
import { AUTHENTICATED_ERRORS, ProblemSchema } from "../http/problem.schema.ts";
import { ApiProblem } from "../http/problem.ts";
import { MetadataSchema } from "./report.schema.ts";
import { DEFAULT_PAGE, MAX_PAGE, type ReportHistoryService } from "./report-history.service.ts";
import type { ReportService } from "./reports.service.ts";

const ListItemSchema = t.Object({
  id: t.String(),
  url: t.String(),
  site: t.String({ description: "Normalised site: host without www., port, path" }),
  status: t.UnionEnum(["queued", "running", "completed", "failed"]),
  created_at: t.String({ format: "date-time" }),
  completed_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  score: t.Union([t.Integer(), t.Null()]),
  grade: t.Union([t.String(), t.Null()]),
  metadata: MetadataSchema,
});

const STATUSES: ReportStatus[] = ["queued", "running", "completed", "failed"];

function diffOptions(query: { fail_on?: string; max_score_drop?: string; budgets?: string }): DiffOptions {
  const options: DiffOptions = {};
  if (query.fail_on !== undefined) {
    if (query.fail_on !== "none" && !isSeverity(query.fail_on)) {
      throw new ApiProblem("invalid_request", "fail_on must be one of critical, high, medium, low, info, none.");
    }
    options.failOn = query.fail_on;
  }
  if (query.max_score_drop !== undefined) {
    const drop = Number(query.max_score_drop);
    if (!Number.isFinite(drop) || drop < 0 || drop > 100)
      throw new ApiProblem("invalid_request", "max_score_drop must be a number from 0 to 100.");
    options.maxScoreDrop = drop;
  }
  if (query.budgets !== undefined) {
    try {
      options.budgets = parseBudgets(query.budgets);
    } catch (error) {
      throw new ApiProblem("invalid_request", `budgets: ${(error as Error).message}.`);
    }
  }
  return options;
}

export function historyRoutes(
  deps: ApiGuardDeps & {
    history: ReportHistoryService;
    reports: ReportService;
    baseUrlFor: (request: Request) => string;
  },
) {
  return new Elysia({ prefix: "/api" })
    .use(apiGuard(deps))
    .get(
      "/reports",
      async ({ query, principal, request }) => {
        if (query.status !== undefined && !STATUSES.includes(query.status as ReportStatus)) {
          throw new ApiProblem("invalid_request", `status must be one of ${STATUSES.join(", ")}.`);
        }
        const limit = query.limit === undefined ? DEFAULT_PAGE : Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
          throw new ApiProblem("invalid_request", `limit must be a whole number from 1 to ${MAX_PAGE}.`);
        }
        const page = await deps.history.list(principal.accountId, {
          url: query.url,
          environment: query.environment,
          gitRef: query.git_ref,
          status: query.status as ReportStatus | undefined,
          before: query.before,
          limit,
        });
        const headers: Record<string, string> = {};
        if (page.next_cursor) {
          const next = new URL(`${deps.baseUrlFor(request)}/api/reports`);
          for (const [key, value] of Object.entries(query))
            if (value !== undefined && key !== "before") next.searchParams.set(key, value);
          next.searchParams.set("before", page.next_cursor);
          headers.link = `<${next}>; rel="next"`;
        }
        return jsonResponse(page, 200, headers);
      },
      {
        query: t.Object({
          url: t.Optional(
            t.String({ maxLength: 2048, description: "Any URL of the site; matched by normalised site" }),
          ),
          environment: t.Optional(t.String({ maxLength: 64 })),
          git_ref: t.Optional(t.String({ maxLength: 255 })),
          status: t.Optional(t.String({ description: "queued, running, completed or failed" })),
          before: t.Optional(t.String({ maxLength: 64, description: "Cursor: a report id; returns older reports" })),
          limit: t.Optional(t.String({ description: `1–${MAX_PAGE}, default ${DEFAULT_PAGE}` })),
        }),
        response: {
          200: t.Object({ data: t.Array(ListItemSchema), next_cursor: t.Union([t.String(), t.Null()]) }),
          400: ProblemSchema,
          ...AUTHENTICATED_ERRORS,
        },
        detail: {
          summary: "List reports",
          description:
            "Newest first, with filters. Page with `before=<next_cursor>`; the Link header has the next page's URL.",
          tags: ["Reports"],
          security: [{ bearerAuth: [] }],
        },
      },
    )
    .get(
      "/report/:report_id/diff",
      async ({ params, query, principal }) => {
        const options = diffOptions(query);
        const head = await deps.reports.get(principal.accountId, params.report_id);
        if (!head) throw new ApiProblem("not_found", "There is no report with this id in your account.");
        let base: Report | null = null;
        if (query.base === "latest") {
          base = (await deps.history.previous(principal.accountId, head)) ?? null;
        } else if (query.base !== "none") {
          base = (await deps.reports.get(principal.accountId, query.base)) ?? null;
          if (!base) throw new ApiProblem("not_found", "There is no base report with this id in your account.");
        }
        return jsonResponse(diff(base, head, options));
      },
      {
        params: t.Object({ report_id: t.String({ maxLength: 64 }) }),
        query: t.Object({
          base: t.String({
            maxLength: 64,
            description: "A report id, `latest` (the newest earlier report of the same site and environment) or `none`",
          }),
          fail_on: t.Optional(t.String({ description: "critical, high (default), medium, low, info or none" })),
          max_score_drop: t.Optional(t.String()),
          budgets: t.Optional(
            t.String({
              description:
                "Limits on the head report's metrics, e.g. `ttfb_ms=800ms,html_bytes=200kB,score=80`: times in ms or s, sizes in B, kB, MB, KiB or MiB (a plain number is in ms or bytes); scores and counts are plain numbers",
            }),
          ),
        }),
        response: { 400: ProblemSchema, 404: ProblemSchema, ...AUTHENTICATED_ERRORS },
        detail: {
          summary: "Compare two reports",
          description:
            "The diff engine's result: regressions, improvements, component and metric changes, new vulnerabilities, and a pass/fail verdict for the given thresholds (the same engine the GitHub Action uses).",
          tags: ["Reports"],
          security: [{ bearerAuth: [] }],
        },
      },
    );
}
