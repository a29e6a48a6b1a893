/**
 * The portfolio in the web interface: /portfolio (sites, sparklines, search by component),
 * /portfolio.csv, /sites/{id} (score history, client report, components, reports),
 * /sites/{id}/client-report (the printable report, HTML or PDF) and /settings/branding (the
 * agency's name, logo and colour). Same services as the API.
 */
import { Elysia } from "elysia";
import type { ComponentSites } from "../../shared/portfolio-api.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { type WebContext, WebError } from "../web/context.ts";
import { download, page, redirect, securityHeaders } from "../web/render.tsx";
import { type WebPluginDeps, webPlugin } from "../web/web.plugin.ts";
import { BrandingError, type BrandingService, logoTooLarge, MAX_LOGO_BYTES } from "./branding.service.ts";
import type { ClientReportService } from "./client-report.service.ts";
import { portfolioCsv } from "./csv.ts";
import { BrandingPage } from "./pages/branding.tsx";
import { type ComponentSearch, PortfolioPage } from "./pages/portfolio.tsx";
import { SitePage } from "./pages/site.tsx";
import { clientReportHeaders } from "./portfolio.routes.ts";
import { MAX_EXPORT_SITES, type PortfolioService } from "./portfolio.service.ts";

export interface PortfolioWebDeps extends WebPluginDeps {
  portfolio: PortfolioService;
  clientReports: ClientReportService;
  branding: BrandingService;
}

/** The path of the branding form: its body holds a logo, so it may be larger (server/platform/http/server.ts). */
export const BRANDING_PATH = "/settings/branding";
/** The form's largest body: the logo's limit and room for the fields; a larger logo gets the form's own message. */
export const BRANDING_MAX_BODY_BYTES = 4 * MAX_LOGO_BYTES + 64 * 1024;

const PAGE_SIZE = 50;
const COMPONENT_TYPES = ["plugin", "theme", "core"] as const;

/** An ApiProblem from a service as the page of its status (its detail is meant for people). */
function asPage(error: unknown): never {
  if (error instanceof ApiProblem) throw new WebError(error.status, error.detail);
  throw error;
}

export function portfolioWebRoutes(deps: PortfolioWebDeps) {
  const brandingPage = async (
    ctx: WebContext,
    accountId: string,
    state: { saved?: boolean; error?: string; values?: { name: string; color: string } } = {},
    status = 200,
  ) =>
    page(
      ctx,
      "Client report branding",
      <BrandingPage
        ctx={ctx}
        branding={await deps.branding.get(accountId)}
        saved={state.saved ?? false}
        error={state.error}
        values={state.values}
      />,
      status,
    );

  return new Elysia({ name: "web.portfolio" })
    .use(webPlugin(deps))
    .get(
      "/portfolio",
      async ({ ctx, session, query }) => {
        const search = (query.q ?? "").trim().slice(0, 200);
        const type = COMPONENT_TYPES.find((value) => value === query.type);
        const component: ComponentSearch = { slug: (query.component ?? "").trim().slice(0, 200), type: type ?? "" };
        const sites = await deps.portfolio
          .list(
            session.accountId,
            { search: search || undefined, after: query.after || undefined, limit: PAGE_SIZE },
            ctx.baseUrl,
          )
          .catch(asPage);
        let componentResults: ComponentSites | undefined;
        if (component.slug) {
          componentResults = await deps.portfolio
            .componentSites(session.accountId, { slug: component.slug, type, limit: 100 })
            .catch(asPage);
        }
        let nextHref: string | undefined;
        if (sites.next_cursor) {
          const next = new URLSearchParams();
          if (search) next.set("q", search);
          next.set("after", sites.next_cursor);
          nextHref = `/portfolio?${next}`;
        }
        return page(
          ctx,
          "Portfolio",
          <PortfolioPage
            sites={sites}
            search={search}
            component={component}
            componentResults={componentResults}
            nextHref={nextHref}
          />,
        );
      },
      { signedIn: true },
    )
    .get(
      "/portfolio.csv",
      async ({ ctx, session }) => {
        const sites = await deps.portfolio.list(session.accountId, { limit: MAX_EXPORT_SITES }, ctx.baseUrl);
        const day = new Date().toISOString().slice(0, 10);
        return download(ctx, portfolioCsv(sites.data), `portfolio-${day}.csv`, "text/csv");
      },
      { signedIn: true },
    )
    .get(
      "/sites/:id",
      async ({ ctx, session, params }) => {
        const site = await deps.portfolio.get(session.accountId, params.id, ctx.baseUrl);
        if (!site) throw new WebError(404, "There is no site with this id in your account.");
        return page(ctx, `Site — ${site.site}`, <SitePage site={site} pdf={deps.clientReports.pdfAvailable} />);
      },
      { signedIn: true },
    )
    .get(
      "/sites/:id/client-report",
      async ({ ctx, session, params, query }) => {
        const pdf = query.format === "pdf";
        if (pdf && !deps.clientReports.pdfAvailable)
          throw new WebError(406, "This service cannot make PDFs; view the report and print it from your browser.");
        const document = await deps.clientReports
          .document(session.accountId, params.id, query.period ?? "")
          .catch(asPage);
        const headers = new Headers(securityHeaders(ctx.secure));
        for (const cookie of ctx.cookies) headers.append("set-cookie", cookie);
        if (pdf) {
          const bytes = await deps.clientReports.pdfOf(document).catch(asPage);
          headers.set("content-type", "application/pdf");
          headers.set("content-disposition", `attachment; filename="${document.filename}.pdf"`);
          headers.set("cache-control", "no-store");
          return new Response(bytes, { headers });
        }
        // The report's own policy replaces the pages' (its stylesheet is inline, allowed by hash).
        for (const [name, value] of Object.entries(clientReportHeaders(document.csp))) headers.set(name, value);
        headers.set("content-type", "text/html; charset=utf-8");
        return new Response(document.html, { headers });
      },
      { signedIn: true },
    )
    .get(
      BRANDING_PATH,
      ({ ctx, session, query }) => brandingPage(ctx, session.accountId, { saved: query.saved === "1" }),
      { signedIn: true },
    )
    .post(
      BRANDING_PATH,
      async ({ ctx, session, form, body }) => {
        const file = (body as Record<string, unknown> | undefined)?.logo;
        let logo: Uint8Array | "remove" | "keep" = "keep";
        if (form.remove_logo === "1") logo = "remove";
        const values = { name: form.name ?? "", color: form.color ?? "" };
        try {
          if (logo === "keep" && file instanceof Blob && file.size > 0) {
            // A file over the limit is refused by its size, unread.
            if (file.size > MAX_LOGO_BYTES) throw logoTooLarge(file.size);
            logo = new Uint8Array(await file.arrayBuffer());
          }
          await deps.branding.save(session.accountId, { ...values, logo });
        } catch (error) {
          if (!(error instanceof BrandingError)) throw error;
          return brandingPage(ctx, session.accountId, { error: error.message, values }, 422);
        }
        return redirect(ctx, `${BRANDING_PATH}?saved=1`);
      },
      { signedIn: true, csrf: true },
    );
}
