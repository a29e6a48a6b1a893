/**
 * The homepage's time to first byte, against real local sites: timed from the request on the
 * wire (a slow TLS handshake is not the server's time), one sample taken while nothing else of
 * the analysis loads the site. Also the 404 fingerprint's HEAD (a plain 404 needs no page;
 * anything else is asked with GET).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { analyze } from "../../server/analyzer/analyze.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { blogHomepage } from "../helpers/sites.ts";
import { type Certificate, hasOpenssl, makeCertificate, type RemoteSite, startRemoteTlsSite } from "./remote-site.ts";

const UA = "wpreport-test";

interface Logged {
  method: string;
  path: string;
  start: number;
  end: number;
}

/** A WordPress-like blog whose homepage takes `homepageMs` to answer; unknown paths: `notFound`. */
function startSite(options: { homepageMs: number; notFound?: (method: string) => Response }) {
  const log: Logged[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const entry: Logged = {
        method: request.method,
        path: url.pathname + url.search,
        start: performance.now(),
        end: 0,
      };
      log.push(entry);
      let response: Response;
      if (url.pathname === "/") {
        await Bun.sleep(options.homepageMs);
        response = new Response(request.method === "HEAD" ? null : blogHomepage(url.origin), {
          headers: { "content-type": "text/html; charset=UTF-8" },
        });
      } else {
        response =
          options.notFound?.(request.method) ??
          new Response(request.method === "HEAD" ? null : "<html><body>Not found</body></html>", {
            status: 404,
            headers: { "content-type": "text/html" },
          });
      }
      entry.end = performance.now();
      return response;
    },
  });
  const url = `http://127.0.0.1:${server.port}/`;
  return { url, log, policy: new TargetPolicy([`127.0.0.1:${server.port}`]), stop: () => server.stop(true) };
}

async function analyzeSite(site: { url: string; policy: TargetPolicy }) {
  const agent = createSafeAgent(site.policy);
  try {
    return await analyze(site.url, { agent, policy: site.policy, userAgent: UA }, AbortSignal.timeout(20_000));
  } finally {
    await agent.close();
  }
}

describe("the homepage's time to first byte", () => {
  test("a fast first byte is one sample: the homepage is asked once, before anything else", async () => {
    const site = startSite({ homepageMs: 30 });
    try {
      const report = await analyzeSite(site);
      const homepages = site.log.filter((entry) => entry.path === "/");
      expect(homepages).toHaveLength(1);
      expect(site.log[0]?.path).toBe("/");
      // Nothing else was asked while it loaded: the sample is of the site alone.
      expect(site.log.slice(1).every((entry) => entry.start >= (homepages[0] as Logged).end)).toBe(true);
      expect(report.performance?.ttfb_samples_ms).toHaveLength(1);
      expect(report.performance?.ttfb_ms).toBe(report.performance?.ttfb_samples_ms[0] ?? null);
      expect(report.performance?.ttfb_ms).toBeGreaterThanOrEqual(30);
      expect(report.performance?.ttfb_ms).toBeLessThan(500);
    } finally {
      site.stop();
    }
  });

  test("a slow first byte is one sample too: the homepage is asked once, and no more after the probes", async () => {
    const site = startSite({ homepageMs: 900 });
    try {
      const report = await analyzeSite(site);
      expect(site.log.filter((entry) => entry.path === "/")).toHaveLength(1);
      expect(site.log.length).toBeGreaterThan(20);
      expect(report.performance?.ttfb_samples_ms).toHaveLength(1);
      expect(report.performance?.ttfb_ms).toBeGreaterThanOrEqual(900);
    } finally {
      site.stop();
    }
  });
});

describe("the 404 fingerprint (a path that cannot exist)", () => {
  const fingerprint = (log: Logged[]) => log.filter((entry) => entry.path.includes("-not-found/"));

  test("a plain 404 is asked with HEAD alone: no page is needed to compare with", async () => {
    const site = startSite({ homepageMs: 0 });
    try {
      await analyzeSite(site);
      expect(fingerprint(site.log).map((entry) => entry.method)).toEqual(["HEAD"]);
    } finally {
      site.stop();
    }
  });

  test("a site that answers 200 for every path is asked with GET too: its page is the fingerprint that keeps soft 404s from reading as found files", async () => {
    const page = "<html><head><title>Oops</title></head><body>Nothing here, sorry.</body></html>";
    const site = startSite({
      homepageMs: 0,
      notFound: (method) => new Response(method === "HEAD" ? null : page, { headers: { "content-type": "text/html" } }),
    });
    try {
      const report = await analyzeSite(site);
      expect(fingerprint(site.log).map((entry) => entry.method)).toEqual(["HEAD", "GET"]);
      // Every exposed-file probe got that page with a 200: none is reported found.
      expect(report.security?.exposed_files).toEqual([]);
    } finally {
      site.stop();
    }
  });

  test("a site that redirects unknown paths is asked with GET after the unfollowed HEAD", async () => {
    const site = startSite({
      homepageMs: 0,
      notFound: () => new Response(null, { status: 301, headers: { location: "/" } }),
    });
    try {
      await analyzeSite(site);
      const asked = fingerprint(site.log).map((entry) => entry.method);
      expect(asked).toEqual(["HEAD", "GET"]);
    } finally {
      site.stop();
    }
  });
});

describe.skipIf(!hasOpenssl)("a slow TLS handshake is not the server's time", () => {
  let certificate: Certificate;
  let site: RemoteSite;
  let front: net.Server;
  let url: string;
  const HANDSHAKE_DELAY_MS = 400;
  beforeAll(async () => {
    certificate = makeCertificate();
    site = await startRemoteTlsSite(certificate);
    // Before the site, a TCP relay that opens each connection's path to it only after a wait:
    // the client's TLS handshake — part of connecting — takes that long; requests on the
    // connection then go at the site's own pace.
    front = net.createServer((client) => {
      client.pause();
      setTimeout(() => {
        const upstream = net.connect(Number(new URL(site.url).port), "127.0.0.1", () => {
          client.pipe(upstream).pipe(client);
          client.resume();
        });
        const close = () => {
          client.destroy();
          upstream.destroy();
        };
        upstream.on("error", close);
        client.on("error", close);
        upstream.on("close", close);
        client.on("close", close);
      }, HANDSHAKE_DELAY_MS);
    });
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", () => resolve()));
    url = `https://localhost:${(front.address() as net.AddressInfo).port}/`;
  });
  afterAll(() => {
    front.close();
    site.stop();
  });

  test("the homepage's TTFB is timed from the request on the wire; its timing row keeps the connection's set-up", async () => {
    const policy = new TargetPolicy([`localhost:${new URL(url).port}`]);
    const agent = createSafeAgent(policy, undefined, [], { extraCa: [certificate.cert] });
    try {
      const report = await analyze(url, { agent, policy, userAgent: UA }, AbortSignal.timeout(20_000));
      const row = report.performance?.requests[0];
      expect(row?.url).toBe(url);
      // The row is the waterfall: connecting (the delayed handshake) and the answer.
      expect(row?.ttfb_ms ?? 0).toBeGreaterThanOrEqual(HANDSHAKE_DELAY_MS);
      // The fact is the server's: the site answers at once.
      expect(report.performance?.ttfb_ms ?? Number.POSITIVE_INFINITY).toBeLessThan(HANDSHAKE_DELAY_MS / 2);
      expect(report.performance?.ttfb_samples_ms).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });
});
