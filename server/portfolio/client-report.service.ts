/**
 * Client reports of a site for a month: the model from the stored reports and the account's
 * branding, the HTML document, and its PDF where Chromium is available. The API and the web
 * interface both come through here.
 */
import { ApiProblem } from "../platform/http/problem.ts";
import type { BrandingService } from "./branding.service.ts";
import { type ClientReportModel, clientReportModel, parsePeriod } from "./client-report.ts";
import { renderClientReport } from "./client-report-page.tsx";
import type { PdfRenderer } from "./pdf-renderer.ts";
import type { PortfolioService } from "./portfolio.service.ts";
import type { PortfolioStore } from "./portfolio.store.ts";

export interface ClientReportDocument {
  html: string;
  /** The Content-Security-Policy the document is sent with. */
  csp: string;
  /** A file name for downloads, without extension: client-report-<site>-<period>. */
  filename: string;
  /** Whose report it is: the PDF renderer's queue is fair per account. */
  accountId: string;
}

export class ClientReportService {
  constructor(
    private readonly store: PortfolioStore,
    private readonly portfolio: PortfolioService,
    private readonly branding: BrandingService,
    /** Undefined when the service has no Chromium (CHROMIUM_PATH): no PDFs. */
    private readonly pdf: PdfRenderer | undefined,
  ) {}

  get pdfAvailable(): boolean {
    return this.pdf !== undefined;
  }

  /**
   * The report's model; 404 not_found for an unknown site, 400 for a bad period, 404 no_report
   * (with the months that have one) for a month without reports. The month is looked up among
   * the site's months before any date of it reaches the database: a well-formed month far
   * outside them (9999-12, whose end is year 10000) was a PostgreSQL error, a 500 (issue 30).
   */
  async model(accountId: string, siteId: string, periodText: string): Promise<ClientReportModel> {
    const period = parsePeriod(periodText);
    const site = await this.portfolio.find(accountId, siteId);
    if (!site) throw new ApiProblem("not_found", "There is no site with this id in your account.");
    const periods = await this.store.months(accountId, site);
    const reports = periods.includes(period.id)
      ? await this.store.reportsBetween(accountId, site, period.start, period.end)
      : [];
    const last = reports.at(-1);
    if (!last) {
      throw new ApiProblem(
        "no_report",
        `This site has no completed report in ${period.id}${periods.length > 0 ? `; it has some in ${periods.slice(0, 3).join(", ")}` : ""}.`,
        { extensions: { periods } },
      );
    }
    const [previous, branding] = await Promise.all([
      this.store.lastScoreBefore(accountId, site, period.start),
      this.branding.get(accountId),
    ]);
    return clientReportModel({
      reports,
      previous: previous
        ? {
            report_id: previous.id,
            created_at: previous.createdAt.toISOString(),
            score: previous.score,
            grade: previous.grade,
          }
        : null,
      period,
      branding,
      site: { url: last.url, site: site.siteKey, environment: site.environment === "" ? null : site.environment },
    });
  }

  async document(accountId: string, siteId: string, periodText: string): Promise<ClientReportDocument> {
    const model = await this.model(accountId, siteId, periodText);
    const { html, csp } = renderClientReport(model);
    const name = `client-report-${model.site.site}${model.site.environment ? `-${model.site.environment}` : ""}-${model.period.id}`;
    return { html, csp, filename: name.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 150), accountId };
  }

  /** The document as PDF; 406 when this service has no Chromium (the HTML is always there). */
  async pdfOf(document: ClientReportDocument): Promise<Uint8Array<ArrayBuffer>> {
    if (!this.pdf) throw pdfNotAvailable();
    return this.pdf.render(document.html, document.accountId);
  }
}

/** What a client asking for a PDF gets from a service without Chromium. */
export function pdfNotAvailable(): ApiProblem {
  return new ApiProblem(
    "not_acceptable",
    "This service cannot make PDFs (it has no Chromium: see CHROMIUM_PATH). The client report is available as text/html, which prints to PDF from any browser.",
    { extensions: { available: ["text/html"] } },
  );
}
