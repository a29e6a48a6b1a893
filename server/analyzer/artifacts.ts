/**
 * Artifacts: everything the gather stage fetched, as plain JSON-serialisable data.
 * Detectors, extractors and audits are pure functions of these, so their tests run on
 * saved artifacts (test/analyzer/artifacts/*.json) without a network.
 */

import type { AnalysisMode, EnumerationSummary, Redirect, ReportError, TimingRow } from "../../shared/report.ts";
import type { TlsVerification } from "../../shared/site-tls.ts";
import type { BlockPage } from "./detect/block-pages.ts";
import type { DirectoryAnswer } from "./detect/finders/directory.ts";
import type { LabCapture } from "./lab/capture.ts";
import type { ProbeKey } from "./probe-keys.ts";

export interface HttpArtifact {
  /** URL that produced this response (after redirects when they were followed). */
  url: string;
  status: number;
  /** Response headers, lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  set_cookies: string[];
  /**
   * Decoded body text, capped per probe (see `truncated`). Bodies of error responses
   * (status ≥ 400) are cut to their first 2 KiB: only their shape matters.
   */
  body: string;
  truncated: boolean;
  /** Redirects followed on the way, when any. */
  redirects?: Redirect[];
  /**
   * A challenge or block page recognised in the whole body, when the marks that gave it away
   * were past the part kept of an error page (detect/block-pages.ts reads it first).
   */
  block?: BlockPage;
}

export interface HomepageArtifact extends HttpArtifact {
  redirects: Redirect[];
  /** Median of the TTFB samples. */
  ttfb_ms: number;
  ttfb_samples_ms: number[];
  download_ms: number;
  transfer_bytes: number | null;
  body_bytes: number;
  encoding: string | null;
  /** "1.1" or "2" (ALPN h2), as in report.performance.http_version. */
  http_version: string | null;
}

/**
 * An asset of the site (its origin or an asset origin) from the sample. Fetched with GET, not HEAD: compressed responses are
 * usually chunked without Content-Length, so only reading the body tells their size.
 */
export interface AssetArtifact {
  url: string;
  type: "script" | "style" | "image" | "font" | "other";
  status: number | null;
  headers: Record<string, string>;
  /** Decoded size in bytes (at most the sample cap), null when the request failed. */
  bytes: number | null;
  /**
   * The first ASSET_HEAD_CHARS characters of a script or stylesheet that opens with a
   * comment: its banner (`/*! Foo Gallery v2.1.0 *\/`) may state its plugin's version.
   */
  head?: string;
}

export interface Artifacts {
  requested_url: string;
  homepage: HomepageArtifact;
  /**
   * Answers to the probes, by probe key (probe-keys.ts; the catalogue, probe-kinds.ts, has each
   * kind's key, what it asks and what its answer proves). A probe that got no HTTP answer is
   * absent here and has an entry in `errors` whose stage is its key.
   */
  probes: Partial<Record<ProbeKey, HttpArtifact>>;
  assets: AssetArtifact[];
  requests: TimingRow[];
  errors: ReportError[];
  /** "aggressive" when the enumeration ran; absent means DEFAULT_ANALYSIS_MODE (passive). */
  mode?: AnalysisMode;
  /** What aggressive enumeration did, when it ran (enumeration/enumerate.ts). */
  enumeration?: EnumerationSummary;
  /**
   * What the WordPress.org names index said about the names and slugs this site shows
   * (detect/finders/names-question.ts); absent when it was not asked.
   */
  directory?: DirectoryAnswer;
  /**
   * How the site's certificate was checked when not by the public roots (a staging site's
   * `tls: "insecure"` or `tls_ca`, shared/site-tls.ts); absent when it was verified as browsers do.
   */
  tls_verification?: TlsVerification;
  /** The lab run's capture (lab/capture.ts), when one was asked for: the page loaded in a browser. */
  lab?: LabCapture;
}

/** Every probe answer, in key order. */
export function probeAnswers(artifacts: Artifacts): HttpArtifact[] {
  return Object.values(artifacts.probes).filter((answer) => answer !== undefined);
}

/** Resolves `href` against `base`; undefined for anything that is not an http(s) URL. */
export function resolveUrl(href: string | null | undefined, base: string): URL | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href.trim(), base);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}
