/**
 * Score charts as server-rendered SVG: no client JavaScript, nothing loaded, and every text in
 * them escaped by Preact (the only text is ours: dates, numbers, grades). Styled by class
 * (`chart-*`), so the web's stylesheet (light and dark) and the client report's print
 * stylesheet each colour them; the CSP forbids style attributes, and none is used.
 *
 * Each chart is an image to assistive technology (role="img") with a label that says what it
 * shows in words; pages that show a chart also show its numbers as text.
 */
import type { ComponentChildren } from "preact";
import { LAB_LEVEL_WORDS, LAB_THRESHOLDS, labLevel } from "../../shared/lab.ts";
import type { ScorePoint } from "../../shared/portfolio-api.ts";

/** Day of a point, for labels: 2026-11-03. */
const day = (point: ScorePoint) => point.created_at.slice(0, 10);

/**
 * Where the points go: x evenly spaced (reports, not time), y by score within `range` (0–100
 * for the history chart with its axis; a narrower window for a sparkline, which has none).
 */
function layout(
  points: ScorePoint[],
  box: { left: number; top: number; width: number; height: number },
  range: [number, number] = [0, 100],
) {
  const step = points.length > 1 ? box.width / (points.length - 1) : 0;
  const [low, high] = range;
  return points.map((point, index) => ({
    point,
    x: Math.round((points.length > 1 ? box.left + index * step : box.left + box.width / 2) * 10) / 10,
    y: Math.round((box.top + box.height - ((point.score - low) / (high - low)) * box.height) * 10) / 10,
  }));
}

/** A sparkline's window: the scores' range widened by 20 points each way (within 0–100), so
 * a change of a few points shows without looking like a cliff. */
function sparklineRange(points: ScorePoint[]): [number, number] {
  const scores = points.map((point) => point.score);
  return [Math.max(0, Math.min(...scores) - 20), Math.min(100, Math.max(...scores) + 20)];
}

/** "Score 72 (C) to 85 (B) over the last 10 reports" and the like. */
export function trendLabel(points: ScorePoint[], what = "reports"): string {
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return "No completed report yet";
  if (points.length === 1) return `Score ${last.score} (${last.grade}), one completed report`;
  return `Score ${first.score} (${first.grade}) to ${last.score} (${last.grade}) over the last ${points.length} ${what}`;
}

/** A small line of the last reports' scores, for a row of a table. */
export function Sparkline({
  points,
  width = 120,
  height = 32,
  label,
}: {
  points: ScorePoint[];
  width?: number;
  height?: number;
  label?: string;
}) {
  if (points.length === 0) return <span class="muted">—</span>;
  const placed = layout(points, { left: 3, top: 3, width: width - 6, height: height - 6 }, sparklineRange(points));
  const last = placed.at(-1);
  return (
    <svg
      class="sparkline"
      role="img"
      aria-label={label ?? trendLabel(points)}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      focusable="false"
    >
      <line class="chart-grid" x1="0" x2={width} y1={height / 2} y2={height / 2} />
      {placed.length > 1 ? (
        <polyline class="chart-line" fill="none" points={placed.map(({ x, y }) => `${x},${y}`).join(" ")} />
      ) : null}
      {last ? <circle class={`chart-dot grade-${last.point.grade}`} cx={last.x} cy={last.y} r="2.5" /> : null}
    </svg>
  );
}

/**
 * A chart's frame: an image to assistive technology, labelled by its title (what it shows in
 * words), scaled to the width it is given.
 */
function ChartFrame({
  id,
  width,
  height,
  title,
  kind,
  children,
}: {
  id: string;
  width: number;
  height: number;
  title: string;
  kind?: string;
  children: ComponentChildren;
}) {
  return (
    <svg
      class={kind ? `score-chart ${kind}` : "score-chart"}
      role="img"
      aria-labelledby={`${id}-title`}
      viewBox={`0 0 ${width} ${height}`}
      width="100%"
      preserveAspectRatio="xMidYMid meet"
      focusable="false"
    >
      <title id={`${id}-title`}>{title}</title>
      {children}
    </svg>
  );
}

/**
 * The score history: a line over a 0–100 grid with the grade letters of the first and last
 * points; each point carries a tooltip (its date, score and grade).
 */
export function ScoreChart({
  points,
  width = 720,
  height = 240,
  label,
  id = "score-chart",
}: {
  points: ScorePoint[];
  width?: number;
  height?: number;
  label?: string;
  id?: string;
}) {
  const box = { left: 40, top: 12, width: width - 56, height: height - 48 };
  const placed = layout(points, box);
  const first = points[0];
  const last = points.at(-1);
  return (
    <ChartFrame id={id} width={width} height={height} title={label ?? trendLabel(points)}>
      {[0, 25, 50, 75, 100].map((value) => {
        const y = box.top + box.height - (value / 100) * box.height;
        return (
          <g key={value}>
            <line class="chart-grid" x1={box.left} x2={box.left + box.width} y1={y} y2={y} />
            <text class="chart-axis" x={box.left - 8} y={y + 4} text-anchor="end">
              {value}
            </text>
          </g>
        );
      })}
      {first && last ? (
        <>
          <text class="chart-axis" x={box.left} y={height - 10} text-anchor="start">
            {day(first)}
          </text>
          {points.length > 1 ? (
            <text class="chart-axis" x={box.left + box.width} y={height - 10} text-anchor="end">
              {day(last)}
            </text>
          ) : null}
        </>
      ) : (
        <text class="chart-axis" x={box.left + box.width / 2} y={box.top + box.height / 2} text-anchor="middle">
          No completed report yet
        </text>
      )}
      {placed.length > 1 ? (
        <polyline class="chart-line" fill="none" points={placed.map(({ x, y }) => `${x},${y}`).join(" ")} />
      ) : null}
      {placed.map(({ point, x, y }) => (
        <circle key={point.report_id} class={`chart-dot grade-${point.grade}`} cx={x} cy={y} r="4">
          <title>{`${day(point)}: score ${point.score}, grade ${point.grade}`}</title>
        </circle>
      ))}
    </ChartFrame>
  );
}

