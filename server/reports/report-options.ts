/**
 * A report's options: what a generate request asks for besides the URL and its metadata — the
 * analysis mode and a protected site's credentials. They are read once, where a request comes
 * in (the API's body, the web's analyze form), into one typed object with the one default
 * (DEFAULT_ANALYSIS_MODE, shared/report.ts); the service, the queue job, the worker, the
 * analysis thread and the analyzer take that object or a part of it and never default a mode
 * again. (Only readers of data an older release stored — a queued job, saved artifacts — fill
 * in the same constant.)
 */
import type { GenerateReportRequest } from "../../shared/api.ts";
import { type AnalysisMode, DEFAULT_ANALYSIS_MODE } from "../../shared/report.ts";
import { isEmptySiteAuth, type SiteAuth } from "../../shared/site-auth.ts";

export interface ReportOptions {
  mode: AnalysisMode;
  /**
   * Credentials of a protected site (docs/api.md); absent when none were given — an empty
   * `site_auth` is none. ReportService checks them against the service's rules.
   */
  siteAuth?: SiteAuth;
}

/** The options as a request carries them: the API's body fields (validated by its schema), or the web form's. */
export type RawReportOptions = Pick<GenerateReportRequest, "mode" | "site_auth">;

export function parseReportOptions(raw: RawReportOptions): ReportOptions {
  const mode = raw.mode ?? DEFAULT_ANALYSIS_MODE;
  return isEmptySiteAuth(raw.site_auth) ? { mode } : { mode, siteAuth: raw.site_auth };
}
