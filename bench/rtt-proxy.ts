/**
 * A "remote site" for the benchmarks: a reverse proxy on 127.0.0.1:<free port> in front of a
 * local site that answers every request BENCH_RTT_MS later, so each request's time to first
 * byte is one round trip plus the site's own time (bandwidth and the TCP/TLS handshakes'
 * round trips are not modelled). The delay is per request on the connection that carries it:
 * over HTTP/1.1 a connection waits out each of its requests' round trips in turn, over HTTP/2
 * the streams of one connection wait theirs side by side — as on a real network.
 *
 * The WordPress fixture only answers to its own host name and redirects any other port to its
 * own, so the proxy sends the upstream's Host and rewrites the upstream origin to its own in
 * Location headers and text bodies.
 *
 *   bun bench/rtt-proxy.ts http://127.0.0.1:8088/ 50                     # plain HTTP/1.1
 *   bun bench/rtt-proxy.ts http://127.0.0.1:8088/ 50 --tls cert.pem key.pem  # HTTPS, ALPN h2 + http/1.1
 *   bun bench/rtt-proxy.ts http://127.0.0.1:8088/ 50 --cache   # answers from memory after the first time
 *
 * --cache models a site with room to spare (a page cache, a CDN): each distinct request reaches
 * the upstream once, then its answer is replayed (after the round trip), so the upstream's CPU
 * stops being what the analyzer waits on.
 *
 * It prints its origin (http://127.0.0.1:<port>/, or https://localhost:<port>/ with --tls).
 */
import { readFileSync } from "node:fs";
import http2 from "node:http2";

const upstream = new URL(process.argv[2] ?? "http://127.0.0.1:8088/");
const rttMs = Number(process.argv[3] ?? 50);
const tlsAt = process.argv.indexOf("--tls");
const cached = process.argv.includes("--cache") ? new Map<string, Promise<Answer>>() : null;
const TEXT = /^(text\/|application\/(json|xml|rss\+xml|atom\+xml|javascript))/;
/** Headers HTTP/2 forbids (RFC 9113 §8.2.2) and the ones the proxy recomputes. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "content-encoding",
  "content-length",
]);

interface Answer {
  status: number;
  headers: Headers;
  body: string | Uint8Array | ReadableStream<Uint8Array> | null;
}

/** Waits out the round trip, asks the upstream (or the cache), and rewrites its origin to `own`. */
async function forward(method: string, path: string, incoming: Headers, body: BodyInit | null, own: string) {
  await Bun.sleep(rttMs);
  if (!cached || method === "POST") return ask(method, path, incoming, body, own);
  const key = `${method} ${own} ${path}`;
  let answer = cached.get(key);
  if (!answer) {
    answer = ask(method, path, incoming, body, own).then(async (fresh) => ({
      ...fresh,
      body:
        fresh.body instanceof ReadableStream
          ? new Uint8Array(await new Response(fresh.body).arrayBuffer())
          : fresh.body,
    }));
    cached.set(key, answer);
  }
  const { status, headers, body: stored } = await answer;
  return { status, headers: new Headers(headers), body: stored };
}

async function ask(method: string, path: string, incoming: Headers, body: BodyInit | null, own: string) {
  const headers = new Headers(incoming);
  headers.set("host", upstream.host);
  const response = await fetch(new URL(path, upstream), {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? null : body,
    redirect: "manual",
    decompress: true,
  });
  const out = new Headers();
  for (const [name, value] of response.headers) if (!HOP_BY_HOP.has(name)) out.append(name, value);
  const location = out.get("location");
  if (location) out.set("location", location.replaceAll(upstream.origin, own));
  const type = out.get("content-type") ?? "";
  const answer: Answer = {
    status: response.status,
    headers: out,
    body: TEXT.test(type)
      ? (await response.text())
          .replaceAll(upstream.origin, own)
          .replaceAll(upstream.origin.replaceAll("/", "\\/"), own.replaceAll("/", "\\/")) // JSON-escaped
      : response.body,
  };
  return answer;
}

if (tlsAt < 0) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(request) {
      const url = new URL(request.url);
      const answer = await forward(
        request.method,
        url.pathname + url.search,
        request.headers,
        request.body,
        `${url.protocol}//${url.host}`,
      );
      return new Response(answer.body as BodyInit | null, { status: answer.status, headers: answer.headers });
    },
  });
  console.log(`http://127.0.0.1:${server.port}/`);
} else {
  // node:http2 (which runs under Bun) offers h2 and http/1.1 through ALPN; the client picks.
  const server = http2.createSecureServer({
    cert: readFileSync(process.argv[tlsAt + 1] as string),
    key: readFileSync(process.argv[tlsAt + 2] as string),
    allowHTTP1: true,
  });
  server.on("request", async (request: http2.Http2ServerRequest, response: http2.Http2ServerResponse) => {
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (name.startsWith(":") || HOP_BY_HOP.has(name) || value === undefined) continue;
        for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const own = `https://${request.headers[":authority"] ?? request.headers.host}`;
      const answer = await forward(request.method, request.url, headers, Buffer.concat(chunks), own);
      const head: Record<string, string | string[]> = {};
      for (const [name, value] of answer.headers) {
        if (name === "set-cookie") head[name] = answer.headers.getSetCookie();
        else head[name] = value;
      }
      response.writeHead(answer.status, head);
      if (answer.body === null) response.end();
      else if (typeof answer.body === "string" || answer.body instanceof Uint8Array) response.end(answer.body);
      else {
        for await (const chunk of answer.body) response.write(chunk);
        response.end();
      }
    } catch {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    }
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    console.log(`https://localhost:${port}/`);
  });
}
