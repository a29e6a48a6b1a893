/**
 * A "remote site" for the benchmarks: a reverse proxy on 127.0.0.1:<free port> in front of a
 * local site that answers every request BENCH_RTT_MS later, so each request's time to first
 * byte is one round trip plus the site's own time (the model bench/analyze.ts uses;
 * bandwidth and TLS handshakes are not modelled). The WordPress fixture only answers to its
 * own host name and redirects any other port to its own, so the proxy sends the upstream's
 * Host and rewrites the upstream origin to its own in Location headers and text bodies.
 *
 *   bun bench/rtt-proxy.ts http://127.0.0.1:8088/ 50    # prints the proxy's origin
 */
const upstream = new URL(process.argv[2] ?? "http://127.0.0.1:8088/");
const rttMs = Number(process.argv[3] ?? 50);
const TEXT = /^(text\/|application\/(json|xml|rss\+xml|atom\+xml|javascript))/;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 60,
  async fetch(request) {
    await Bun.sleep(rttMs);
    const url = new URL(request.url);
    const target = new URL(url.pathname + url.search, upstream);
    const headers = new Headers(request.headers);
    headers.set("host", upstream.host);
    const response = await fetch(target, {
      method: request.method,
      headers,
      body: request.body,
      redirect: "manual",
      decompress: true,
    });
    const own = `${url.protocol}//${url.host}`;
    const out = new Headers(response.headers);
    out.delete("content-encoding");
    out.delete("content-length");
    const location = out.get("location");
    if (location) out.set("location", location.replaceAll(upstream.origin, own));
    const type = out.get("content-type") ?? "";
    const body = TEXT.test(type)
      ? (await response.text())
          .replaceAll(upstream.origin, own)
          .replaceAll(upstream.origin.replaceAll("/", "\\/"), own.replaceAll("/", "\\/")) // JSON-escaped
      : response.body;
    return new Response(body, { status: response.status, headers: out });
  },
});
console.log(`http://127.0.0.1:${server.port}/`);
