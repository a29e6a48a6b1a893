/**
 * The analyzer's network client against real loopback servers: the target policy is
 * applied after DNS resolution and on every redirect hop, bodies are capped after
 * decompression, and slow or looping sites end within their limits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import type dns from "node:dns";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { createSafeAgent, policyLookup } from "../../server/analyzer/fetch/safe-agent.ts";
import { FetchFailure, SafeClient } from "../../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { busiestWindow } from "../helpers/request-windows.ts";
import { startSite, type TestSite } from "../helpers/sites.ts";

const UA = "wpreport-test";

function client(allowlist: string[], limits = {}, deadline = AbortSignal.timeout(10_000)) {
  const policy = new TargetPolicy(allowlist);
  return new SafeClient(createSafeAgent(policy), policy, deadline, UA, {
    maxBodyBytes: 1024 * 1024,
    maxRedirects: 3,
    requestTimeoutMs: 2_000,
    concurrency: 4,
    maxTotalBytes: 32 * 1024 * 1024,
    ...limits,
  });
}

async function failureOf(promise: Promise<unknown>): Promise<FetchFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FetchFailure) return error;
    throw error;
  }
  throw new Error("expected a FetchFailure");
}

/** A page of text, and 64 KB that does not compress (so it is as long sent as decoded). */
const PAGE = "<html><body>".concat("<p>WordPress page text, over and over.</p>\n".repeat(2_000), "</body></html>");
const NOISE = randomBytes(64 * 1024);

