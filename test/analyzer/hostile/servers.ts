/**
 * Loopback servers for the hostile suites: hostile sites on 127.0.0.2 (all of 127/8 is
 * loopback on Linux, so a service allowlisting only 127.0.0.2 still refuses 127.0.0.1), and
 * traps on 127.0.0.1 / [::1] that must never see a request.
 */
import type { Server } from "bun";

export const HOSTILE_HOST = "127.0.0.2";

export type Route = (request: Request, site: HostileSite) => Response | Promise<Response>;

export interface HostileSite {
  /** Origin with a trailing slash, e.g. http://127.0.0.2:41234/ */
  url: string;
  port: number;
  /** Requests seen, as "METHOD /path?query". */
  hits: string[];
  /** Body bytes handed to the socket by streams made with `stream()` (to prove nothing read them all). */
  sent: { bytes: number };
  stop(): void;
}

/**
 * A site on 127.0.0.2 answering `routes` by path (then `fallback`, else 404). `port` pins the
 * port (0 = any free one).
 */
export function startHostileSite(routes: Record<string, Route>, fallback?: Route, port = 0): HostileSite {
  const hits: string[] = [];
  const site: HostileSite = { url: "", port: 0, hits, sent: { bytes: 0 }, stop: () => {} };
  const server: Server<undefined> = Bun.serve({
    hostname: HOSTILE_HOST,
    port,
    idleTimeout: 30,
    fetch(request) {
      const url = new URL(request.url);
      hits.push(`${request.method} ${url.pathname}${url.search}`);
      const route = routes[url.pathname] ?? fallback;
      return route ? route(request, site) : new Response("not found", { status: 404 });
    },
  });
  site.port = server.port ?? 0;
  site.url = `http://${HOSTILE_HOST}:${site.port}/`;
  site.stop = () => server.stop(true);
  return site;
}

/**
 * A body produced on demand, chunk by chunk, only as fast as the client reads it (pull):
 * `chunk(i)` returns the i-th chunk or null to end. Bytes handed out are counted on `site`.
 */
export function stream(site: HostileSite, chunk: (index: number) => Uint8Array | null, delayMs = 0): ReadableStream {
  let index = 0;
  return new ReadableStream({
    async pull(controller) {
      if (delayMs) await Bun.sleep(delayMs);
      const next = chunk(index++);
      if (next === null) {
        controller.close();
        return;
      }
      site.sent.bytes += next.byteLength;
      controller.enqueue(next);
    },
  });
}

export interface Trap {
  port: number;
  /** Requests that reached the trap on any of its addresses — must stay empty. */
  hits: string[];
  /** Addresses the trap listens on (127.0.0.1, and ::1 when the machine has IPv6 loopback). */
  hosts: string[];
  stop(): void;
}

/** Listens on 127.0.0.1 (and [::1], same port, when possible); records every request. */
export function startTrap(port = 0): Trap {
  const hits: string[] = [];
  const fetch = (request: Request) => {
    hits.push(`${request.method} ${request.url}`);
    return new Response("trap", { status: 418 });
  };
  const v4 = Bun.serve({ hostname: "127.0.0.1", port, fetch });
  const servers: Server<undefined>[] = [v4];
  const hosts = ["127.0.0.1"];
  try {
    servers.push(Bun.serve({ hostname: "::1", port: v4.port, fetch }));
    hosts.push("::1");
  } catch {
    // no IPv6 loopback here: the IPv6 cases are still refused, just without a listener behind them
  }
  const stop = () => {
    for (const server of servers) server.stop(true);
  };
  return { port: v4.port ?? 0, hits, hosts, stop };
}

/** Plain-words HTML page with WordPress markers, so a report has something to say. */
export function wordpressPage(origin: string, extra = "", title = "Hostile test site"): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="generator" content="WordPress 6.4.2">
<link rel="https://api.w.org/" href="${origin}wp-json/">
<link rel="stylesheet" href="${origin}wp-includes/css/dist/block-library/style.min.css?ver=6.4.2">
</head><body class="home blog wp-theme-twentytwentyfour">${extra}</body></html>`;
}

export const HTML = { "content-type": "text/html; charset=UTF-8" };
