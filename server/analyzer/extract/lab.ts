/**
 * The report's `performance.lab` from the lab run's capture (lab/capture.ts) and what
 * detection knows: the metrics of each load (CLS and TBT computed here, as Lighthouse defines
 * them), the median load and the spread, and each file attributed to WordPress core, the
 * theme, a plugin, the site or a third-party origin. Pure: tested on saved captures.
 */
import type { Lab, LabComponent, LabMetrics } from "../../../shared/report.ts";
import { COMPONENT_FILE, CORE_FILE } from "../detect/asset-origins.ts";
import type { SitePaths } from "../detect/site-paths.ts";
import type { LabCapture, LabRunCapture } from "../lab/capture.ts";
import { siteText, siteUrl } from "../untrusted-text.ts";

/** A main-thread task blocks input for what it lasts beyond this (Lighthouse, TBT). */
export const BLOCKING_THRESHOLD_MS = 50;
/** CLS session windows: a new window after a 1 s gap, and a window lasts at most 5 s. */
const SESSION_GAP_MS = 1_000;
const SESSION_CAP_MS = 5_000;
/** Rows kept per list in the report. */
const LIST_CAP = 20;

/**
 * CLS as web.dev and Lighthouse define it: the layout shifts grouped in session windows, and
 * the largest window's sum. Shifts flagged as after input count too: the lab never gives input,
 * and Chromium's mobile emulation flags shifts as if it had (so excluding them would hide them).
 */
export function clsWindow(shifts: LabRunCapture["shifts"]): { value: number; shifts: LabRunCapture["shifts"] } {
  const sorted = [...shifts].sort((a, b) => a.startMs - b.startMs);
  let best: { value: number; shifts: LabRunCapture["shifts"] } = { value: 0, shifts: [] };
  let current: LabRunCapture["shifts"] = [];
  let sum = 0;
  for (const shift of sorted) {
    const first = current[0];
    const last = current[current.length - 1];
    if (
      !first ||
      !last ||
      shift.startMs - last.startMs > SESSION_GAP_MS ||
      shift.startMs - first.startMs > SESSION_CAP_MS
    ) {
      current = [];
      sum = 0;
    }
    current.push(shift);
    sum += shift.value;
    if (sum > best.value) best = { value: sum, shifts: [...current] };
  }
  return best;
}

/**
 * What a task adds to TBT: the part of it after First Contentful Paint (and before the end of
 * observation), beyond 50 ms. Lighthouse clips tasks the same way at FCP; it ends the window at
 * Time to Interactive, which the lab's quiet wait after load stands in for.
 */
export function blockingMs(task: { startMs: number; durationMs: number }, fcpMs: number, endMs: number): number {
  const start = Math.max(task.startMs, fcpMs);
  const end = Math.min(task.startMs + task.durationMs, endMs);
  const clipped = end - start;
  return clipped > BLOCKING_THRESHOLD_MS ? clipped - BLOCKING_THRESHOLD_MS : 0;
}

/** TBT of one load; without FCP nothing painted and nothing counts as blocking after it. */
export function tbtOf(run: LabRunCapture): number {
  if (run.fcpMs === null) return 0;
  return run.longTasks.reduce((sum, task) => sum + blockingMs(task, run.fcpMs as number, run.endMs), 0);
}

export function metricsOf(run: LabRunCapture): LabMetrics {
  return {
    ttfb_ms: roundMs(run.ttfbMs),
    fcp_ms: roundMs(run.fcpMs),
    lcp_ms: roundMs(run.lcp?.startMs ?? null),
    cls: roundCls(clsWindow(run.shifts).value),
    tbt_ms: Math.round(tbtOf(run)),
    speed_index_ms: null,
    requests: run.requests.length,
    transfer_bytes: run.requests.reduce((sum, request) => sum + request.bytes, 0),
  };
}

