/**
 * The lab run in Debian's Chromium against loopback pages: the metrics of a page with a known
 * layout shift and long task, of a plain fast page, and the safety core — every request the
 * browser makes goes through the policy proxy, which refuses what the target policy refuses.
 * Throttling is off (`none`), as for CI on a fast network.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type dns from "node:dns";
import { existsSync } from "node:fs";
import { auditLab } from "../../../server/analyzer/audit/performance/lab.ts";
import { extractLab } from "../../../server/analyzer/extract/lab.ts";
import { TargetPolicy } from "../../../server/analyzer/fetch/target-policy.ts";
import type { LabCapture } from "../../../server/analyzer/lab/capture.ts";
import { type LabRunOptions, runLab } from "../../../server/analyzer/lab/lab-run.ts";
import { loadArtifacts, WP_FIXTURE } from "../artifacts.ts";
import { factsOf, statusOf } from "../facts.ts";
import { type LabPages, startLabPages } from "./pages.ts";

const CHROMIUM = "/usr/bin/chromium";

/** Names the pages use, resolved by the proxy (Chromium resolves nothing): both are loopback. */
const resolve = ((
  host: string,
  _options: unknown,
  callback: (error: unknown, addresses: dns.LookupAddress[]) => void,
) => {
  if (host === "lab-site.test" || host === "lab-rebind.test")
    return callback(null, [{ address: "127.0.0.1", family: 4 }]);
  callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" }), []);
}) as unknown as typeof dns.lookup;

let pages: LabPages;
beforeAll(() => {
  pages = startLabPages();
});
afterAll(() => pages.stop());

async function lab(path: string, overrides: Partial<LabRunOptions> = {}): Promise<LabCapture> {
  const policy = new TargetPolicy([`127.0.0.1:${pages.port}`]);
  return await runLab(`${pages.origin}${path}`, {
    executablePath: CHROMIUM,
    policy,
    resolve,
    device: "mobile",
    throttling: "none",
    runs: 1,
    timeoutMs: 60_000,
    maxMemoryMb: 4096,
    maxBytes: 32 * 1024 * 1024,
    userAgentName: "wpreport-lab-test",
    ...overrides,
  });
}

describe.skipIf(!existsSync(CHROMIUM))("lab run in Chromium", () => {
  test("a page with a known layout shift and a 450 ms long task after first paint: CLS > 0.1, TBT > 200 ms", async () => {
    const capture = await lab("/shift/");
    expect(capture.status).toBe("complete");
    const report = extractLab(capture, null, pages.origin);
    expect(report.metrics?.cls).toBeGreaterThan(0.1);
    expect(report.metrics?.tbt_ms).toBeGreaterThan(200);
    // The shift names what moved, and the long task names the page's own inline script.
    expect(report.layout_shifts.length).toBeGreaterThan(0);
    expect(report.layout_shifts.every((shift) => shift.elements.length > 0)).toBe(true);
    expect(report.long_tasks[0]?.duration_ms).toBeGreaterThanOrEqual(450);
    expect(report.long_tasks[0]?.scripts[0]?.url).toBe(`${pages.origin}/shift/`);
    expect(report.long_tasks[0]?.component).toEqual({ kind: "site", slug: null, origin: pages.origin });
    expect(report.thumbnail).toMatch(/^data:image\/jpeg;base64,/);
    // Its CLS check does not pass (nor its TBT check).
    const facts = factsOf(loadArtifacts(WP_FIXTURE));
    const checks = auditLab({ ...facts, performance: { ...facts.performance, lab: report } });
    expect(statusOf(checks, "performance.cls")).not.toBe("pass");
    expect(statusOf(checks, "performance.tbt")).not.toBe("pass");
  }, 90_000);

  test("a plain fast page: LCP < 1.5 s, CLS < 0.05, TBT < 150 ms, over 3 loads with their spread", async () => {
    const capture = await lab("/fast/", { runs: 3 });
    expect(capture.status).toBe("complete");
    expect(capture.runs).toHaveLength(3);
    const report = extractLab(capture, null, pages.origin);
    expect(report.completed_runs).toBe(3);
    expect(report.metrics?.lcp_ms).toBeLessThan(1_500);
    expect(report.metrics?.cls).toBeLessThan(0.05);
    expect(report.metrics?.tbt_ms).toBeLessThan(150);
    expect(report.lcp_element?.kind).toBe("text");
    const spread = report.spread?.lcp_ms;
    expect(spread?.min).toBeLessThanOrEqual(report.metrics?.lcp_ms as number);
    expect(spread?.max).toBeGreaterThanOrEqual(report.metrics?.lcp_ms as number);
  }, 120_000);

  test("a non-allowlisted loopback address (another port) is never reached: not by tag, fetch, redirect, CONNECT, WebSocket or a name", async () => {
    const capture = await lab("/leaky/");
    expect(capture.status).toBe("complete");
    expect(pages.forbidden.hits()).toBe(0);
    expect(capture.refused.count).toBeGreaterThanOrEqual(5);
    const refused = capture.refused.examples.map((refusal) => refusal.target).join(" ");
    expect(refused).toContain(`127.0.0.1:${pages.forbidden.port}`);
    // A name is resolved by the proxy, not by Chromium: the allowlisted one is reached.
    expect(pages.seen.has("/named-allowed.png")).toBe(true);
    // The redirect itself was asked (and answered); its target was not.
    expect(pages.seen.has("/redirect-away")).toBe(true);
  }, 90_000);

  test("site credentials go to the site's own origin only", async () => {
    const capture = await lab("/leaky/", {
      siteAuth: {
        basic: { username: "staging", password: "s3cret-pass" },
        headers: { "cf-access-client-id": "abc123" },
      },
    });
    expect(capture.status).toBe("complete");
    expect(pages.seen.get("/leaky/")?.get("authorization")).toBe(`Basic ${btoa("staging:s3cret-pass")}`);
    expect(pages.seen.get("/leaky/")?.get("cf-access-client-id")).toBe("abc123");
    // lab-site.test:<port> is the same server under another origin: no credentials there.
    expect(pages.seen.get("/named-allowed.png")?.get("authorization")).toBeNull();
    expect(pages.seen.get("/named-allowed.png")?.get("cf-access-client-id")).toBeNull();
    expect(pages.forbidden.hits()).toBe(0);
  }, 90_000);

  test("a page that never finishes loading: the deadline kills the browser and the run fails with its reason", async () => {
    const capture = await lab("/slow/", { timeoutMs: 4_000 });
    expect(capture.status).toBe("failed");
    expect(capture.reason).toContain("did not finish within 4 s");
  }, 60_000);

  test("a browser over its memory cap is killed and the run fails", async () => {
    const capture = await lab("/fast/", { maxMemoryMb: 1 });
    expect(capture.status).toBe("failed");
    expect(capture.reason).toContain("more than 1 MB of memory");
  }, 60_000);

  test("no Chromium: the lab is unavailable", async () => {
    const capture = await lab("/fast/", { executablePath: undefined });
    expect(capture.status).toBe("unavailable");
    expect(extractLab(capture, null, pages.origin).metrics).toBeNull();
  });
});