describe("SafeClient", () => {
  let site: TestSite;
  beforeAll(() => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024)); // 50 MB of zeros → ~50 KB gzip
    const gzipped = gzipSync(PAGE);
    const encoded = (body: Buffer<ArrayBuffer>, encoding: string) => () =>
      new Response(body, { headers: { "content-encoding": encoding, "content-type": "text/html" } });
    site = startSite({
      "/hop": () => new Response(null, { status: 302, headers: { location: "/landed" } }),
      "/landed": () => new Response("landed"),
      "/other": () => new Response("other"),
      "/page.gz": encoded(gzipped, "gzip"),
      "/page.deflate": encoded(deflateSync(PAGE), "deflate"),
      "/page.br": encoded(brotliCompressSync(PAGE), "br"),
      "/noise.gz": encoded(gzipSync(NOISE), "gzip"),
      // The first half of the gzip stream (its end and checksum missing), and no gzip at all.
      "/cut.gz": encoded(gzipped.subarray(0, Math.floor(gzipped.byteLength / 2)), "gzip"),
      "/garbage.gz": encoded(Buffer.from("not gzip at all"), "gzip"),
      "/": () => new Response("<html>home</html>", { headers: { "content-type": "text/html" } }),
      "/bomb": () => new Response(bomb, { headers: { "content-encoding": "gzip", "content-type": "text/html" } }),
      "/loop": () => new Response(null, { status: 302, headers: { location: "/loop" } }),
      "/to-metadata": () =>
        new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/" } }),
      "/to-private": () => new Response(null, { status: 301, headers: { location: "http://10.20.30.40/admin" } }),
      "/to-unspecified": (request) =>
        new Response(null, { status: 307, headers: { location: `http://0.0.0.0:${new URL(request.url).port}/` } }),
      "/to-file": () => new Response(null, { status: 302, headers: { location: "file:///etc/passwd" } }),
      "/drip": () =>
        new Response(
          new ReadableStream({
            async pull(controller) {
              await Bun.sleep(1000);
              controller.enqueue(new TextEncoder().encode("x"));
            },
          }),
        ),
    });
  });
  afterAll(() => site.stop());

  test("user agent and keep-alive fetch", async () => {
    const result = await client(["127.0.0.1"]).fetch(site.url);
    expect(result.status).toBe(200);
    expect(result.body.toString()).toBe("<html>home</html>");
  });

  test("a host name resolving to loopback is refused inside the connection's DNS lookup", async () => {
    const port = new URL(site.url).port;
    const before = site.hits.length;
    const failure = await failureOf(client([]).fetch(`http://localhost:${port}/`));
    expect(failure.kind).toBe("blocked");
    expect(failure.message).toContain("resolves to a loopback address");
    expect(site.hits.length).toBe(before);
  });

  test("IP literals are checked before connecting", async () => {
    const before = site.hits.length;
    expect((await failureOf(client([]).fetch(site.url))).kind).toBe("blocked");
    expect(site.hits.length).toBe(before);
  });

  test("every redirect hop is checked: to cloud metadata, a private network, 0.0.0.0, file:", async () => {
    const c = client(["127.0.0.1"]);
    expect((await failureOf(c.fetch(`${site.url}to-metadata`))).kind).toBe("blocked");
    expect((await failureOf(c.fetch(`${site.url}to-private`))).kind).toBe("blocked");
    expect((await failureOf(c.fetch(`${site.url}to-unspecified`))).kind).toBe("blocked");
    expect((await failureOf(c.fetch(`${site.url}to-file`))).kind).toBe("invalid_redirect");
  });

  test("redirect loops stop at the maximum", async () => {
    const c = client(["127.0.0.1"]);
    const failure = await failureOf(c.fetch(`${site.url}loop`));
    expect(failure.kind).toBe("too_many_redirects");
    expect(c.timings.length).toBe(4); // first request + 3 redirects
  });

  test("a gzip bomb stops at the decoded-size cap", async () => {
    const c = client(["127.0.0.1"], { maxBodyBytes: 256 * 1024 });
    const result = await c.fetch(`${site.url}bomb`);
    expect(result.truncated).toBe(true);
    expect(result.body.byteLength).toBe(256 * 1024);
    expect(c.timings[0]?.bytes).toBe(256 * 1024);
  });

  test("a redirect's next hop goes before the requests still waiting for a slot", async () => {
    const c = client(["127.0.0.1"], { concurrency: 1 });
    const from = site.hits.length;
    // /hop's slot goes to the first request waiting as it ends; its next hop goes next, before the second.
    await Promise.all([c.fetch(`${site.url}hop`), c.fetch(`${site.url}other`), c.fetch(`${site.url}other?2`)]);
    expect(site.hits.slice(from)).toEqual(["GET /hop", "GET /other", "GET /landed", "GET /other"]);
  });

  test("gzip, deflate and brotli bodies within the cap are decoded whole", async () => {
    const c = client(["127.0.0.1"]);
    for (const path of ["page.gz", "page.deflate", "page.br"]) {
      const result = await c.fetch(`${site.url}${path}`);
      expect(result.truncated).toBe(false);
      expect(result.body.toString()).toBe(PAGE);
    }
  });

  test("a compressed body exactly as long as the cap is whole; one byte less is cut", async () => {
    const exact = await client(["127.0.0.1"], { maxBodyBytes: PAGE.length }).fetch(`${site.url}page.gz`);
    expect(exact.truncated).toBe(false);
    expect(exact.body.toString()).toBe(PAGE);
    const short = await client(["127.0.0.1"], { maxBodyBytes: PAGE.length - 1 }).fetch(`${site.url}page.br`);
    expect(short.truncated).toBe(true);
    expect(short.body.toString()).toBe(PAGE.slice(0, -1));
  });

  test("a compressed body longer than the cap as sent is cut at the cap, its first bytes kept", async () => {
    const c = client(["127.0.0.1"], { maxBodyBytes: 16 * 1024 });
    const result = await c.fetch(`${site.url}noise.gz`);
    expect(result.truncated).toBe(true);
    expect(result.body.equals(NOISE.subarray(0, 16 * 1024))).toBe(true);
  });

  test("a gzip stream cut short keeps what decoded; a body that is not gzip fails as protocol", async () => {
    const c = client(["127.0.0.1"]);
    const cut = await c.fetch(`${site.url}cut.gz`);
    expect(cut.truncated).toBe(true);
    expect(cut.body.byteLength).toBeGreaterThan(0);
    expect(PAGE.startsWith(cut.body.toString())).toBe(true);
    const failure = await failureOf(c.fetch(`${site.url}garbage.gz`));
    expect(failure.kind).toBe("protocol");
    expect(failure.message).toContain("decompressed");
  });

  test("the analysis's total budget: a response is cut at what is left, then requests fail as `budget`", async () => {
    const c = client(["127.0.0.1"], { maxBodyBytes: 256 * 1024, maxTotalBytes: 400 * 1024 });
    const first = await c.fetch(`${site.url}bomb`);
    expect(first.body.byteLength).toBe(256 * 1024);
    const second = await c.fetch(`${site.url}bomb`);
    expect(second.truncated).toBe(true);
    expect(second.body.byteLength).toBe(144 * 1024);
    const third = await failureOf(c.fetch(`${site.url}`));
    expect(third.kind).toBe("budget");
    expect(third.message).toContain("409600 bytes");
    expect(c.timings).toHaveLength(2);
  });

  test("a 1-byte-per-second drip ends at the request timeout", async () => {
    const started = performance.now();
    const failure = await failureOf(client(["127.0.0.1"], { requestTimeoutMs: 1_500 }).fetch(`${site.url}drip`));
    expect(failure.kind).toBe("timeout");
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  test("the report deadline aborts requests in flight", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const failure = await failureOf(client(["127.0.0.1"], {}, controller.signal).fetch(`${site.url}drip`));
    expect(failure.kind).toBe("aborted");
  });
});