const roundMs = (value: number | null) => (value === null ? null : Math.round(value));
const roundCls = (value: number) => Math.round(value * 10_000) / 10_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The median of each metric across the loads; null stays null only when every load had none. */
export function medianMetrics(all: LabMetrics[]): LabMetrics {
  const of = (pick: (metrics: LabMetrics) => number | null, round: (value: number) => number) => {
    const values = all.map(pick).filter((value): value is number => value !== null);
    return values.length === 0 ? null : round(median(values));
  };
  const whole = (value: number) => Math.round(value);
  return {
    ttfb_ms: of((m) => m.ttfb_ms, whole),
    fcp_ms: of((m) => m.fcp_ms, whole),
    lcp_ms: of((m) => m.lcp_ms, whole),
    cls: of((m) => m.cls, roundCls) ?? 0,
    tbt_ms: of((m) => m.tbt_ms, whole) ?? 0,
    speed_index_ms: null,
    requests: of((m) => m.requests, whole) ?? 0,
    transfer_bytes: of((m) => m.transfer_bytes, whole) ?? 0,
  };
}

/**
 * The load whose LCP (then TBT) is the median: its elements, tasks and files stand for the run.
 * With an even count, the lower middle.
 */
export function representativeRun(runs: LabRunCapture[]): LabRunCapture | undefined {
  const ranked = runs
    .map((run) => ({ run, metrics: metricsOf(run) }))
    .sort(
      (a, b) =>
        (a.metrics.lcp_ms ?? Number.POSITIVE_INFINITY) - (b.metrics.lcp_ms ?? Number.POSITIVE_INFINITY) ||
        a.metrics.tbt_ms - b.metrics.tbt_ms,
    );
  return ranked[Math.floor((ranked.length - 1) / 2)]?.run;
}

/**
 * What a file belongs to: a plugin's or theme's folder in the site's content directory (or an
 * asset origin serving it), core's wp-includes/ and wp-admin/, the site's other files, or the
 * origin of a third party.
 */
export function componentOf(url: string, paths: SitePaths | null, siteOrigin: string): LabComponent | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  const origin = parsed.origin;
  const plain = `${origin}${parsed.pathname}`;
  const bases = paths ? [paths.contentBase, ...paths.assetBases] : [];
  const ownOrigins = new Set([siteOrigin, ...(paths ? [paths.origin] : [])]);
  for (const base of bases) {
    if (!plain.startsWith(base)) continue;
    const match = COMPONENT_FILE.exec(`/${plain.slice(base.length)}`);
    if (match?.[1] === "/" && match[3]) {
      const kind = match[2] === "themes" ? "theme" : "plugin";
      return { kind, slug: siteText(decodeSegment(match[3]), 100), origin: siteUrl(origin) };
    }
  }
  if (ownOrigins.has(origin) || bases.some((base) => base.startsWith(`${origin}/`))) {
    if (CORE_FILE.test(parsed.pathname)) return { kind: "core", slug: null, origin: siteUrl(origin) };
    // Without a known content directory (not WordPress, or no paths), a component's usual place still says whose it is.
    const match = paths ? null : COMPONENT_FILE.exec(parsed.pathname);
    if (match?.[3] && /\/wp-content\/$/.test(match[1] ?? "")) {
      return {
        kind: match[2] === "themes" ? "theme" : "plugin",
        slug: siteText(match[3], 100),
        origin: siteUrl(origin),
      };
    }
    return { kind: "site", slug: null, origin: siteUrl(origin) };
  }
  return { kind: "third_party", slug: null, origin: siteUrl(origin) };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const componentKey = (component: LabComponent) =>
  `${component.kind}\u0000${component.slug ?? ""}\u0000${component.origin}`;

