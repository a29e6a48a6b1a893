/**
 * Who sent a request and to which address: the peer address, the client behind trusted
 * proxies, and the origin the client used — plus a Request that Elysia routes correctly.
 *
 * Why here and not in the app: the app runs through `app.handle(request)`, where Elysia's
 * `server` is null, so only the Bun.serve wrapper (server.ts) can ask `server.requestIP()`.
 * It records the peer in the request context; everything else reads it from there.
 */
import os from "node:os";
import ipaddr from "ipaddr.js";
import { requestContext } from "./request-context.ts";

/**
 * Elysia 1.4 finds the path with `url.indexOf("/", 11)`, assuming `http://` plus a host of
 * at least four characters. A short Host header (`Host: x` gives `http://x/abc/api/usage`)
 * or none at all (Bun then gives a bare `/abc/api/usage`) makes it route a different path
 * than the one requested. We hand Elysia a Request whose URL it reads right: the parsed
 * path and query on a fixed internal origin. The real Host stays in the headers, and the
 * client's origin is taken from there (requestOrigin), never from `request.url`.
 */
const INTERNAL_ORIGIN = "http://wpreport.internal";

export function routableRequest(request: Request): Request {
  const raw = request.url;
  const start = raw.indexOf("/", 11);
  const naive = start === -1 ? "/" : raw.slice(start);
  const target = pathAndQuery(raw);
  if (naive === target && raw.startsWith("http")) return request;
  return new Request(INTERNAL_ORIGIN + target, request);
}

/** Path and query of a request URL, whether absolute (`http://h/p?q`) or bare (`/p?q`). */
function pathAndQuery(raw: string): string {
  try {
    // A bare path (no Host) is appended, so `//evil/x` stays a path, not a host.
    const url = new URL(raw.startsWith("/") ? INTERNAL_ORIGIN + raw : raw);
    return url.pathname + url.search;
  } catch {
    return "/";
  }
}

/** An address in its plain form: `::ffff:1.2.3.4` is 1.2.3.4; anything else invalid → undefined. */
function plainAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim().replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(trimmed)) return undefined;
  return ipaddr.process(trimmed).toString();
}

/**
 * The client's address. Without proxies it is the TCP peer. With TRUST_PROXY=N (N proxies of
 * ours in front), it is the address the outermost of them saw: counted from the right of
 * X-Forwarded-For, because entries on the left are whatever the client chose to send.
 */
