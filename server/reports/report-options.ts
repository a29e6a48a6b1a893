/**
 * A report's options: what a generate request asks for besides the URL and its metadata — the
 * analysis mode and a protected site's credentials. They are read once, where a request comes
 * in (the API's body, the web's analyze form), into one typed object with the one default
 * (DEFAULT_ANALYSIS_MODE, shared/report.ts); the service, the queue job, the worker, the
 * analysis thread and the analyzer take that object or a part of it and never default a mode
 * again. (Only readers of data an older release stored — a queued job, saved artifacts — fill
 * in the same constant.)
 */
import { X509Certificate } from "node:crypto";
import type { GenerateReportRequest } from "../../shared/api.ts";
import {
  type AnalysisMode,
  DEFAULT_ANALYSIS_MODE,
  DEFAULT_LAB_DEVICE,
  DEFAULT_LAB_THROTTLING,
  type LabDevice,
  type LabThrottling,
} from "../../shared/report.ts";
import { isEmptySiteAuth, type SiteAuth } from "../../shared/site-auth.ts";
import { pemCertificates, type SiteTls } from "../../shared/site-tls.ts";
import { ApiProblem } from "../platform/http/problem.ts";

/** A lab run's options (`"lab": true` and its `lab_*` fields), defaults filled in. */
export interface LabOptions {
  device: LabDevice;
  throttling: LabThrottling;
  runs: number;
}

export interface ReportOptions {
  mode: AnalysisMode;
  /**
   * Credentials of a protected site (docs/api.md); absent when none were given — an empty
   * `site_auth` is none. ReportService checks them against the service's rules.
   */
  siteAuth?: SiteAuth;
  /**
   * How the site's certificate is checked when it is not the public roots' (shared/site-tls.ts):
   * absent for the default, verified against the public roots.
   */
  siteTls?: SiteTls;
  /** A lab run besides the analysis (docs/report.md, "Lab"); absent when not asked for. */
  lab?: LabOptions;
}

/** The options as a request carries them: the API's body fields (validated by its schema), or the web form's. */
export type RawReportOptions = Pick<
  GenerateReportRequest,
  "mode" | "site_auth" | "tls" | "tls_ca" | "lab" | "lab_device" | "lab_throttling" | "lab_runs"
>;

/**
 * Throws `400 invalid_request` (naming the field) for a `tls_ca` that is no certificate, one asked
 * with `tls: insecure`, or a `lab_*` setting without `"lab": true`.
 */
export function parseReportOptions(raw: RawReportOptions): ReportOptions {
  const mode = raw.mode ?? DEFAULT_ANALYSIS_MODE;
  const base: ReportOptions = isEmptySiteAuth(raw.site_auth) ? { mode } : { mode, siteAuth: raw.site_auth };
  const siteTls = parseSiteTls(raw.tls, raw.tls_ca);
  const options: ReportOptions = siteTls ? { ...base, siteTls } : base;
  const named = (["lab_device", "lab_throttling", "lab_runs"] as const).filter((field) => raw[field] !== undefined);
  if (raw.lab !== true) {
    // A lab setting without the lab would be silently ignored: the caller meant something else.
    if (named.length > 0) throw new ApiProblem("invalid_request", `${named.join(", ")} only apply with "lab": true.`);
    return options;
  }
  return {
    ...options,
    lab: {
      device: raw.lab_device ?? DEFAULT_LAB_DEVICE,
      throttling: raw.lab_throttling ?? DEFAULT_LAB_THROTTLING,
      runs: raw.lab_runs ?? 1,
    },
  };
}

/** `tls` and `tls_ca` as one SiteTls; undefined for the default (verified against the public roots). */
export function parseSiteTls(tls: string | undefined, tlsCa: string | undefined): SiteTls | undefined {
  const field = (pointer: string, detail: string) =>
    new ApiProblem("invalid_request", `${pointer.slice(1)} ${detail}.`, {
      extensions: { errors: [{ location: "body", pointer, detail }] },
    });
  if (tlsCa === undefined) return tls === "insecure" ? { mode: "insecure" } : undefined;
  if (tls === "insecure") {
    throw field("/tls_ca", 'cannot be given with tls: "insecure" (a certificate that is not verified needs no CA)');
  }
  const blocks = pemCertificates(tlsCa);
  if (blocks.length === 0) throw field("/tls_ca", "must be a PEM with at least one CERTIFICATE block");
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      throw field("/tls_ca", `certificate ${index + 1} of ${blocks.length} is not a readable X.509 certificate`);
    }
  }
  return { mode: "private_ca", ca: blocks.join("\n") };
}
