/**
 * Artifacts: everything the gather stage fetched, as plain JSON-serialisable data.
 * Detectors and audits are pure functions of these, so their tests run on saved
 * artifacts (test/artifacts/*.json) without a network.
 */
import type { Redirect, ReportError, TimingRow } from "../../shared/report.ts";

export interface HttpArtifact {
  url: string;
  status: number;
  /** Response headers, lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  set_cookies: string[];
  /** Decoded body text (capped; see `truncated`). */
  body: string;
  truncated: boolean;
}

export interface HomepageArtifact extends HttpArtifact {
  redirects: Redirect[];
  ttfb_ms: number;
  download_ms: number;
  transfer_bytes: number | null;
  body_bytes: number;
  encoding: string | null;
}

export interface Artifacts {
  requested_url: string;
  homepage: HomepageArtifact;
  /** The main RSS/Atom feed, when one answered. */
  feed: HttpArtifact | null;
  requests: TimingRow[];
  errors: ReportError[];
}
