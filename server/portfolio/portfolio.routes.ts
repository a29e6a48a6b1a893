/**
 * HTTP surface of the portfolio (docs/portfolio.md): GET /api/sites (JSON or CSV),
 * GET /api/sites/{site_id}, GET /api/components and GET /api/sites/{site_id}/client-report
 * (HTML or PDF). Each operation is declared once: the route validates with it and the OpenAPI
 * document is written from it.
 */
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { COMPONENT_TYPES } from "../../shared/diff-schema.ts";
import { ComponentSitesSchema, PERIOD_PATTERN, SiteDetailSchema, SiteListSchema } from "../../shared/portfolio-api.ts";
import { StringEnum } from "../../shared/schema.ts";
import { type ApiGuardDeps, apiGuard } from "../access/api-guard.plugin.ts";
import type { ApiModule } from "../platform/http/api-module.ts";
import { jsonDocument } from "../platform/http/json-response.ts";
import { chooseMediaType } from "../platform/http/media-type.ts";
import type { ApiOperation } from "../platform/http/openapi.ts";
import { nextPageLink } from "../platform/http/pagination.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { parseQuery } from "../platform/http/query.ts";
import type { ApiContext } from "../start/app.ts";
import { type ClientReportService, pdfNotAvailable } from "./client-report.service.ts";
import { CSV_CONTENT_TYPE, portfolioCsv } from "./csv.ts";
import { DEFAULT_SITES_PAGE, MAX_EXPORT_SITES, MAX_SITES_PAGE, type PortfolioService } from "./portfolio.service.ts";

const SITE_ID = Type.Object({
  site_id: Type.String({
    maxLength: 64,
    description: "The site's id (sit_…), from GET /api/sites",
    examples: ["sit_7k2m4q8x1c9v3b6n5t0r2w8y4z"],
  }),
});

const AFTER = Type.Optional(
  Type.String({ maxLength: 64, description: "Cursor: a site id (next_cursor); returns the sites after it" }),
);

const SITE_FILTERS = {
  url: Type.Optional(Type.String({ maxLength: 2048, description: "Any URL of the site; matched by normalised site" })),
  environment: Type.Optional(
    Type.String({ maxLength: 64, description: "Only this environment; empty for reports without one" }),
  ),
  after: AFTER,
};

export const listSitesOperation = {
  method: "get",
  path: "/api/sites",
  operationId: "listSites",
  summary: "List your sites (portfolio)",
  description:
    "Every site you have reports of — a site is a normalised URL and an environment — with its newest grade and score, the trend of its last 10 completed reports, the open vulnerabilities of its newest completed report with `vulnerability_data` beside them (complete, partial or none: with none the counts mean nothing, not zero), the checks that could not run, and its monitor. By site, then environment; page with `after=<next_cursor>`, also given as a Link header. The same list as CSV: GET /api/sites.csv (this path answers it too for `format=csv` or an `Accept` that prefers `text/csv`).",
  tag: "Portfolio",
  auth: "bearer",
  query: Type.Object({
    ...SITE_FILTERS,
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_SITES_PAGE, default: DEFAULT_SITES_PAGE, description: "Sites per page" }),
    ),
    format: Type.Optional(
      StringEnum(["json", "csv"], {
        description: "Overrides the Accept header; csv answers as GET /api/sites.csv does",
      }),
    ),
  }),
  responses: {
    200: { description: "A page of sites", content: { "application/json": SiteListSchema }, headers: ["Link"] },
  },
  errors: ["invalid_request", "not_acceptable"],
} as const satisfies ApiOperation;

export const exportSitesOperation = {
  method: "get",
  path: "/api/sites.csv",
  operationId: "exportSites",
  summary: "Export your sites as CSV",
  description: `The portfolio as CSV (RFC 4180, a header row, CRLF line ends, UTF-8): one row per site with its grade, score, trend, vulnerabilities, newest report and monitor. Every site (up to ${MAX_EXPORT_SITES}) unless \`limit\` is given; the same filters as GET /api/sites. Site text that would start a spreadsheet formula (= + - @, a tab or a carriage return) is prefixed with an apostrophe. When a site's vulnerability data is not complete, its vulnerability columns say so in words ("not checked: no vulnerability data", "partly checked") instead of numbers.`,
  tag: "Portfolio",
  auth: "bearer",
  query: Type.Object({
    ...SITE_FILTERS,
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_EXPORT_SITES, description: "Sites in the file; default: every site" }),
    ),
  }),
  responses: {
    200: {
      description: "The sites as CSV",
      content: { [CSV_CONTENT_TYPE]: Type.String({ description: "RFC 4180 CSV with a header row" }) },
      headers: ["Link"],
    },
  },
  errors: ["invalid_request"],
} as const satisfies ApiOperation;

