/**
 * The numeric metrics of a report (its scores, timings, sizes and counts — not the service's
 * Prometheus metrics, server/platform/prometheus.ts) that the diff compares and budgets
 * limit. Each says where its value comes from in a report, which direction is better, and how
 * much change is noise: a change only counts when it exceeds BOTH the relative and the
 * absolute threshold (timings wobble by a few ms on every run; a 2-byte change of a 30 kB page
 * is not news).
 */
import type { Static } from "@sinclair/typebox";
import type { Report } from "./report.ts";
import { named, StringEnum } from "./schema.ts";

export const MetricUnitSchema = named(
  "MetricUnit",
  StringEnum(["points", "ms", "bytes", "count", "ratio"], {
    description: "ratio: a plain decimal number such as Cumulative Layout Shift (since API 1.5.0)",
  }),
);
export type MetricUnit = Static<typeof MetricUnitSchema>;

export interface MetricDefinition {
  key: string;
  label: string;
  unit: MetricUnit;
  better: "higher" | "lower";
  /** Changes smaller than this fraction of the old value are noise. */
  relative: number;
  /** Changes smaller than this many units are noise. */
  absolute: number;
  value(report: Report): number | null;
}

const count = (value: unknown[] | undefined | null) => (value ? value.length : null);

export const METRICS: readonly MetricDefinition[] = [
  {
    key: "score",
    label: "Overall score",
    unit: "points",
    better: "higher",
    relative: 0,
    absolute: 1,
    value: (r) => r.summary?.score ?? null,
  },
  {
    key: "performance_score",
    label: "Performance score",
    unit: "points",
    better: "higher",
    relative: 0,
    absolute: 1,
    value: (r) => r.summary?.categories.performance ?? null,
  },
  {
    key: "seo_score",
    label: "SEO score",
    unit: "points",
    better: "higher",
    relative: 0,
    absolute: 1,
    value: (r) => r.summary?.categories.seo ?? null,
  },
  {
    key: "security_score",
    label: "Security score",
    unit: "points",
    better: "higher",
    relative: 0,
    absolute: 1,
    value: (r) => r.summary?.categories.security ?? null,
  },
  {
    key: "components_score",
    label: "Components score",
    unit: "points",
    better: "higher",
    relative: 0,
    absolute: 1,
    value: (r) => r.summary?.categories.components ?? null,
  },
  {
    key: "ttfb_ms",
    label: "Time to first byte",
    unit: "ms",
    better: "lower",
    relative: 0.2,
    absolute: 100,
    value: (r) => r.performance?.ttfb_ms ?? null,
  },
  {
    key: "html_download_ms",
    label: "HTML download time",
    unit: "ms",
    better: "lower",
    relative: 0.2,
    absolute: 150,
    value: (r) => r.performance?.html_download_ms ?? null,
  },
  {
    key: "html_bytes",
    label: "HTML size",
    unit: "bytes",
    better: "lower",
    relative: 0.05,
    absolute: 2048,
    value: (r) => r.performance?.html_bytes ?? null,
  },
  {
    key: "scripts",
    label: "Scripts",
    unit: "count",
    better: "lower",
    relative: 0,
    absolute: 1,
    value: (r) => r.performance?.resources.scripts.count ?? null,
  },
  {
    key: "stylesheets",
    label: "Stylesheets",
    unit: "count",
    better: "lower",
    relative: 0,
    absolute: 1,
    value: (r) => r.performance?.resources.styles.count ?? null,
  },
  {
    key: "render_blocking",
    label: "Render-blocking resources",
    unit: "count",
    better: "lower",
    relative: 0,
    absolute: 1,
    value: (r) => count(r.performance?.render_blocking),
  },
  {
    key: "third_party_hosts",
    label: "Third-party hosts",
    unit: "count",
    better: "lower",
    relative: 0,
    absolute: 1,
    value: (r) => count(r.performance?.third_party_hosts),
  },
  {
    key: "failed_checks",
    label: "Failed checks",
    unit: "count",
    better: "lower",
    relative: 0,
    absolute: 1,
    value: (r) => (r.summary ? Object.values(r.summary.failed).reduce((sum, n) => sum + n, 0) : null),
  },
  // The lab's metrics (performance.lab, a page loaded in a browser): null when the report has no
  // completed lab run. Lab metrics are noisy (docs/report.md, "Lab"), hence wide noise bands.
  {
    key: "lcp_ms",
    label: "Largest Contentful Paint (lab)",
    unit: "ms",
    better: "lower",
    relative: 0.2,
    absolute: 200,
    value: (r) => lab(r)?.lcp_ms ?? null,
  },
  {
    key: "fcp_ms",
    label: "First Contentful Paint (lab)",
    unit: "ms",
    better: "lower",
    relative: 0.2,
    absolute: 150,
    value: (r) => lab(r)?.fcp_ms ?? null,
  },
  {
    key: "cls",
    label: "Cumulative Layout Shift (lab)",
    unit: "ratio",
    better: "lower",
    relative: 0,
    absolute: 0.02,
    value: (r) => lab(r)?.cls ?? null,
  },
  {
    key: "tbt_ms",
    label: "Total Blocking Time (lab)",
    unit: "ms",
    better: "lower",
    relative: 0.2,
    absolute: 100,
    value: (r) => lab(r)?.tbt_ms ?? null,
  },
  {
    key: "lab_transfer_bytes",
    label: "Page weight on the wire (lab)",
    unit: "bytes",
    better: "lower",
    relative: 0.05,
    absolute: 10_000,
    value: (r) => lab(r)?.transfer_bytes ?? null,
  },
  {
    key: "lab_requests",
    label: "Requests (lab)",
    unit: "count",
    better: "lower",
    relative: 0,
    absolute: 2,
    value: (r) => lab(r)?.requests ?? null,
  },
];

