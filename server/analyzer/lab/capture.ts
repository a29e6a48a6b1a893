/**
 * What a lab run captured in the browser, before attribution: plain JSON data kept with the
 * artifacts (`artifacts.lab`), so extract/lab.ts — medians, CLS session windows, TBT, the
 * component of each file — is a pure function tested on saved captures.
 *
 * Everything that came from the page (URLs, selectors, script invokers) is site text: it is
 * cleaned when it enters the report (extract/lab.ts).
 */
import type { LabDevice, LabThrottling, LabThrottlingUsed } from "../../../shared/report.ts";

/** One load of the page, in one fresh browser context. Times are ms since navigation start. */
export interface LabRunCapture {
  ttfbMs: number | null;
  fcpMs: number | null;
  /** The last largest-contentful-paint candidate; null when the page painted none. */
  lcp: { startMs: number; selector: string | null; kind: LabElementKind; url: string | null } | null;
  /** Every layout shift (capped), input-driven ones included (CLS leaves them out). */
  shifts: { startMs: number; value: number; hadRecentInput: boolean; sources: string[] }[];
  /** Main-thread tasks longer than 50 ms (longtask entries). */
  longTasks: { startMs: number; durationMs: number }[];
  /** Long animation frames with the scripts that ran in them: who a long task belongs to. */
  frames: { startMs: number; durationMs: number; scripts: { url: string; durationMs: number; invoker: string }[] }[];
  /** Files the browser held the first render for (resource timing's renderBlockingStatus). */
  renderBlocking: { url: string; type: string; durationMs: number }[];
  /** Every request of the load seen by the page's network agent, with its bytes on the wire. */
  requests: { url: string; type: string; bytes: number }[];
  /** Images with neither width and height (attributes or inline style) nor an aspect-ratio. */
  unsizedImages: { url: string; selector: string | null }[];
  /** When observing stopped (quiet after load, or the cap): the end of the TBT window. */
  endMs: number;
  /** A small JPEG of the viewport once the load settled (data: URL), or null. */
  thumbnail: string | null;
}

export type LabElementKind = "image" | "text" | "video" | "background-image" | "other";

export interface LabCapture {
  status: "complete" | "failed" | "unavailable";
  /** Why the run failed or was unavailable; null when complete. */
  reason: string | null;
  device: LabDevice;
  throttling: LabThrottling;
  /** The throttling applied, in figures. */
  applied: LabThrottlingUsed;
  /** Loads asked for (lab_runs). */
  runsAsked: number;
  runs: LabRunCapture[];
  /** Requests the policy proxy refused (count, and the first few). */
  refused: { count: number; examples: { target: string; reason: string }[] };
  /** Wall time of the whole lab run, ms. */
  wallMs: number;
}
