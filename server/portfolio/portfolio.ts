/**
 * The portfolio feature, built once per process (services.ts): sites and components, branding,
 * and client reports (HTML, and PDF when Chromium is configured) — docs/portfolio.md.
 */

import type { Sql } from "../platform/db/database.ts";
import type { Logger } from "../platform/logger.ts";
import type { PlatformSettings } from "../platform/settings.ts";
import { BrandingService } from "./branding.service.ts";
import { ClientReportService } from "./client-report.service.ts";
import { PdfRenderer } from "./pdf-renderer.ts";
import { NO_MONITORS, PortfolioService, type SiteMonitorSource } from "./portfolio.service.ts";
import { PortfolioStore } from "./portfolio.store.ts";

export interface Portfolio {
  portfolio: PortfolioService;
  branding: BrandingService;
  clientReports: ClientReportService;
  close(): Promise<void>;
}

/** `monitors` fills `monitor` in GET /api/sites: the monitors feature (monitoring/monitors/). */
export function createPortfolio(
  config: Pick<PlatformSettings, "chromiumPath">,
  sql: Sql,
  logger: Logger,
  monitors: SiteMonitorSource = NO_MONITORS,
): Portfolio {
  const store = new PortfolioStore(sql);
  const portfolio = new PortfolioService(store, monitors);
  const branding = new BrandingService(sql);
  const pdf = config.chromiumPath ? new PdfRenderer(config.chromiumPath, logger) : undefined;
  return {
    portfolio,
    branding,
    clientReports: new ClientReportService(store, portfolio, branding, pdf),
    async close() {
      await pdf?.close();
    },
  };
}
