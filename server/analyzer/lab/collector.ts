/**
 * What runs inside the page: performance observers, in an isolated world of our own (CDP
 * Page.addScriptToEvaluateOnNewDocument with a worldName). The page's scripts share the DOM
 * with it but not its globals, so a site cannot reach the observers or the numbers they keep,
 * nor replace PerformanceObserver for them. The top frame only.
 */
export const LAB_WORLD = "wpreport-lab";

/** Entries kept per kind: a hostile page cannot grow the capture past these. */
const CAPS = { shifts: 200, longTasks: 500, frames: 500, resources: 1500, scripts: 10 };

export const COLLECTOR_SOURCE = `(() => {
  if (window !== window.top) return;
  const caps = ${JSON.stringify(CAPS)};
  const lab = { fcp: null, lcp: null, shifts: [], longTasks: [], frames: [], resources: [] };
  globalThis.__wpreportLab = lab;
  const selectorOf = (start) => {
    let node = start;
    if (node && node.nodeType !== 1) node = node.parentElement;
    if (!node) return null;
    const parts = [];
    for (let el = node, depth = 0; el && el.nodeType === 1 && depth < 5; el = el.parentElement, depth++) {
      let part = el.localName;
      if (el.id) { parts.unshift(part + "#" + CSS.escape(el.id)); break; }
      part += [...el.classList].slice(0, 2).map((c) => "." + CSS.escape(c)).join("");
      const parent = el.parentElement;
      if (parent) {
        const same = [...parent.children].filter((c) => c.localName === el.localName);
        if (same.length > 1) part += ":nth-of-type(" + (same.indexOf(el) + 1) + ")";
      }
      parts.unshift(part);
      if (el.localName === "body" || el.localName === "html") break;
    }
    return parts.join(" > ").slice(0, 300);
  };
  globalThis.__wpreportSelectorOf = selectorOf;
  const observe = (type, take) => {
    try {
      new PerformanceObserver((list) => { for (const entry of list.getEntries()) take(entry); })
        .observe({ type, buffered: true });
    } catch {}
  };
  observe("paint", (e) => { if (e.name === "first-contentful-paint") lab.fcp = e.startTime; });
  observe("largest-contentful-paint", (e) => {
    const el = e.element;
    const tag = el ? el.localName : "";
    const kind = !el ? "other" : tag === "img" || tag === "image" ? "image" : tag === "video" ? "video"
      : e.url ? "background-image" : "text";
    lab.lcp = { startMs: e.startTime, selector: selectorOf(el), kind, url: e.url || null };
  });
  observe("layout-shift", (e) => {
    if (lab.shifts.length >= caps.shifts) return;
    lab.shifts.push({ startMs: e.startTime, value: e.value, hadRecentInput: e.hadRecentInput,
      sources: (e.sources || []).map((s) => selectorOf(s.node)).filter(Boolean).slice(0, 5) });
  });
  observe("longtask", (e) => {
    if (lab.longTasks.length < caps.longTasks) lab.longTasks.push({ startMs: e.startTime, durationMs: e.duration });
  });
  observe("long-animation-frame", (e) => {
    if (lab.frames.length >= caps.frames) return;
    lab.frames.push({ startMs: e.startTime, durationMs: e.duration,
      scripts: (e.scripts || []).slice(0, caps.scripts).map((s) => ({ url: String(s.sourceURL || ""),
        durationMs: s.duration, invoker: String(s.invoker || "").slice(0, 200) })) });
  });
  observe("resource", (e) => {
    if (lab.resources.length >= caps.resources) return;
    lab.resources.push({ url: e.name, type: e.initiatorType, blocking: e.renderBlockingStatus === "blocking",
      durationMs: e.responseEnd - e.startTime });
  });
})();`;

/** Read at the end of a load, in the same world: the observers' numbers and a look at the images. */
export const READ_SOURCE = `(() => {
  const lab = globalThis.__wpreportLab;
  if (!lab) return null;
  const selectorOf = globalThis.__wpreportSelectorOf;
  const nav = performance.getEntriesByType("navigation")[0];
  const sized = (img) => {
    const style = getComputedStyle(img);
    if (style.position === "absolute" || style.position === "fixed") return true;
    if (style.aspectRatio && style.aspectRatio !== "auto" && !style.aspectRatio.startsWith("auto ")) return true;
    const width = img.getAttribute("width") || img.style.width;
    const height = img.getAttribute("height") || img.style.height;
    return Boolean(width && height);
  };
  const unsized = [...document.images]
    .filter((img) => { const src = img.currentSrc || img.src; return src && !src.startsWith("data:") && !sized(img); })
    .slice(0, 50)
    .map((img) => ({ url: img.currentSrc || img.src, selector: selectorOf(img) }));
  return JSON.stringify({
    ttfbMs: nav ? nav.responseStart - nav.startTime : null,
    fcpMs: lab.fcp, lcp: lab.lcp, shifts: lab.shifts, longTasks: lab.longTasks, frames: lab.frames,
    renderBlocking: lab.resources.filter((r) => r.blocking).map((r) => ({ url: r.url, type: r.type, durationMs: r.durationMs })),
    unsizedImages: unsized,
    lastLongTaskEnd: lab.longTasks.reduce((end, t) => Math.max(end, t.startMs + t.durationMs), 0),
    now: performance.now(),
  });
})()`;
