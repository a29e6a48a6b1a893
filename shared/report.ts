/**
 * The report (schema v1) — the types every part shares: the server produces it, the
 * Action and the CLI read it, the diff engine compares two of them.
 *
 * Changes are additive within a major version; a breaking change bumps the major of
 * REPORT_SCHEMA_VERSION (SPEC.md §4 "Versioning"). The JSON Schema served at
 * /api/schema/report.json is generated from the TypeBox schema in server/reports and is
 * checked against these types by the type checker.
 */
export const REPORT_SCHEMA_VERSION = "1.0.0";

export type ReportStatus = "queued" | "running" | "completed" | "failed";
export type Severity = "critical" | "high" | "medium" | "low" | "info";
export type CheckStatus = "pass" | "fail" | "warn" | "skip" | "error";
export type CheckCategory = "performance" | "seo" | "security" | "components";

export const SEVERITIES: readonly Severity[] = ["critical", "high", "medium", "low", "info"];
export const CHECK_CATEGORIES: readonly CheckCategory[] = ["performance", "seo", "security", "components"];

/** Caller-supplied context stored with the report (CI runs use it to find baselines). */
export interface ReportMetadata {
  git_sha?: string;
  git_ref?: string;
  environment?: string;
  ci_run_url?: string;
}

/** Where a fact was seen. `source` is a stable token such as `meta_generator` or `rss_generator`. */
export interface Evidence {
  source: string;
  /** The value seen there (site text, length-capped). */
  value: string;
  url?: string;
}

export interface Check {
  /** Stable id, `<category>.<name>`, listed in the check catalogue (docs/checks.md). */
  id: string;
  category: CheckCategory;
  severity: Severity;
  status: CheckStatus;
  title: string;
  message: string;
  evidence: string[];
  remediation: string;
}

/** A partial failure: the report was still produced without this part. */
export interface ReportError {
  /** What was being done, e.g. `homepage`, `feed`. */
  stage: string;
  url?: string;
  /** Machine-readable kind: `timeout`, `dns`, `too_large`, `blocked`, … */
  kind: string;
  message: string;
}

export interface Redirect {
  url: string;
  status: number;
}

export interface Summary {
  score: number;
  grade: "A" | "B" | "C" | "D" | "E" | "F";
  /** Per-category score 0–100, or null when no check of that category ran. */
  categories: Record<CheckCategory, number | null>;
  /** Count of failed (fail or warn) checks by severity. */
  failed: Record<Severity, number>;
}

export interface WordPressInfo {
  detected: boolean;
  /** 0–100: how sure we are that the site runs WordPress. */
  confidence: number;
  /** The core version, or null when no source disclosed a plausible one. */
  version: string | null;
  /** 0–100: how sure we are of `version`. */
  version_confidence: number;
  /** Every place a WordPress signal or version was seen. */
  evidence: Evidence[];
  /** The REST API root, when the site advertises one. */
  rest_api_url: string | null;
}

export interface TimingRow {
  url: string;
  method: string;
  status: number | null;
  bytes: number;
  transfer_bytes: number | null;
  ttfb_ms: number | null;
  ms: number;
  error?: string;
}

export interface PerformanceInfo {
  /** Time to first byte of the homepage, median of the samples taken. */
  ttfb_ms: number | null;
  ttfb_samples_ms: number[];
  /** Homepage download time (request start → last byte), ms. */
  html_download_ms: number | null;
  /** Decoded homepage size, bytes. */
  html_bytes: number | null;
  /** Homepage size on the wire when the server declared it, bytes. */
  html_transfer_bytes: number | null;
  /** Content-Encoding of the homepage, or null when uncompressed. */
  compression: string | null;
  /** One row per request the analyzer made. */
  requests: TimingRow[];
}

export interface Report {
  id: string;
  schema_version: string;
  status: ReportStatus;
  /** The URL as asked. */
  url: string;
  /** The homepage URL after redirects; null until fetched. */
  final_url: string | null;
  redirects: Redirect[];
  created_at: string;
  completed_at: string | null;
  duration_ms: number | null;
  metadata: ReportMetadata;
  /** Null until the analysis completes. */
  summary: Summary | null;
  wordpress: WordPressInfo | null;
  performance: PerformanceInfo | null;
  checks: Check[];
  errors: ReportError[];
}