/** The metrics of a report's completed lab run, if it has one. */
function lab(report: Report) {
  const found = report.performance?.lab;
  return found?.status === "complete" ? found.metrics : null;
}

export function metricByKey(key: string): MetricDefinition | undefined {
  return METRICS.find((metric) => metric.key === key);
}

/**
 * The units a budget may be written in, per kind of metric, each with its factor to the
 * metric's base unit (ms, bytes). A value without a unit is in the base unit. Decimal
 * prefixes are powers of 1000 (kB, MB), binary ones powers of 1024 (KiB, MiB); unit names are
 * matched without regard to case. Scores and counts take plain numbers.
 */
export const BUDGET_UNITS: Record<MetricDefinition["unit"], Record<string, number>> = {
  ms: { ms: 1, s: 1000 },
  bytes: { B: 1, kB: 1000, MB: 1_000_000, KiB: 1024, MiB: 1024 * 1024 },
  points: {},
  count: {},
  ratio: {},
};

const rounded = (value: number, decimals: number) => String(Math.round(value * 10 ** decimals) / 10 ** decimals);

/** A metric's value for people, with its unit: "850 ms", "1.25 s", "512 B", "250.4 kB", "1.5 MB", "80", "12". */
export function formatMetricValue(unit: MetricDefinition["unit"], value: number): string {
  const sign = value < 0 ? "-" : "";
  const size = Math.abs(value);
  switch (unit) {
    case "ms":
      return size < 1000 ? `${sign}${rounded(size, 0)} ms` : `${sign}${rounded(size / 1000, 2)} s`;
    case "bytes":
      if (size < 1000) return `${sign}${rounded(size, 0)} B`;
      return size < 1_000_000 ? `${sign}${rounded(size / 1000, 1)} kB` : `${sign}${rounded(size / 1_000_000, 2)} MB`;
    case "ratio":
      return `${sign}${rounded(size, 3)}`;
    default:
      return `${sign}${rounded(size, 2)}`;
  }
}

/**
 * Two values of one metric for people, distinct whenever the values are: rounding could show
 * 250,040 bytes and a 250,000-byte budget both as "250 kB", so then both are given exactly.
 */
export function formatMetricPair(unit: MetricDefinition["unit"], a: number, b: number): [string, string] {
  const shown: [string, string] = [formatMetricValue(unit, a), formatMetricValue(unit, b)];
  if (a === b || shown[0] !== shown[1]) return shown;
  const base = unit === "bytes" ? " B" : unit === "ms" ? " ms" : "";
  return [`${a}${base}`, `${b}${base}`];
}
