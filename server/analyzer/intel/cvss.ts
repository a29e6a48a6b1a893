/** Severity of an advisory from its CVSS rating or score (CVSS v3 qualitative scale). */
import type { Severity } from "../../../shared/report.ts";

const BY_RATING: Record<string, Severity> = {
  critical: "critical",
  high: "high",
  medium: "medium",
  low: "low",
  none: "info",
};

/**
 * The rating when the source names one, else the score's band (9.0+ critical, 7.0+ high,
 * 4.0+ medium, above 0 low, 0 info). Unscored advisories count as medium: unknown is not
 * harmless, and medium still fails the vulnerable check.
 */
export function severityFromCvss(rating: string | null | undefined, score: number | null | undefined): Severity {
  const named = rating ? BY_RATING[rating.trim().toLowerCase()] : undefined;
  if (named) return named;
  if (typeof score !== "number" || !Number.isFinite(score)) return "medium";
  if (score >= 9) return "critical";
  if (score >= 7) return "high";
  if (score >= 4) return "medium";
  return score > 0 ? "low" : "info";
}