export const getSiteOperation = {
  method: "get",
  path: "/api/sites/:site_id",
  operationId: "getSite",
  summary: "Get a site",
  description:
    "One site of your portfolio: what the listing says, plus its score history (the last 100 completed reports), its 50 newest reports, the components and open vulnerabilities of its newest completed report (with their fixes), and the months a client report can cover. Unknown ids and other accounts' sites are 404.",
  tag: "Portfolio",
  auth: "bearer",
  params: SITE_ID,
  responses: { 200: { description: "The site", content: { "application/json": SiteDetailSchema } } },
  errors: ["not_found"],
} as const satisfies ApiOperation;

export const listComponentSitesOperation = {
  method: "get",
  path: "/api/components",
  operationId: "listComponentSites",
  summary: "Which of your sites run a component",
  description:
    "The sites whose newest completed report found this plugin, theme or WordPress (`slug=wordpress&type=core`), with the installed version, the latest one and its known vulnerabilities. Reads stored reports only: nothing is analyzed, nothing is charged. By site, then environment; page with `after=<next_cursor>`.",
  tag: "Portfolio",
  auth: "bearer",
  query: Type.Object({
    slug: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The component's slug (its directory name; wordpress for core), compared without case",
      examples: ["akismet"],
    }),
    type: Type.Optional(StringEnum(COMPONENT_TYPES, { description: "Only this type; default: any" })),
    after: AFTER,
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_SITES_PAGE, default: DEFAULT_SITES_PAGE, description: "Sites per page" }),
    ),
  }),
  responses: {
    200: {
      description: "The sites that run it",
      content: { "application/json": ComponentSitesSchema },
      headers: ["Link"],
    },
  },
  errors: ["invalid_request"],
} as const satisfies ApiOperation;

export const getClientReportOperation = {
  method: "get",
  path: "/api/sites/:site_id/client-report",
  operationId: "getClientReport",
  summary: "Get a site's client report for a month",
  description:
    "A printable, white-label report of the site over one calendar month (UTC), with your agency's name and logo from the web interface's branding settings: the grade now and its trend, what changed between the month's first and last report, what was fixed, and the open issues with how to fix them. A self-contained HTML document (it loads nothing; its Content-Security-Policy allows no script), or a PDF with `format=pdf` or `Accept: application/pdf` where the service has Chromium — otherwise 406. 404 `no_report` when the site has no completed report in that month, also for a month outside its reports (the `periods` member lists the months that have one).",
  tag: "Portfolio",
  auth: "bearer",
  params: SITE_ID,
  query: Type.Object({
    period: Type.String({ pattern: PERIOD_PATTERN, description: "The month, YYYY-MM (UTC)", examples: ["2026-11"] }),
    format: Type.Optional(StringEnum(["html", "pdf"], { description: "Overrides the Accept header" })),
  }),
  responses: {
    200: {
      description: "The client report",
      content: {
        "text/html": Type.String({ description: "A self-contained HTML document" }),
        "application/pdf": Type.String({ contentMediaType: "application/pdf", description: "A4 pages" }),
      },
    },
  },
  errors: ["invalid_request", "not_found", "no_report", "not_acceptable", "unavailable"],
} as const satisfies ApiOperation;

/** `<url of this listing with after=cursor>; rel="next"` (platform/http/pagination.ts). */
const nextLink = (base: string, query: Record<string, unknown>, cursor: string): string =>
  nextPageLink(base, query, "after", cursor).link as string;

const today = () => new Date().toISOString().slice(0, 10);

/** Headers of a client report: its own CSP (the document's stylesheet by hash, no script). */
export function clientReportHeaders(csp: string): Record<string, string> {
  return {
    "content-security-policy": csp,
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
  };
}

