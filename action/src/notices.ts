/**
 * Facts about the report that the log should say out loud, apart from the verdict: today,
 * that the site is not WordPress — the report is then mostly skipped checks, and the usual
 * cause is a wrong URL (a marketing site, a preview that serves something else), which a
 * passing build would hide.
 */
import type { Report } from "../../shared/report.ts";
import { unseenSite } from "../../shared/report-sight.ts";
import { oneLine } from "../../shared/untrusted-text.ts";

/**
 * The report's own statement that the site is not WordPress (its errors[] entry of kind
 * `not_wordpress`, which names what the site runs on instead), or null when it is WordPress or
 * when the report could not see the site at all — a 401 or 403 page, a firewall's challenge
 * (report-sight.ts): such a page does not look like WordPress, and what it "runs on" is the
 * proxy's, so the report's own error is said instead. Holds site text (the stack's
 * names and versions): it reaches the log only through @actions/core (which escapes it) or
 * stripped of control characters.
 */
export function notWordPressNotice(report: Report): string | null {
  if (report.wordpress?.detected !== false || report.hosting?.blocked_by_waf || unseenSite(report)) return null;
  const entries = report.errors.filter((error) => error.kind === "not_wordpress");
  const stated = (entries.find((error) => error.stage === "detect") ?? entries[0])?.message;
  const stack = (report.hosting?.stack ?? []).map((item) => `${item.name}${item.version ? ` ${item.version}` : ""}`);
  const statement =
    stated ??
    `This site does not look like WordPress (confidence ${report.wordpress.confidence}%)${stack.length > 0 ? `; it runs on ${stack.join(", ")}` : ""}. Only the checks that apply to any site ran.`;
  const text = `${report.final_url ?? report.url}: ${statement} Is the URL the WordPress site you meant?`;
  return oneLine(text, 1_000);
}
