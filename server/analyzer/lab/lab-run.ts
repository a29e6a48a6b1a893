/**
 * A lab run: the page loaded in the machine's Chromium (playwright-core, never a downloaded
 * browser), `runs` times, each in a fresh browser context, with everything it asks for going
 * through the policy proxy (policy-proxy.ts). Returns the raw capture (capture.ts); the report's
 * `performance.lab` is made from it by extract/lab.ts.
 *
 * Safety (docs/target-policy.md, "Lab"): one browser per lab run, started with the proxy and
 * resolver flags of chromium-flags.ts; service workers blocked, downloads refused, no
 * permissions; a popup is closed at once; a hard deadline, past which the browser's process is
 * killed; its process tree's memory is watched and the browser killed past the cap; the bytes
 * it may move are capped by the proxy. Site credentials are added only to requests for the
 * site's own origin (scheme, host and port).
 */
import type dns from "node:dns";
import { type BrowserContext, type BrowserServer, type CDPSession, chromium, type Page } from "playwright-core";
import type { LabDevice, LabThrottling } from "../../../shared/report.ts";
import { isEmptySiteAuth, type SiteAuth, siteAuthHeaders } from "../../../shared/site-auth.ts";
import type { SiteTls } from "../../../shared/site-tls.ts";
import type { TargetPolicy } from "../fetch/target-policy.ts";
import type { LabCapture, LabRunCapture } from "./capture.ts";
import { labChromiumArgs } from "./chromium-flags.ts";
import { COLLECTOR_SOURCE, LAB_WORLD, READ_SOURCE } from "./collector.ts";
import { DEVICES, throttlingFor } from "./device.ts";
import { PolicyProxy } from "./policy-proxy.ts";
import { processTreeRssMb } from "./process-memory.ts";
import { siteCertificatePin } from "./site-certificate.ts";

export interface LabRunOptions {
  /** Chromium's executable (CHROMIUM_PATH); undefined: the lab is unavailable. */
  executablePath: string | undefined;
  policy: TargetPolicy;
  resolve?: typeof dns.lookup;
  device: LabDevice;
  throttling: LabThrottling;
  runs: number;
  /** The whole lab run's hard deadline, ms; the browser is killed past it. */
  timeoutMs: number;
  /** The browser's process tree may use this much resident memory, MB; killed past it. */
  maxMemoryMb: number;
  /** Bytes the browser may move through the proxy in all. */
  maxBytes: number;
  /** Our name, added to the browser's User-Agent so a site owner sees who asked. */
  userAgentName: string;
  siteAuth?: SiteAuth;
  /** A staging site's certificate rule, for its own origin only (site-certificate.ts). */
  siteTls?: SiteTls;
}

/** How long a load waits after the load event for the network and the main thread to be quiet. */
const QUIET_MS = 1_000;
/** The longest a load observes after its load event. */
const SETTLE_CAP_MS = 10_000;
/** Width of the thumbnail, CSS pixels. */
const THUMBNAIL_WIDTH = 200;

class LabAbort extends Error {}

