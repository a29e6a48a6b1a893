/**
 * A WordPress-like site for the gather/transport tests, served for real on loopback: over
 * plain HTTP/1.1 (Bun.serve) or over HTTPS offering h2 and http/1.1 through ALPN (node:http2,
 * which runs under Bun), with a self-signed certificate made at test time with openssl.
 *
 * Every exchange is logged with the client's TCP connection (remote port) and the HTTP
 * version it used, and a test can hold answers (`hold`) to see what the analyzer asks while
 * it waits — what is asked before an answer cannot depend on it.
 */
import http2 from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { makeSelfSignedCertificate } from "../../scripts/self-signed-certificate.ts";
import { blogHomepage } from "../helpers/sites.ts";

export interface Exchange {
  method: string;
  path: string;
  /** Remote address:port of the client's connection: one value per TCP connection. */
  connection: string;
  httpVersion: string;
}

export interface RemoteSite {
  url: string;
  log: Exchange[];
  /** Distinct client TCP connections seen. */
  connections(): number;
  /**
   * Holds the answers to requests that `which` picks until `until(log)` holds (asked at each
   * new request), then lets them all go and holds no more. Resolves true when released by
   * `until`, false when it never held within 5 s (the answers then go anyway, so a failing
   * test fails on its assertion instead of hanging).
   */
  hold(until: (log: Exchange[]) => boolean, which?: (exchange: Exchange) => boolean): Promise<boolean>;
  stop(): void;
}

export interface Certificate {
  cert: string;
  key: string;
}

export { hasOpenssl } from "../../scripts/self-signed-certificate.ts";

/** A self-signed certificate for localhost and 127.0.0.1, made with openssl. */
export function makeCertificate(): Certificate {
  const { cert, key } = makeSelfSignedCertificate("wpreport-test-tls-");
  return { cert, key };
}

/** The site's pages: a blog with a child theme, a plugin, REST (users), a feed and assets. */
function answer(method: string, pathname: string, search: string, origin: string): Response {
  const html = { "content-type": "text/html; charset=UTF-8" };
  const json = { "content-type": "application/json" };
  const css = { "content-type": "text/css" };
  if (pathname === "/") {
    const body = blogHomepage(origin).replace(
      "</head>",
      `<link rel="stylesheet" href="${origin}/wp-content/themes/child/style.css?ver=1.0">
<link rel="stylesheet" href="${origin}/wp-content/themes/child/print.css?ver=1.0">
<script src="${origin}/wp-content/plugins/akismet/form.js?ver=5.0"></script>
<script src="${origin}/wp-includes/js/jquery/jquery.min.js?ver=3.6"></script>
<script src="${origin}/wp-includes/js/wp-embed.min.js?ver=6.4.2"></script></head>`,
    );
    return new Response(method === "HEAD" ? null : body, { headers: html });
  }
  const query = new URLSearchParams(search);
  if (pathname === "/wp-json/" && [...query.keys()].every((key) => key === "_fields")) {
    const index = { name: "Blog", namespaces: ["oembed/1.0", "wp/v2", "contact-form-7/v1"], routes: {} };
    // As WordPress does: `_fields` keeps the fields it names.
    const fields = query.get("_fields")?.split(",");
    return Response.json(
      fields ? Object.fromEntries(Object.entries(index).filter(([key]) => fields.includes(key))) : index,
    );
  }
  if (pathname === "/wp-json/wp/v2/users") {
    return new Response(JSON.stringify([{ id: 1, name: "Admin", slug: "admin" }]), { headers: json });
  }
  if (pathname === "/wp-json/oembed/1.0/embed") {
    return new Response(JSON.stringify({ author_name: "Admin", author_url: `${origin}/author/admin/` }), {
      headers: json,
    });
  }
  if (pathname === "/feed/") {
    return new Response(
      `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><item><title>Hello</title><link>${origin}/hello-world/</link></item></channel></rss>`,
      { headers: { "content-type": "application/rss+xml" } },
    );
  }
  if (pathname === "/wp-content/themes/child/style.css") {
    return new Response("/*\nTheme Name: Child\nTemplate: parent\nVersion: 1.0\n*/", { headers: css });
  }
  if (pathname === "/wp-content/themes/parent/style.css") {
    return new Response("/*\nTheme Name: Parent\nVersion: 2.1\n*/", { headers: css });
  }
  if (pathname === "/robots.txt") {
    return new Response(`User-agent: *\nDisallow:\nSitemap: ${origin}/wp-sitemap.xml\n`, {
      headers: { "content-type": "text/plain" },
    });
  }
  if (pathname === "/wp-sitemap.xml") {
    return new Response(`<?xml version="1.0"?><urlset><url><loc>${origin}/</loc></url></urlset>`, {
      headers: { "content-type": "application/xml" },
    });
  }
  if (pathname.startsWith("/wp-content/") || pathname.startsWith("/wp-includes/")) {
    if (pathname.endsWith(".js") || pathname.endsWith(".css")) {
      return new Response("/* asset */", { headers: { "content-type": "text/plain", "cache-control": "max-age=60" } });
    }
  }
  return new Response(method === "HEAD" ? null : "<html><body>Not found</body></html>", {
    status: 404,
    headers: html,
  });
}