/** The Core Web Vitals a site's history plots, with how their values read. */
export const LAB_CHART_METRICS = [
  { key: "lcp_ms", label: "Largest Contentful Paint", unit: "ms" },
  { key: "cls", label: "Cumulative Layout Shift", unit: "" },
  { key: "tbt_ms", label: "Total Blocking Time", unit: "ms" },
] as const;
export type LabChartMetric = (typeof LAB_CHART_METRICS)[number]["key"];

/** A metric's value as people read it: "1.84 s", "420 ms", "0.213". */
export function labValueText(metric: LabChartMetric, value: number): string {
  if (metric === "cls") return value.toFixed(3);
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}

/** The reports of a history that had a complete lab run, with the metric's value. */
export function labSeries(points: ScorePoint[], metric: LabChartMetric): { point: ScorePoint; value: number }[] {
  return points.flatMap((point) => {
    const value = point.lab?.[metric];
    return typeof value === "number" ? [{ point, value }] : [];
  });
}

/**
 * One Core Web Vital over a site's lab reports: a line over a grid from 0 to past the "poor"
 * threshold, with web.dev's "good" and "poor" thresholds drawn, so a reader sees which band each
 * report fell in (the numbers are in the table beside it). Reports without a lab run are left out.
 */
export function LabChart({
  points,
  metric,
  width = 720,
  height = 160,
}: {
  points: ScorePoint[];
  metric: LabChartMetric;
  width?: number;
  height?: number;
}) {
  const series = labSeries(points, metric);
  const { good, poor } = LAB_THRESHOLDS[metric];
  const { label } = LAB_CHART_METRICS.find((entry) => entry.key === metric) as (typeof LAB_CHART_METRICS)[number];
  const top = Math.max(poor * 1.25, ...series.map((entry) => entry.value)) || 1;
  const box = { left: 56, top: 12, width: width - 72, height: height - 40 };
  const yOf = (value: number) => Math.round((box.top + box.height - (value / top) * box.height) * 10) / 10;
  const step = series.length > 1 ? box.width / (series.length - 1) : 0;
  const placed = series.map((entry, index) => ({
    ...entry,
    x: Math.round((series.length > 1 ? box.left + index * step : box.left + box.width / 2) * 10) / 10,
    y: yOf(entry.value),
  }));
  const first = series[0];
  const last = series.at(-1);
  const title =
    first && last
      ? `${label}: ${labValueText(metric, first.value)} to ${labValueText(metric, last.value)} over the last ${series.length} lab report${series.length === 1 ? "" : "s"} (good ≤ ${labValueText(metric, good)}, poor > ${labValueText(metric, poor)})`
      : `${label}: no lab report yet`;
  const id = `lab-chart-${metric}`;
  return (
    <ChartFrame id={id} width={width} height={height} title={title} kind="lab-chart">
      {[
        { value: good, name: "good" },
        { value: poor, name: "poor" },
      ].map(({ value, name }) => (
        <g key={name}>
          <line
            class={`chart-grid lab-threshold-${name}`}
            x1={box.left}
            x2={box.left + box.width}
            y1={yOf(value)}
            y2={yOf(value)}
          />
          <text class="chart-axis" x={box.left - 8} y={yOf(value) + 4} text-anchor="end">
            {labValueText(metric, value)}
          </text>
        </g>
      ))}
      {first && last ? (
        <>
          <text class="chart-axis" x={box.left} y={height - 8} text-anchor="start">
            {day(first.point)}
          </text>
          {series.length > 1 ? (
            <text class="chart-axis" x={box.left + box.width} y={height - 8} text-anchor="end">
              {day(last.point)}
            </text>
          ) : null}
        </>
      ) : null}
      {placed.length > 1 ? (
        <polyline class="chart-line" fill="none" points={placed.map(({ x, y }) => `${x},${y}`).join(" ")} />
      ) : null}
      {placed.map(({ point, value, x, y }) => (
        <circle key={point.report_id} class={`chart-dot lab-${labLevel(metric, value)}`} cx={x} cy={y} r="4">
          <title>{`${day(point)}: ${labValueText(metric, value)} (${LAB_LEVEL_WORDS[labLevel(metric, value)]})`}</title>
        </circle>
      ))}
    </ChartFrame>
  );
}
