/**
 * The lab checks: Core Web Vitals of the page loaded in a browser (performance.lab), with
 * web.dev's thresholds, and what the browser saw block the first render or lack dimensions.
 * Every one skips when there was no lab run, or it did not complete: nothing observed, nothing
 * said.
 */
import { type LAB_THRESHOLDS, labLevel } from "../../../../shared/lab.ts";
import type { Check, Lab, LabComponent } from "../../../../shared/report.ts";
import { type CheckId, makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

export { LAB_THRESHOLDS } from "../../../../shared/lab.ts";

/** A component as a reader names it: "plugin slider-x", "the theme astra", "WordPress core". */
export function componentName(component: LabComponent | null): string {
  if (!component) return "an unknown source";
  switch (component.kind) {
    case "plugin":
      return `plugin ${component.slug}`;
    case "theme":
      return `theme ${component.slug}`;
    case "core":
      return "WordPress core";
    case "site":
      return "the site's own files";
    default:
      return `third party ${component.origin}`;
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function skipAll(reason: string): Check[] {
  const ids: CheckId[] = [
    "performance.lcp",
    "performance.cls",
    "performance.tbt",
    "performance.lab_render_blocking",
    "performance.lab_image_dimensions",
  ];
  return ids.map((id) => makeCheck(id, "skip", reason));
}

const STATUS = { good: "pass", needs_improvement: "warn", poor: "fail" } as const;
function level(metric: keyof typeof LAB_THRESHOLDS, value: number): "pass" | "warn" | "fail" {
  return STATUS[labLevel(metric, value)];
}

const WORDS = { pass: "good", warn: "needs improvement", fail: "poor" } as const;

function lcpCheck(lab: Lab): Check {
  const lcp = lab.metrics?.lcp_ms ?? null;
  if (lcp === null)
    return makeCheck("performance.lcp", "skip", "The page painted no content the browser could measure.");
  const status = level("lcp_ms", lcp);
  const element = lab.lcp_element;
  const what = element
    ? ` The element: ${element.kind}${element.selector ? ` ${element.selector}` : ""}${element.url ? ` (${element.url}${element.component ? `, ${componentName(element.component)}` : ""})` : ""}.`
    : "";
  const evidence = [`lcp_ms: ${lcp}`, ...(element?.selector ? [`element: ${element.selector}`] : [])];
  return makeCheck(
    "performance.lcp",
    status,
    `Largest Contentful Paint is ${seconds(lcp)} (${WORDS[status]}: good ≤ 2.5 s, poor > 4 s).${what}`,
    evidence,
  );
}

function clsCheck(lab: Lab): Check {
  const cls = lab.metrics?.cls ?? 0;
  const status = level("cls", cls);
  const moved = [...new Set(lab.layout_shifts.flatMap((shift) => shift.elements))].slice(0, 3);
  const what = status !== "pass" && moved.length > 0 ? ` What moved: ${moved.join(", ")}.` : "";
  return makeCheck(
    "performance.cls",
    status,
    `Cumulative Layout Shift is ${cls.toFixed(3)} (${WORDS[status]}: good ≤ 0.1, poor > 0.25).${what}`,
    [`cls: ${cls}`, ...moved.map((selector) => `moved: ${selector}`)],
  );
}

function tbtCheck(lab: Lab): Check {
  const tbt = lab.metrics?.tbt_ms ?? 0;
  const status = level("tbt_ms", tbt);
  const longest = lab.long_tasks[0];
  const script = longest?.scripts[0];
  const who =
    status !== "pass" && longest
      ? script
        ? ` The longest task (${longest.duration_ms} ms) ran ${componentName(script.component)}'s script ${script.url} for ${script.duration_ms} ms.`
        : ` The longest task ran ${longest.duration_ms} ms.`
      : "";
  return makeCheck(
    "performance.tbt",
    status,
    `Total Blocking Time is ${tbt} ms (${WORDS[status]}: good ≤ 200 ms, poor > 600 ms).${who}`,
    [
      `tbt_ms: ${tbt}`,
      ...lab.long_tasks
        .slice(0, 5)
        .map(
          (task) =>
            `${task.duration_ms} ms task: ${componentName(task.component)}${task.scripts[0] ? ` (${task.scripts[0].url})` : ""}`,
        ),
    ],
  );
}

function renderBlockingCheck(lab: Lab): Check {
  const files = lab.render_blocking;
  if (files.length === 0)
    return makeCheck("performance.lab_render_blocking", "pass", "The browser held the first render for no file.");
  const longest = [...files].sort((a, b) => b.duration_ms - a.duration_ms)[0] as Lab["render_blocking"][number];
  return makeCheck(
    "performance.lab_render_blocking",
    "warn",
    `The browser held the first render for ${files.length} file${files.length === 1 ? "" : "s"}; the slowest, ${componentName(longest.component)}'s ${longest.type} ${longest.url}, took ${longest.duration_ms} ms.`,
    files.map((file) => `${file.type} ${file.url} (${componentName(file.component)}, ${file.duration_ms} ms)`),
  );
}

function imageDimensionsCheck(lab: Lab): Check {
  const images = lab.images_without_dimensions;
  if (images.length === 0)
    return makeCheck("performance.lab_image_dimensions", "pass", "Every image of the rendered page has dimensions.");
  return makeCheck(
    "performance.lab_image_dimensions",
    "warn",
    `${images.length} image${images.length === 1 ? "" : "s"} of the rendered page ${images.length === 1 ? "has" : "have"} neither width and height nor an aspect-ratio: the layout shifts when ${images.length === 1 ? "it loads" : "they load"}.`,
    images.map((image) => image.url),
  );
}

export const auditLab: Audit = ({ performance }) => {
  const lab = performance.lab;
  if (!lab) return skipAll('No lab run was asked for ("lab": true loads the page in a browser).');
  if (lab.status !== "complete" || !lab.metrics) {
    return skipAll(`The lab run did not complete: ${lab.reason ?? lab.status}.`);
  }
  return [lcpCheck(lab), clsCheck(lab), tbtCheck(lab), renderBlockingCheck(lab), imageDimensionsCheck(lab)];
};