export async function runLab(url: string, options: LabRunOptions, signal?: AbortSignal): Promise<LabCapture> {
  const started = performance.now();
  const applied = throttlingFor(options.device, options.throttling);
  const base: Omit<LabCapture, "status" | "reason" | "runs"> = {
    device: options.device,
    throttling: options.throttling,
    applied,
    runsAsked: options.runs,
    refused: { count: 0, examples: [] },
    wallMs: 0,
  };
  if (!options.executablePath) {
    return { ...base, status: "unavailable", reason: "This service has no browser for lab runs.", runs: [] };
  }
  const proxy = new PolicyProxy({
    policy: options.policy,
    resolve: options.resolve,
    maxBytes: options.maxBytes,
  });
  let server: BrowserServer | undefined;
  let killedFor: string | undefined;
  const kill = (why: string) => {
    if (killedFor) return;
    killedFor = why;
    // kill() ends the process tree at once: no graceful close for a browser that overran.
    void server?.kill().catch(() => {});
  };
  const deadline = setTimeout(
    () => kill(`the lab run did not finish within ${Math.round(options.timeoutMs / 1000)} s`),
    options.timeoutMs,
  );
  // Starting the browser and connecting to it may take what is left of the run's deadline: on
  // a busy worker Chromium can take more than 20 s to start, which is no fault of the site. The
  // deadline cannot kill a browser that is still starting, so this bound ends the wait, a second
  // after the deadline has named the reason.
  const startedAt = performance.now();
  const timeLeft = () => Math.max(1, Math.ceil(startedAt + options.timeoutMs - performance.now())) + 1_000;
  const onAbort = () => kill("the analysis was stopped");
  signal?.addEventListener("abort", onAbort, { once: true });
  let memoryWatch: ReturnType<typeof setInterval> | undefined;
  const runs: LabRunCapture[] = [];
  let outcome: Pick<LabCapture, "status" | "reason">;
  try {
    const proxyUrl = await proxy.listen();
    // A staging site's own certificate (tls: insecure, or tls_ca): its key is read and checked
    // here, and the browser accepts that key alone despite errors; every other origin is verified.
    let acceptKey: string | undefined;
    if (options.siteTls && new URL(url).protocol === "https:") {
      const pin = await siteCertificatePin(url, options.siteTls, options.policy, options.resolve, 10_000);
      if (!pin.ok) throw new LabAbort(pin.reason);
      acceptKey = pin.spki;
    }
    if (killedFor) throw new LabAbort(killedFor);
    server = await chromium.launchServer({
      executablePath: options.executablePath,
      args: labChromiumArgs(proxyUrl, 512, acceptKey),
      timeout: timeLeft(),
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    if (killedFor) throw new LabAbort(killedFor);
    const pid = server.process().pid;
    if (pid !== undefined) {
      memoryWatch = setInterval(() => {
        const rss = processTreeRssMb(pid);
        if (rss > options.maxMemoryMb) kill(`the browser used more than ${options.maxMemoryMb} MB of memory`);
      }, 500);
      memoryWatch.unref?.();
    }
    const browser = await chromium.connect(server.wsEndpoint(), { timeout: timeLeft() });
    const userAgent = `Mozilla/5.0 (${DEVICES[options.device].platform}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} ${DEVICES[options.device].isMobile ? "Mobile " : ""}Safari/537.36 ${options.userAgentName}`;
    for (let run = 0; run < options.runs; run++) {
      if (killedFor) throw new LabAbort(killedFor);
      const context = await browser.newContext({
        ...DEVICES[options.device],
        userAgent,
        serviceWorkers: "block",
        acceptDownloads: false,
        permissions: [],
        ignoreHTTPSErrors: false,
        bypassCSP: false,
        javaScriptEnabled: true,
      });
      try {
        runs.push(await loadOnce(context, url, options, applied));
      } finally {
        await context.close().catch(() => {});
      }
    }
    await browser.close().catch(() => {});
    outcome = { status: "complete", reason: null };
  } catch (error) {
    const reason =
      killedFor ?? (error instanceof LabAbort ? error.message : `the page could not be loaded (${describe(error)})`);
    outcome = { status: "failed", reason: capitalise(reason) };
  } finally {
    clearTimeout(deadline);
    clearInterval(memoryWatch);
    signal?.removeEventListener("abort", onAbort);
    await server?.close().catch(() => {});
    if (server) await server.kill().catch(() => {});
    await proxy.close().catch(() => {});
  }
  return {
    ...base,
    ...outcome,
    runs,
    refused: { count: proxy.refusedCount, examples: proxy.refused.slice(0, 5) },
    wallMs: Math.round(performance.now() - started),
  };
}

function describe(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  // Playwright's messages carry a call log after the first line; the first line says it.
  return (message.split("\n")[0] ?? "error").slice(0, 300);
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** One load of the page in a fresh context. */
async function loadOnce(
  context: BrowserContext,
  url: string,
  options: LabRunOptions,
  applied: ReturnType<typeof throttlingFor>,
): Promise<LabRunCapture> {
  // A popup or a second window is closed at once: one page per load.
  let first = true;
  context.on("page", (page) => {
    if (!first) void page.close().catch(() => {});
    first = false;
  });
  if (!isEmptySiteAuth(options.siteAuth)) await addSiteCredentials(context, url, options.siteAuth as SiteAuth);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const network = new NetworkLog(cdp);
  await cdp.send("Network.enable");
  await cdp.send("Page.enable");
  await cdp.send("Runtime.enable");
  await cdp.send("Page.addScriptToEvaluateOnNewDocument", { source: COLLECTOR_SOURCE, worldName: LAB_WORLD });
  if (applied.cpu_slowdown > 1) await cdp.send("Emulation.setCPUThrottlingRate", { rate: applied.cpu_slowdown });
  if (applied.download_kbps !== null || applied.rtt_ms > 0) {
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: applied.rtt_ms,
      downloadThroughput: applied.download_kbps === null ? -1 : (applied.download_kbps * 1024) / 8,
      uploadThroughput: applied.upload_kbps === null ? -1 : (applied.upload_kbps * 1024) / 8,
    });
  }
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: false });
  // As Lighthouse does: a blank page first, so that the measured navigation does not pay for
  // starting the tab's renderer.
  await page.goto("about:blank");
  await page.goto(url, { waitUntil: "load", timeout: options.timeoutMs });
  const world = await labWorld(cdp, page);
  const loadedAt = performance.now();
  let read = await readWorld(cdp, world);
  // Settle: wait until no request is in flight and no long task ended for QUIET_MS, at most SETTLE_CAP_MS.
  while (performance.now() - loadedAt < SETTLE_CAP_MS) {
    await page.waitForTimeout(250);
    read = await readWorld(cdp, world);
    const quietNetwork = network.quietFor() >= QUIET_MS;
    const quietMain = read.now - read.lastLongTaskEnd >= QUIET_MS;
    if (quietNetwork && quietMain && performance.now() - loadedAt >= QUIET_MS) break;
  }
  const thumbnail = await screenshot(cdp, options.device).catch(() => null);
  return {
    ttfbMs: read.ttfbMs,
    fcpMs: read.fcpMs,
    lcp: read.lcp,
    shifts: read.shifts,
    longTasks: read.longTasks,
    frames: read.frames,
    renderBlocking: read.renderBlocking.map((file) => ({
      ...file,
      type: file.type === "link" || file.type === "css" ? "style" : file.type,
    })),
    requests: network.requests(),
    unsizedImages: read.unsizedImages,
    endMs: read.now,
    thumbnail,
  };
}

