/**
 * The shape of a check catalogue entry (catalogue.ts and the per-category catalogues). Not in
 * audit/types.ts beside `Audit`: a catalogue is data about checks, not a function of the facts,
 * so it and `CheckId` (which the probe catalogue, probe-kinds.ts, names) must not depend on
 * facts.ts — facts.ts reads artifacts.ts, which reads probe keys: that would close a circle.
 */
import type { CheckCategory, Severity } from "../../../shared/report.ts";

/** A catalogue entry: everything about a check that does not depend on the site. */
export interface CheckDefinition {
  category: CheckCategory;
  severity: Severity;
  /** What a pass means, as a short statement ("Site is served over HTTPS"). */
  title: string;
  /**
   * What a failure means, as a short statement ("Site is not served over HTTPS"): the title of
   * a failed or warned check where the pass statement would read wrong, e.g. a code-scanning
   * alert (SARIF shortDescription).
   */
  failTitle: string;
  remediation: string;
  /**
   * Whether the check only means something on WordPress (audit/wordpress-only.ts applies it, on a
   * site that is not WordPress): "check" — it is about WordPress itself and is skipped whatever
   * the audit said; "files" — it looks for WordPress's own files, so a pass says nothing and is
   * skipped, while a failure (the file was there) stands. Absent: it applies to any site.
   */
  wordpressOnly?: "check" | "files";
}
