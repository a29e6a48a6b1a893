/**
 * The lab browser's only way onto the network: an HTTP proxy in the worker process that applies
 * the service's target policy (fetch/target-policy.ts) to every request Chromium makes, with
 * the analyzer's own rules (docs/target-policy.md, "Lab").
 *
 * Chromium is started with `--proxy-server` pointing here and `--proxy-bypass-list=<-loopback>`
 * (nothing bypasses it, loopback included) and with a host resolver that resolves nothing
 * (browser-flags.ts), so Chromium never resolves a name itself: the proxy does.
 *
 *  - Plain http:// requests arrive in absolute form and are forwarded through an undici agent
 *    on the analyzer's policy connector (fetch/safe-agent.ts): the name is resolved and checked
 *    inside the connection's lookup, and the connection goes to exactly the address that passed — no DNS-rebinding
 *    window. IP literals are checked before.
 *  - https:// (and WebSockets) arrive as CONNECT host:port. The name is resolved and every
 *    address checked (policyLookup, the same function), and the tunnel is opened to the checked
 *    address: the pin holds for the tunnel's life, whatever the name resolves to afterwards.
 *  - Redirects are followed by Chromium, so each hop is a new request here and is checked again.
 *  - Bytes through the proxy are counted against a budget; past it, requests are refused.
 *
 * What was refused is recorded (the lab result says so); the proxy listens on 127.0.0.1 only,
 * on a port of its own per lab run, and is closed with it.
 */
import dns from "node:dns";
import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import ipaddr from "ipaddr.js";
import { Agent, request } from "undici/index.js";
import { policyConnector, policyLookup } from "../fetch/safe-agent.ts";
import { portOf, TargetBlockedError, type TargetPolicy } from "../fetch/target-policy.ts";

export interface PolicyProxyOptions {
  policy: TargetPolicy;
  /** A dns.lookup-shaped resolver (DNS_SERVERS: resolverLookup), dns.lookup by default. */
  resolve?: typeof dns.lookup;
  /** Bytes (both ways, bodies and tunnels) the browser may move in all; past it, refused. */
  maxBytes: number;
  /** Connect timeout of a tunnel, ms. */
  connectTimeoutMs?: number;
}

/** One request the proxy refused: where to, and why. */
export interface RefusedRequest {
  /** The URL (http) or host:port (CONNECT) asked for. */
  target: string;
  reason: string;
}

/** Refusals kept per run; the count goes on. */
const REFUSALS_KEPT = 20;

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);

export class PolicyProxy {
  private readonly server: http.Server;
  private readonly sockets = new Set<Duplex>();
  private readonly resolve: typeof dns.lookup;
  private readonly agent: Agent;
  /** Bytes moved so far, both ways. */
  bytes = 0;
  /** Requests and tunnels the policy (or the budget) refused. */
  refusedCount = 0;
  readonly refused: RefusedRequest[] = [];
  /** Requests forwarded and tunnels opened. */
  forwarded = 0;
  private port = 0;