/** The report's lab section from the capture; `paths` is what detection found (null when not WordPress). */
export function extractLab(capture: LabCapture, paths: SitePaths | null, siteOrigin: string): Lab {
  const base = {
    status: capture.status,
    reason: capture.reason === null ? null : siteText(capture.reason),
    device: capture.device,
    throttling: capture.throttling,
    throttling_used: capture.applied,
    runs: Math.max(1, capture.runsAsked),
    completed_runs: capture.runs.length,
    blocked_requests: {
      count: capture.refused.count,
      examples: capture.refused.examples.map((refusal) => ({
        target: siteUrl(refusal.target),
        reason: siteText(refusal.reason),
      })),
    },
  };
  const empty = {
    metrics: null,
    spread: null,
    lcp_element: null,
    layout_shifts: [],
    long_tasks: [],
    render_blocking: [],
    components: [],
    third_party: [],
    images_without_dimensions: [],
    thumbnail: null,
  };
  const run = representativeRun(capture.runs);
  if (capture.status !== "complete" || !run) return { ...base, ...empty };
  const all = capture.runs.map(metricsOf);
  const spreadOf = (pick: (metrics: LabMetrics) => number | null) => {
    const values = all.map(pick).filter((value): value is number => value !== null);
    return values.length === 0 ? null : { min: Math.min(...values), max: Math.max(...values) };
  };
  const owner = (url: string) => componentOf(url, paths, siteOrigin);

  const longTasks = run.longTasks
    .map((task) => {
      // The long animation frame holding the task names the scripts that ran in it.
      const frame = run.frames.find(
        (candidate) =>
          candidate.startMs <= task.startMs + 1 &&
          candidate.startMs + candidate.durationMs >= task.startMs + task.durationMs - 1,
      );
      const scripts = (frame?.scripts ?? [])
        .filter((script) => script.url)
        .sort((a, b) => b.durationMs - a.durationMs)
        .slice(0, 5)
        .map((script) => ({
          url: siteUrl(script.url),
          duration_ms: Math.round(script.durationMs),
          component: owner(script.url),
        }));
      return {
        start_ms: Math.round(task.startMs),
        duration_ms: Math.round(task.durationMs),
        blocking_ms: Math.round(run.fcpMs === null ? 0 : blockingMs(task, run.fcpMs, run.endMs)),
        component: scripts[0]?.component ?? null,
        scripts,
      };
    })
    .sort((a, b) => b.duration_ms - a.duration_ms)
    .slice(0, LIST_CAP);

  const byComponent = new Map<string, { component: LabComponent; requests: number; bytes: number }>();
  for (const request of run.requests) {
    const component = owner(request.url);
    if (!component) continue;
    const key = componentKey(component);
    const entry = byComponent.get(key) ?? { component, requests: 0, bytes: 0 };
    entry.requests += 1;
    entry.bytes += request.bytes;
    byComponent.set(key, entry);
  }
  const components = [...byComponent.values()].sort((a, b) => b.bytes - a.bytes);
  const thirdParty = components
    .filter((entry) => entry.component.kind === "third_party")
    .map((entry) => ({ origin: entry.component.origin, requests: entry.requests, bytes: entry.bytes }));

  const window = clsWindow(run.shifts);
  return {
    ...base,
    metrics: medianMetrics(all),
    spread: {
      fcp_ms: spreadOf((m) => m.fcp_ms),
      lcp_ms: spreadOf((m) => m.lcp_ms),
      cls: spreadOf((m) => m.cls) ?? { min: 0, max: 0 },
      tbt_ms: spreadOf((m) => m.tbt_ms) ?? { min: 0, max: 0 },
    },
    lcp_element: run.lcp
      ? {
          selector: run.lcp.selector === null ? null : siteText(run.lcp.selector),
          kind: run.lcp.kind,
          url: run.lcp.url ? siteUrl(run.lcp.url) : null,
          component: run.lcp.url ? owner(run.lcp.url) : null,
        }
      : null,
    layout_shifts: window.shifts
      .map((shift) => ({
        start_ms: Math.round(shift.startMs),
        value: roundCls(shift.value),
        elements: shift.sources.slice(0, 5).map((selector) => siteText(selector)),
      }))
      .sort((a, b) => b.value - a.value)
      .slice(0, LIST_CAP),
    long_tasks: longTasks,
    render_blocking: run.renderBlocking
      .map((file) => ({ file, component: owner(file.url) }))
      .filter((entry): entry is { file: (typeof run.renderBlocking)[number]; component: LabComponent } =>
        Boolean(entry.component),
      )
      .slice(0, LIST_CAP)
      .map(({ file, component }) => ({
        url: siteUrl(file.url),
        type: siteText(file.type, 40),
        duration_ms: Math.round(file.durationMs),
        component,
      })),
    components: components.slice(0, 50).map((entry) => ({ ...entry, component: entry.component })),
    third_party: thirdParty.slice(0, LIST_CAP),
    images_without_dimensions: run.unsizedImages.slice(0, LIST_CAP).map((image) => ({
      url: siteUrl(image.url),
      selector: image.selector === null ? null : siteText(image.selector),
    })),
    thumbnail: validThumbnail(run.thumbnail),
  };
}

/** Only a JPEG data: URL of bounded size goes into the report (it is shown as an image). */
function validThumbnail(thumbnail: string | null): string | null {
  if (!thumbnail || thumbnail.length > 200_000) return null;
  return /^data:image\/jpeg;base64,[A-Za-z0-9+/]+=*$/.test(thumbnail) ? thumbnail : null;
}
