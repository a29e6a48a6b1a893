/**
 * What the lab's Core Web Vitals mean, shared by the checks (server/analyzer/audit/performance/
 * lab.ts), the job summary, the CLI and the web pages: web.dev's thresholds — good at most the
 * first value, poor above the second, "needs improvement" between.
 */
import type { LabMetrics } from "./report.ts";

export const LAB_THRESHOLDS = {
  lcp_ms: { good: 2_500, poor: 4_000 },
  cls: { good: 0.1, poor: 0.25 },
  tbt_ms: { good: 200, poor: 600 },
} as const;

export type LabLevel = "good" | "needs_improvement" | "poor";

export const LAB_LEVEL_WORDS: Record<LabLevel, string> = {
  good: "good",
  needs_improvement: "needs improvement",
  poor: "poor",
};

export function labLevel(metric: keyof typeof LAB_THRESHOLDS, value: number): LabLevel {
  const { good, poor } = LAB_THRESHOLDS[metric];
  if (value <= good) return "good";
  return value > poor ? "poor" : "needs_improvement";
}

/** The Core Web Vitals rows every view shows: label, value for people, level (null: no level). */
export function labRows(metrics: LabMetrics): { key: string; label: string; value: string; level: LabLevel | null }[] {
  const ms = (value: number | null) =>
    value === null ? "—" : value < 1000 ? `${value} ms` : `${(value / 1000).toFixed(2)} s`;
  return [
    {
      key: "lcp_ms",
      label: "Largest Contentful Paint",
      value: ms(metrics.lcp_ms),
      level: metrics.lcp_ms === null ? null : labLevel("lcp_ms", metrics.lcp_ms),
    },
    {
      key: "cls",
      label: "Cumulative Layout Shift",
      value: metrics.cls.toFixed(3),
      level: labLevel("cls", metrics.cls),
    },
    {
      key: "tbt_ms",
      label: "Total Blocking Time",
      value: ms(metrics.tbt_ms),
      level: labLevel("tbt_ms", metrics.tbt_ms),
    },
    { key: "fcp_ms", label: "First Contentful Paint", value: ms(metrics.fcp_ms), level: null },
    { key: "ttfb_ms", label: "Time to first byte (browser)", value: ms(metrics.ttfb_ms), level: null },
    { key: "requests", label: "Requests", value: String(metrics.requests), level: null },
    {
      key: "transfer_bytes",
      label: "Transferred",
      value:
        metrics.transfer_bytes < 1_000_000
          ? `${(metrics.transfer_bytes / 1000).toFixed(1)} kB`
          : `${(metrics.transfer_bytes / 1_000_000).toFixed(2)} MB`,
      level: null,
    },
  ];
}