describe("SafeClient's pace", () => {
  test("no one-second window at the site holds more requests than the pace, across second boundaries and new connections too", async () => {
    // A token bucket of one second's worth (the pace before issue 30) let 2 × 10 through in
    // the first second: its full bucket, then a second's refill.
    const arrivals: number[] = [];
    const site = startSite({}, () => {
      arrivals.push(performance.now());
      return new Response("ok");
    });
    try {
      const paced = client(["127.0.0.1"], { requestsPerSecond: 10 });
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: 25 }, (_, i) => paced.fetch(`${site.url}p${i}`).then((result) => result.status)),
      );
      expect(answers).toEqual(Array(25).fill(200));
      expect(busiestWindow(arrivals)).toBeLessThanOrEqual(10);
      // 25 starts at 10 in any second: the last waits for two full windows.
      expect(performance.now() - started).toBeGreaterThanOrEqual(2_000);
      expect(paced.pacedRequests).toBeGreaterThan(0);
      expect(paced.pace).toBe(10);
    } finally {
      site.stop();
    }
  });

  test("a fractional pace is rounded down to whole requests, at least one", () => {
    expect(client([], { requestsPerSecond: 7.5 }).pace).toBe(7);
    expect(client([], { requestsPerSecond: 0.4 }).pace).toBe(1);
    expect(client([], {}).pace).toBe(0);
  });
});

describe("policyLookup", () => {
  const policy = new TargetPolicy([]);
  const fakeResolver = (answers: dns.LookupAddress[]) =>
    ((_host: string, _options: unknown, callback: (error: null, addresses: dns.LookupAddress[]) => void) =>
      callback(null, answers)) as unknown as typeof dns.lookup;

  function resolveWith(answers: dns.LookupAddress[]): Promise<unknown> {
    return new Promise((resolve, reject) =>
      policyLookup(policy, fakeResolver(answers))("example.test", { all: true }, (error, addresses) =>
        error ? reject(error) : resolve(addresses),
      ),
    );
  }

  test("passes public answers through, refuses any private one (rebinding-style mixed answers too)", async () => {
    expect(await resolveWith([{ address: "93.184.216.34", family: 4 }])).toEqual([
      { address: "93.184.216.34", family: 4 },
    ]);
    await expect(resolveWith([{ address: "10.0.0.5", family: 4 }])).rejects.toThrow("private network address");
    await expect(
      resolveWith([
        { address: "93.184.216.34", family: 4 },
        { address: "127.0.0.1", family: 4 },
      ]),
    ).rejects.toThrow("loopback");
    await expect(resolveWith([{ address: "::ffff:169.254.169.254", family: 6 }])).rejects.toThrow("link-local");
  });
});