  constructor(private readonly options: PolicyProxyOptions) {
    this.resolve = options.resolve ?? dns.lookup;
    this.agent = new Agent({
      connect: policyConnector(options.policy, this.resolve, options.connectTimeoutMs ?? 5_000),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
      keepAliveTimeout: 4_000,
      connections: 6,
    });
    this.server = http.createServer((req, res) => void this.forward(req, res));
    this.server.on("connect", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.tunnel(req, socket, head);
    });
    this.server.on("connection", (socket: net.Socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    // A client that speaks something else gets its connection closed, nothing more.
    this.server.on("clientError", (_error, socket: Duplex) => socket.destroy());
  }

  /** Listens on 127.0.0.1, on a port the system picks; returns the proxy's URL. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", () => resolve());
    });
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.agent.destroy().catch(() => {});
  }

  private refuse(target: string, reason: string): void {
    this.refusedCount += 1;
    if (this.refused.length < REFUSALS_KEPT) this.refused.push({ target, reason });
  }

  private overBudget(): boolean {
    return this.bytes >= this.options.maxBytes;
  }

  private count(bytes: number): void {
    this.bytes += bytes;
  }

  /** A plain http:// request in absolute form, forwarded through the safe agent. */
  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const target = req.url ?? "";
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return answer(res, 400, "The proxy takes absolute http:// URLs only.");
    }
    // Only http:// comes this way; https:// is CONNECT. Anything else (ftp:, a relative path to
    // the proxy itself) is refused.
    if (url.protocol !== "http:" || url.username || url.password) {
      this.refuse(target, "not an http URL");
      return answer(res, 403, "Refused by the target policy.");
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const literal = ipaddr.isValid(host) ? this.options.policy.blockReason(host, portOf(url)) : undefined;
    if (literal) {
      this.refuse(url.href, literal);
      return answer(res, 403, "Refused by the target policy.");
    }
    if (this.overBudget()) {
      this.refuse(url.href, "the lab run's byte budget is spent");
      return answer(res, 403, "Refused: the lab run's byte budget is spent.");
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      headers[name] = value;
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    req.on("data", (chunk: Buffer) => this.count(chunk.byteLength));
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const response = await request(url, {
        method: (req.method ?? "GET") as "GET",
        headers,
        body: hasBody ? req : undefined,
        dispatcher: this.agent,
        signal: abort.signal,
      });
      this.forwarded += 1;
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value === undefined || HOP_BY_HOP.has(name)) continue;
        out[name] = value;
      }
      res.writeHead(response.statusCode, out);
      for await (const chunk of response.body) {
        const buffer = chunk as Buffer;
        this.count(buffer.byteLength);
        if (this.overBudget()) {
          this.refuse(url.href, "the lab run's byte budget is spent");
          response.body.destroy();
          res.destroy();
          return;
        }
        if (!res.write(buffer)) await new Promise((resolve) => res.once("drain", resolve));
      }
      res.end();
    } catch (error) {
      const blocked = blockedReason(error);
      if (blocked) {
        this.refuse(url.href, blocked);
        return answer(res, 403, "Refused by the target policy.");
      }
      if (!res.headersSent) return answer(res, 502, "The site could not be reached.");
      res.destroy();
    }
  }

  /** CONNECT host:port: checked, resolved and pinned, then a plain byte tunnel. */
  private async tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.sockets.add(client);
    client.on("close", () => this.sockets.delete(client));
    client.on("error", () => {});
    const target = req.url ?? "";
    const parsed = parseAuthority(target);
    if (!parsed) {
      this.refuse(target, "not a host:port");
      return refuseTunnel(client, 400);
    }
    if (this.overBudget()) {
      this.refuse(target, "the lab run's byte budget is spent");
      return refuseTunnel(client, 403);
    }
    let address: string;
    try {
      address = await this.pinned(parsed.host, parsed.port);
    } catch (error) {
      const blocked = blockedReason(error);
      if (blocked) this.refuse(target, blocked);
      return refuseTunnel(client, blocked ? 403 : 502);
    }
    const upstream = net.connect({ host: address, port: parsed.port });
    upstream.setTimeout(this.options.connectTimeoutMs ?? 5_000, () => upstream.destroy());
    this.sockets.add(upstream);
    upstream.on("close", () => {
      this.sockets.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => {
      if (!client.destroyed) refuseTunnel(client, 502);
    });
    upstream.once("connect", () => {
      upstream.setTimeout(0);
      this.forwarded += 1;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.byteLength > 0) {
        this.count(head.byteLength);
        upstream.write(head);
      }
      const meter = (from: Duplex, to: Duplex) =>
        from.on("data", (chunk: Buffer) => {
          this.count(chunk.byteLength);
          if (this.overBudget()) {
            this.refuse(target, "the lab run's byte budget is spent");
            from.destroy();
            to.destroy();
            return;
          }
          if (!to.write(chunk)) {
            from.pause();
            to.once("drain", () => from.resume());
          }
        });
      meter(client, upstream);
      meter(upstream, client);
      client.on("close", () => upstream.destroy());
      client.on("end", () => upstream.end());
      upstream.on("end", () => client.end());
    });
  }

  /** The one address the tunnel goes to: the literal checked, or the name resolved and every answer checked. */
  private pinned(host: string, port: number): Promise<string> {
    if (ipaddr.isValid(host)) {
      this.options.policy.assertAddress(host, port);
      return Promise.resolve(host);
    }
    return new Promise((resolve, reject) => {
      policyLookup(this.options.policy, this.resolve, port)(host, { all: true }, (error, addresses) => {
        if (error) return reject(error);
        const first = Array.isArray(addresses) ? addresses[0] : undefined;
        if (!first) return reject(Object.assign(new Error(`no address for ${host}`), { code: "ENOTFOUND" }));
        resolve(first.address);
      });
    });
  }
}

/** `host:port` or `[v6]:port` of a CONNECT line. */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  const host = (match[1] ?? match[2] ?? "").toLowerCase();
  if (!host) return undefined;
  return { host, port };
}

function blockedReason(error: unknown): string | undefined {
  if (error instanceof TargetBlockedError) return error.reason;
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof TargetBlockedError) return cause.reason;
  return undefined;
}

function answer(res: http.ServerResponse, status: number, text: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  res.end(text);
}

function refuseTunnel(client: Duplex, status: number): void {
  const reason = status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Bad Gateway";
  client.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
}