export function clientAddress(request: Request, trustedProxies: number): string {
  const peer = plainAddress(requestContext(request).peer) ?? "unknown";
  if (trustedProxies <= 0) return peer;
  const hops = (request.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const chain = [...hops, peer];
  // chain[last] is our nearest proxy; each trusted proxy vouches for the entry to its left.
  const index = Math.max(0, chain.length - 1 - trustedProxies);
  return plainAddress(chain[index]) ?? peer;
}

export interface OriginOptions {
  /** PUBLIC_BASE_URL, or the default when it is unset. */
  publicBaseUrl: string;
  /** True when PUBLIC_BASE_URL was set: then it is the only origin that is ours. */
  publicBaseUrlSet: boolean;
  trustedProxies: number;
}

/** The last value of a (possibly repeated, comma-joined) forwarding header: the one our proxy set. */
function lastForwarded(request: Request, name: string): string | undefined {
  const values = (request.headers.get(name) ?? "").split(",").map((value) => value.trim());
  return values.at(-1) || undefined;
}

/** A Host header value that is a plain host[:port] (a name, an IPv4 address or a bracketed IPv6 one). */
const HOST_HEADER = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/**
 * The origin (scheme://host[:port]) and base URL this request belongs to. With
 * PUBLIC_BASE_URL set, always that. Unset, the origin the client used — its Host header,
 * and behind trusted proxies X-Forwarded-Host/-Proto — so that opening the service at
 * http://127.0.0.1:3000/ or at its server's name works without configuration. A Host that
 * is not a plain host[:port] falls back to the default base.
 */
export function requestBase(request: Request, options: OriginOptions): { origin: string; baseUrl: string } {
  const configured = { origin: new URL(options.publicBaseUrl).origin, baseUrl: options.publicBaseUrl };
  if (options.publicBaseUrlSet) return configured;
  const proxied = options.trustedProxies > 0;
  const host = (proxied ? lastForwarded(request, "x-forwarded-host") : undefined) ?? request.headers.get("host");
  const proto = proxied ? lastForwarded(request, "x-forwarded-proto")?.toLowerCase() : undefined;
  const scheme = proto === "https" ? "https" : "http";
  if (!host || !HOST_HEADER.test(host)) return configured;
  try {
    const url = new URL(`${scheme}://${host}`);
    // Only names that cannot be rebound by someone else's DNS: IP literals, localhost and this
    // machine's own name. A page on attacker.example that rebinds its name to 127.0.0.1 must not
    // count as our origin (DNS rebinding); serve other names with PUBLIC_BASE_URL set.
    if (!isOwnHostName(url.hostname)) return configured;
    return { origin: url.origin, baseUrl: url.origin };
  } catch {
    return configured;
  }
}

/**
 * The OpenAPI document's `servers` URL: PUBLIC_BASE_URL when set; otherwise the origin the
 * document was asked at (its Host, behind trusted proxies X-Forwarded-Host/-Proto), whatever the
 * host name — the document is public, so unlike the web forms' origin (requestBase) there is
 * nothing to guard against DNS rebinding, and a service reached by its LAN name describes itself
 * by that name. A `localhost` name is written as the loopback address it stands for (127.0.0.1,
 * or [::1] when the request came over IPv6): linters read a `localhost` server as a placeholder
 * left in the document (Redocly's no-server-example.com), and the address is the same place.
 */
export function documentServerUrl(request: Request, options: OriginOptions): string {
  let base = options.publicBaseUrl;
  if (!options.publicBaseUrlSet) {
    const proxied = options.trustedProxies > 0;
    const host = (proxied ? lastForwarded(request, "x-forwarded-host") : undefined) ?? request.headers.get("host");
    const proto = proxied ? lastForwarded(request, "x-forwarded-proto")?.toLowerCase() : undefined;
    if (host && HOST_HEADER.test(host)) base = `${proto === "https" ? "https" : "http"}://${host}`;
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    url = new URL(options.publicBaseUrl);
  }
  const name = url.hostname.toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost")) {
    const peer = plainAddress(requestContext(request).peer);
    url.hostname = peer && ipaddr.parse(peer).kind() === "ipv6" ? "[::1]" : "127.0.0.1";
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

function isOwnHostName(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (ipaddr.isValid(bare) || bare === "localhost" || bare.endsWith(".localhost")) return true;
  const own = os.hostname().toLowerCase();
  return bare === own || bare.startsWith(`${own}.`);
}

/**
 * The address the log-in throttle may count a client by, or undefined when the peer says
 * nothing about who the client is. Without TRUST_PROXY, a peer of 127.0.0.1 or ::1 is where a
 * reverse proxy on this machine connects from (nginx with a bare `proxy_pass` adds no
 * X-Forwarded-For): every client behind it has that one address, and counting it would make
 * one throttle for everybody — an attacker's guesses would lock out every user. Other
 * addresses, 127.0.0.2 and up included, are clients of their own.
 */
export function throttleClient(clientIp: string, trustedProxies: number): string | undefined {
  if (trustedProxies > 0) return clientIp;
  const bare = clientIp.replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(bare)) return undefined;
  const address = ipaddr.process(bare).toString();
  return address === "127.0.0.1" || address === "::1" ? undefined : address;
}

/** True for 127.0.0.0/8, ::1 and localhost names: someone on this very machine. */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === "loopback";
}
