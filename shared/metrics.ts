/**
 * The numeric metrics the diff compares and budgets limit. Each says where its value comes
 * from in a report, which direction is better, and how much change is noise: a change only
 * counts when it exceeds BOTH the relative and the absolute threshold (timings wobble by a
 * few ms on every run; a 2-byte change of a 30 kB page is not news).
 */
import type { Static } from "@sinclair/typebox";
import type { Report } from "./report.ts";
import { named, StringEnum } from "./schema.ts";

export const MetricUnitSchema = named("MetricUnit", StringEnum(["points", "ms", "bytes", "count"]));
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
];

export function metricByKey(key: string): MetricDefinition | undefined {
  return METRICS.find((metric) => metric.key === key);
}