export function portfolioRoutes(
  deps: ApiGuardDeps & {
    portfolio: PortfolioService;
    clientReports: ClientReportService;
    baseUrlFor: (request: Request) => string;
  },
) {
  /** The sites as CSV: every one unless a limit is given; the next part in Link when cut. */
  async function csvAnswer(
    accountId: string,
    query: { url?: string; environment?: string; after?: string; limit?: number },
    base: string,
    negotiated: boolean,
  ): Promise<Response> {
    const page = await deps.portfolio.list(
      accountId,
      { url: query.url, environment: query.environment, after: query.after, limit: query.limit ?? MAX_EXPORT_SITES },
      base,
    );
    const headers: Record<string, string> = {
      "content-type": `${CSV_CONTENT_TYPE}; charset=utf-8; header=present`,
      "content-disposition": `attachment; filename="portfolio-${today()}.csv"`,
      "cache-control": "no-store",
    };
    if (negotiated) headers.vary = "accept";
    if (page.next_cursor) headers.link = nextLink(`${base}/api/sites.csv`, query, page.next_cursor);
    return new Response(portfolioCsv(page.data), { headers });
  }

  return new Elysia({ prefix: "/api" })
    .use(apiGuard(deps))
    .get("/sites", async ({ query: rawQuery, principal, request }) => {
      const query = parseQuery(listSitesOperation.query, rawQuery);
      const csv =
        query.format !== undefined
          ? query.format === "csv"
          : chooseMediaType(request, ["application/json", CSV_CONTENT_TYPE]) === CSV_CONTENT_TYPE;
      const base = deps.baseUrlFor(request);
      if (csv) {
        const { format: _format, ...filters } = query;
        return csvAnswer(principal.accountId, filters, base, true);
      }
      const page = await deps.portfolio.list(
        principal.accountId,
        {
          url: query.url,
          environment: query.environment,
          after: query.after,
          limit: query.limit ?? DEFAULT_SITES_PAGE,
        },
        base,
      );
      const headers: Record<string, string> = { vary: "accept" };
      if (page.next_cursor) headers.link = nextLink(`${base}/api/sites`, query, page.next_cursor);
      return jsonDocument(page, headers);
    })
    .get("/sites.csv", async ({ query: rawQuery, principal, request }) =>
      csvAnswer(principal.accountId, parseQuery(exportSitesOperation.query, rawQuery), deps.baseUrlFor(request), false),
    )
    .get(
      "/sites/:site_id",
      async ({ params, principal, request }) => {
        const site = await deps.portfolio.get(principal.accountId, params.site_id, deps.baseUrlFor(request));
        if (!site) throw new ApiProblem("not_found", "There is no site with this id in your account.");
        return jsonDocument(site);
      },
      { params: getSiteOperation.params },
    )
    .get(
      "/sites/:site_id/client-report",
      async ({ params, principal, request, query: rawQuery }) => {
        const query = parseQuery(getClientReportOperation.query, rawQuery);
        const available: [string, ...string[]] = deps.clientReports.pdfAvailable
          ? ["text/html", "application/pdf"]
          : ["text/html"];
        let type: string;
        if (query.format !== undefined) {
          type = query.format === "pdf" ? "application/pdf" : "text/html";
        } else {
          try {
            type = chooseMediaType(request, available);
          } catch (error) {
            // An Accept that wants a PDF from a service that cannot make one: say why.
            if (!deps.clientReports.pdfAvailable && /application\/pdf/i.test(request.headers.get("accept") ?? ""))
              throw pdfNotAvailable();
            throw error;
          }
        }
        if (type === "application/pdf" && !deps.clientReports.pdfAvailable) throw pdfNotAvailable();
        const document = await deps.clientReports.document(principal.accountId, params.site_id, query.period);
        if (type === "application/pdf") {
          const pdf = await deps.clientReports.pdfOf(document);
          return new Response(pdf, {
            headers: {
              "content-type": "application/pdf",
              "content-disposition": `attachment; filename="${document.filename}.pdf"`,
              "cache-control": "no-store",
              vary: "accept",
            },
          });
        }
        return new Response(document.html, {
          headers: {
            "content-type": "text/html; charset=utf-8",
            "content-disposition": `inline; filename="${document.filename}.html"`,
            vary: "accept",
            ...clientReportHeaders(document.csp),
          },
        });
      },
      { params: getClientReportOperation.params },
    )
    .get("/components", async ({ query: rawQuery, principal, request }) => {
      const query = parseQuery(listComponentSitesOperation.query, rawQuery);
      const page = await deps.portfolio.componentSites(principal.accountId, {
        slug: query.slug,
        type: query.type,
        after: query.after,
        limit: query.limit ?? DEFAULT_SITES_PAGE,
      });
      const headers: Record<string, string> = {};
      if (page.next_cursor)
        headers.link = nextLink(`${deps.baseUrlFor(request)}/api/components`, query, page.next_cursor);
      return jsonDocument(page, headers);
    });
}

/** The portfolio API for app.ts: its operations and its routes. */
export const portfolioApi: ApiModule<ApiContext> = {
  name: "portfolio",
  operations: [
    listSitesOperation,
    exportSitesOperation,
    getSiteOperation,
    listComponentSitesOperation,
    getClientReportOperation,
  ],
  routes: ({ guard, services, baseUrlFor }) =>
    portfolioRoutes({ ...guard, portfolio: services.portfolio, clientReports: services.clientReports, baseUrlFor }),
};