interface WorldRead
  extends Pick<
    LabRunCapture,
    "ttfbMs" | "fcpMs" | "lcp" | "shifts" | "longTasks" | "frames" | "renderBlocking" | "unsizedImages"
  > {
  lastLongTaskEnd: number;
  now: number;
}

/** The execution context of our isolated world in the page's main frame. */
async function labWorld(cdp: CDPSession, page: Page): Promise<number> {
  const frameId = await mainFrameId(cdp);
  const { executionContextId } = await cdp.send("Page.createIsolatedWorld", { frameId, worldName: LAB_WORLD });
  void page;
  return executionContextId;
}

async function mainFrameId(cdp: CDPSession): Promise<string> {
  const { frameTree } = await cdp.send("Page.getFrameTree");
  return frameTree.frame.id;
}

async function readWorld(cdp: CDPSession, contextId: number): Promise<WorldRead> {
  const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", {
    expression: READ_SOURCE,
    contextId,
    returnByValue: true,
  });
  if (exceptionDetails || typeof result.value !== "string") {
    throw new Error("the page's measurements could not be read");
  }
  return JSON.parse(result.value) as WorldRead;
}

/** A small JPEG of the viewport, about THUMBNAIL_WIDTH CSS pixels wide. */
async function screenshot(cdp: CDPSession, device: LabDevice): Promise<string> {
  const { width, height } = DEVICES[device].viewport;
  const scale = THUMBNAIL_WIDTH / width / DEVICES[device].deviceScaleFactor;
  const { data } = await cdp.send("Page.captureScreenshot", {
    format: "jpeg",
    quality: 50,
    clip: { x: 0, y: 0, width, height, scale },
  });
  return `data:image/jpeg;base64,${data}`;
}

/**
 * Site credentials on the site's own origin only: added to each request whose URL's origin is
 * the analyzed URL's (every redirect hop is a request of its own), never to another origin.
 * The browser's own cookies for that origin are kept beside them.
 */
async function addSiteCredentials(context: BrowserContext, url: string, auth: SiteAuth): Promise<void> {
  const origin = new URL(url).origin;
  const extra = siteAuthHeaders(auth);
  await context.route("**/*", async (route) => {
    const request = route.request();
    let sameOrigin = false;
    try {
      sameOrigin = new URL(request.url()).origin === origin;
    } catch {}
    if (!sameOrigin) return route.continue();
    const headers = await request.allHeaders();
    const merged: Record<string, string> = { ...headers };
    for (const [name, value] of Object.entries(extra)) {
      const key = name.toLowerCase();
      merged[key] = key === "cookie" && headers.cookie ? `${headers.cookie}; ${value}` : value;
    }
    return route.continue({ headers: merged });
  });
}

/** The page's requests as its network agent saw them: URL, type, bytes on the wire; and when it was last busy. */
class NetworkLog {
  private readonly started = new Map<string, { url: string; type: string; bytes: number; done: boolean }>();
  private inFlight = 0;
  private lastActivity = performance.now();

  constructor(cdp: CDPSession) {
    cdp.on("Network.requestWillBeSent", (event) => {
      if (event.request.url.startsWith("data:")) return;
      const known = this.started.get(event.requestId);
      // A redirect reuses the request id: the hop before it is a request of its own.
      if (known) this.started.set(`${event.requestId}#${this.started.size}`, { ...known, done: true });
      else this.inFlight += 1;
      this.started.set(event.requestId, { url: event.request.url, type: event.type ?? "Other", bytes: 0, done: false });
      this.lastActivity = performance.now();
    });
    const finished = (requestId: string, bytes: number) => {
      const request = this.started.get(requestId);
      if (!request || request.done) return;
      request.done = true;
      request.bytes = Math.max(0, Math.round(bytes));
      this.inFlight = Math.max(0, this.inFlight - 1);
      this.lastActivity = performance.now();
    };
    cdp.on("Network.loadingFinished", (event) => finished(event.requestId, event.encodedDataLength));
    cdp.on("Network.loadingFailed", (event) => finished(event.requestId, 0));
  }

  /** How long no request has been in flight, ms (0 while one is). */
  quietFor(): number {
    return this.inFlight > 0 ? 0 : performance.now() - this.lastActivity;
  }

  requests(): LabRunCapture["requests"] {
    return [...this.started.values()].map(({ url, type, bytes }) => ({ url, type: type.toLowerCase(), bytes }));
  }
}
