/** HTTP surface of report history: GET /api/reports and GET /api/report/{id}/diff. */
import { type Static, Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { ReportListSchema } from "../../shared/api.ts";
import {
  type Baseline,
  DiffOptionsError,
  type ParsedDiffOptions,
  parseBaseline,
  parseDiffOptions,
  QUERY_NAMES,
} from "../../shared/diff-options.ts";
import { DiffSchema } from "../../shared/diff-schema.ts";
import { ReportStatusSchema, SEVERITIES } from "../../shared/report.ts";
import { StringEnum } from "../../shared/schema.ts";
import { type ApiGuardDeps, apiGuard } from "../access/api-guard.plugin.ts";
import type { ApiModule } from "../platform/http/api-module.ts";
import { jsonDocument } from "../platform/http/json-response.ts";
import type { ApiOperation } from "../platform/http/openapi.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { parseQuery } from "../platform/http/query.ts";
import { olderPageDocument } from "../platform/http/resource-routes.ts";
import type { ApiContext } from "../start/app.ts";
import { DEFAULT_PAGE, MAX_PAGE, type ReportHistoryService } from "./report-history.service.ts";

export const listReportsOperation = {
  method: "get",
  path: "/api/reports",
  operationId: "listReports",
  summary: "List reports",
  description:
    "Your reports, newest first, with filters. Page with `before=<next_cursor>`; the Link header has the next page's URL.",
  tag: "Reports",
  auth: "bearer",
  query: Type.Object({
    url: Type.Optional(
      Type.String({ maxLength: 2048, description: "Any URL of the site; matched by normalised site" }),
    ),
    environment: Type.Optional(Type.String({ maxLength: 64 })),
    git_ref: Type.Optional(Type.String({ maxLength: 255 })),
    status: Type.Optional(ReportStatusSchema),
    before: Type.Optional(
      Type.String({ maxLength: 64, description: "Cursor: a report id (next_cursor); returns older reports" }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE, description: "Reports per page" }),
    ),
  }),
  responses: {
    200: { description: "A page of reports", content: { "application/json": ReportListSchema }, headers: ["Link"] },
  },
  errors: ["invalid_request"],
} as const satisfies ApiOperation;

export const diffReportsOperation = {
  method: "get",
  path: "/api/report/:report_id/diff",
  operationId: "diffReports",
  summary: "Compare two reports",
  description:
    "The diff engine's result: regressions, improvements, component and metric changes, new vulnerabilities, assertions, and a pass/fail verdict for the given thresholds (the same engine the GitHub Action uses), with the baseline it used and why. The first judgement of a report against a baseline rule (not `base=none`) is recorded as its gate verdict, which `last-passing` baselines rest on (docs/diff.md#the-baseline).",
  tag: "Reports",
  auth: "bearer",
  params: Type.Object({ report_id: Type.String({ maxLength: 64, description: "The newer report (rep_…)" }) }),
  query: Type.Object({
    base: Type.Optional(
      Type.String({
        maxLength: 64,
        default: "last-passing",
        description:
          "`last-passing` (the default: the newest earlier report of the same site and environment that passed the gate), `latest` (the newest earlier completed one, passed or not), a report id, or `none`",
      }),
    ),
    prefer_ref: Type.Optional(
      Type.String({
        maxLength: 255,
        description:
          "With `last-passing`: prefer reports whose metadata.git_ref is this (a pull request's default branch, e.g. refs/heads/main) when one of them passed",
      }),
    ),
    fail_on: Type.Optional(
      StringEnum([...SEVERITIES, "none"], {
        description: "Regressions of at least this severity fail the verdict (default high); none never",
      }),
    ),
    max_score_drop: Type.Optional(
      Type.Number({ minimum: 0, maximum: 100, description: "Fail when the score drops by more than this" }),
    ),
    budgets: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          "Limits on the head report's metrics, e.g. `ttfb_ms=800ms,html_bytes=200kB,score=80`: times in ms or s, sizes in B, kB, MB, KiB or MiB (a plain number is in ms or bytes); scores and counts are plain numbers",
      }),
    ),
    assert: Type.Optional(
      Type.String({
        maxLength: 4096,
        description:
          "Per-check levels replacing fail_on for the checks they match, e.g. `security.*:error,seo.meta_description:warn`: check ids or globs (`*` for any characters) with error (fails while the check fails), warn or off; the most specific pattern wins (docs/diff.md#assertions)",
      }),
    ),
  }),
  responses: { 200: { description: "The comparison and its verdict", content: { "application/json": DiffSchema } } },
  errors: ["invalid_request", "not_found"],
} as const satisfies ApiOperation;

/**
 * The query's baseline and thresholds, read by the parser the Action, the CLI and the web
 * compare page use (after the operation's schema, which documents and type-checks them).
 */
function diffOptions(query: Static<typeof diffReportsOperation.query>): {
  base: Baseline;
  options: ParsedDiffOptions;
} {
  try {
    return {
      base: parseBaseline(query.base, QUERY_NAMES.baseline),
      options: parseDiffOptions({
        failOn: query.fail_on,
        maxScoreDrop: query.max_score_drop,
        budgets: query.budgets,
        assert: query.assert,
      }),
    };
  } catch (error) {
    if (!(error instanceof DiffOptionsError)) throw error;
    const pointer = `/${QUERY_NAMES[error.option]}`;
    throw new ApiProblem("invalid_request", error.message, {
      extensions: { errors: [{ location: "query", pointer, detail: error.message }] },
    });
  }
}

export function historyRoutes(
  deps: ApiGuardDeps & {
    history: ReportHistoryService;
    baseUrlFor: (request: Request) => string;
  },
) {
  return new Elysia({ prefix: "/api" })
    .use(apiGuard(deps))
    .get("/reports", async ({ query: rawQuery, principal, request }) => {
      const query = parseQuery(listReportsOperation.query, rawQuery);
      const page = await deps.history.list(principal.accountId, {
        url: query.url,
        environment: query.environment,
        gitRef: query.git_ref,
        status: query.status,
        before: query.before,
        limit: query.limit ?? DEFAULT_PAGE,
      });
      return olderPageDocument(page, `${deps.baseUrlFor(request)}/api/reports`, query);
    })
    .get(
      "/report/:report_id/diff",
      async ({ params, query: rawQuery, principal }) => {
        const query = parseQuery(diffReportsOperation.query, rawQuery);
        const { base: rule, options } = diffOptions(query);
        const result = await deps.history.judge(principal.accountId, params.report_id, {
          base: rule,
          options,
          preferRef: query.prefer_ref,
        });
        return jsonDocument(result);
      },
      { params: diffReportsOperation.params },
    );
}

/** The report history API for app.ts: its operations and its routes. */
export const historyApi: ApiModule<ApiContext> = {
  name: "history",
  operations: [listReportsOperation, diffReportsOperation],
  routes: ({ guard, services, baseUrlFor }) => historyRoutes({ ...guard, history: services.history, baseUrlFor }),
};