function createLog() {
  const log: Exchange[] = [];
  let gate: {
    until: (log: Exchange[]) => boolean;
    which: (exchange: Exchange) => boolean;
    done(byRule: boolean): void;
  } | null = null;
  const waiting: (() => void)[] = [];
  const open = (byRule: boolean) => {
    gate?.done(byRule);
    gate = null;
    for (const go of waiting.splice(0)) go();
  };
  return {
    log,
    hold(until: (log: Exchange[]) => boolean, which: (exchange: Exchange) => boolean = () => true) {
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => open(false), 5_000);
        gate = {
          until,
          which,
          done: (byRule) => {
            clearTimeout(timer);
            resolve(byRule);
          },
        };
      });
    },
    /** Logs the exchange; resolves when its answer may go. */
    seen(exchange: Exchange): Promise<void> {
      log.push(exchange);
      if (!gate) return Promise.resolve();
      if (gate.until(log)) {
        open(true);
        return Promise.resolve();
      }
      if (!gate.which(exchange)) return Promise.resolve();
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    connections: () => new Set(log.map((entry) => entry.connection)).size,
  };
}

/** Over plain HTTP/1.1. */
export function startRemoteSite(): RemoteSite {
  const state = createLog();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(request, self) {
      const url = new URL(request.url);
      const peer = self.requestIP(request);
      await state.seen({
        method: request.method,
        path: url.pathname + url.search,
        connection: `${peer?.address}:${peer?.port}`,
        httpVersion: "1.1",
      });
      return answer(request.method, url.pathname, url.search, url.origin);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/`,
    log: state.log,
    connections: state.connections,
    hold: state.hold,
    stop: () => server.stop(true),
  };
}

/** What stands before the site for a request (a firewall), or undefined to let the site answer. */
export type Filter = (method: string, pathname: string) => Response | undefined;

/** Over HTTPS: ALPN offers h2 and http/1.1, the client picks; `filter` answers first when it will. */
export async function startRemoteTlsSite(certificate: Certificate, filter?: Filter): Promise<RemoteSite> {
  const state = createLog();
  const sockets = new Set<Socket>();
  const server = http2.createSecureServer({ ...certificate, allowHTTP1: true });
  server.on("connection", (socket: Socket) => sockets.add(socket));
  server.on("request", async (request: http2.Http2ServerRequest, response: http2.Http2ServerResponse) => {
    const url = new URL(request.url, "https://localhost");
    const socket = request.socket;
    await state.seen({
      method: request.method,
      path: url.pathname + url.search,
      connection: `${socket.remoteAddress}:${socket.remotePort}`,
      httpVersion: request.httpVersion,
    });
    const origin = `https://${request.headers[":authority"] ?? request.headers.host}`;
    const reply = filter?.(request.method, url.pathname) ?? answer(request.method, url.pathname, url.search, origin);
    const headers: Record<string, string> = {};
    for (const [name, value] of reply.headers) headers[name] = value;
    response.writeHead(reply.status, headers);
    if (request.method === "HEAD") response.end();
    else response.end(Buffer.from(await reply.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}/`,
    log: state.log,
    connections: state.connections,
    hold: state.hold,
    stop: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
