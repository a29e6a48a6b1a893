/**
 * Reports in the browser: the list, a report's page (the stored report JSON, rendered), its
 * JSON and SARIF downloads, and the comparison of two reports.
 */
import { Elysia } from "elysia";
import { diff } from "../../shared/diff.ts";
import { DiffOptionsError, type ParsedDiffOptions, parseDiffOptions } from "../../shared/diff-options.ts";
import type { Report } from "../../shared/report.ts";
import { parseSarifLocation, SarifLocationError, toSarif } from "../../shared/sarif.ts";
import { API_VERSION } from "../platform/version.ts";
import { WebError } from "../web/context.ts";
import { download, page } from "../web/render.tsx";
import { type WebPluginDeps, webPlugin } from "../web/web.plugin.ts";
import { ComparePage } from "./pages/compare.tsx";
import { ReportPage } from "./pages/report.tsx";
import { ReportsPage } from "./pages/reports-list.tsx";
import type { ReportHistoryService } from "./report-history.service.ts";
import type { ReportService } from "./reports.service.ts";

export interface ReportsRouteDeps extends WebPluginDeps {
  reports: ReportService;
  history: ReportHistoryService;
}

export function reportsRoutes(deps: ReportsRouteDeps) {
  /** The account's report with this id, or a 404 page. */
  async function reportOf(accountId: string, id: string): Promise<Report> {
    const report = await deps.reports.get(accountId, id);
    if (!report) throw new WebError(404, "There is no report with this id in your account.");
    return report;
  }

  return new Elysia({ name: "web.reports" })
    .use(webPlugin(deps))
    .get(
      "/reports",
      async ({ ctx, session, query }) => {
        const search = (query.site ?? "").slice(0, 200);
        const grade = /^[A-F]$/.test(query.grade ?? "") ? (query.grade as string) : "";
        let page_: Awaited<ReturnType<ReportHistoryService["list"]>>;
        try {
          page_ = await deps.history.list(session.accountId, {
            search: search || undefined,
            grade: grade || undefined,
            before: query.before,
            limit: 25,
          });
        } catch {
          throw new WebError(400, "That page of reports does not exist.");
        }
        return page(
          ctx,
          "Reports",
          <ReportsPage reports={page_.data} search={search} grade={grade} next={page_.next_cursor} />,
        );
      },
      { signedIn: true },
    )
    .get(
      "/reports/:id",
      async ({ ctx, session, params }) => {
        const report = await reportOf(session.accountId, params.id);
        const siblings = (
          await deps.history.list(session.accountId, {
            url: report.url,
            status: "completed",
            before: report.id,
            limit: 10,
          })
        ).data;
        return page(ctx, `Report — ${report.url}`, <ReportPage report={report} siblings={siblings} />);
      },
      { signedIn: true },
    )
    .get(
      "/reports/:id/report.json",
      async ({ ctx, session, params }) => {
        const report = await reportOf(session.accountId, params.id);
        return download(ctx, JSON.stringify(report, null, 2), `${report.id}.json`, "application/json");
      },
      { signedIn: true },
    )
    .get(
      "/reports/:id/report.sarif",
      async ({ ctx, session, params, query }) => {
        // The same ?sarif_location= as the API, read by the same parser.
        let location: string | undefined;
        try {
          location = parseSarifLocation(query.sarif_location);
        } catch (error) {
          throw error instanceof SarifLocationError ? new WebError(400, `${error.message}.`) : error;
        }
        const report = await reportOf(session.accountId, params.id);
        return download(
          ctx,
          JSON.stringify(toSarif(report, API_VERSION, `${ctx.baseUrl}/docs/checks`, location), null, 2),
          `${report.id}.sarif`,
          "application/sarif+json",
        );
      },
      { signedIn: true },
    )
    .get(
      "/reports/:id/compare",
      async ({ ctx, session, params, query }) => {
        const head = await deps.reports.get(session.accountId, params.id);
        const base = query.base ? await deps.reports.get(session.accountId, query.base) : undefined;
        if (!head || !base) throw new WebError(404, "One of the two reports does not exist in your account.");
        let options: ParsedDiffOptions;
        try {
          // The page's form offers fail_on only.
          options = parseDiffOptions({ failOn: query.fail_on });
        } catch (error) {
          throw error instanceof DiffOptionsError ? new WebError(400, error.message) : error;
        }
        const result = diff(base, head, options);
        return page(
          ctx,
          "Compare reports",
          <ComparePage base={base} head={head} diff={result} failOn={options.failOn} />,
        );
      },
      { signedIn: true },
    );
}
