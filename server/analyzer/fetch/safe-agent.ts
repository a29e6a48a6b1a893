/**
 * The undici Agent every analyzer request goes through.
 *
 * DNS resolution happens inside the connection's `lookup`, where every resolved address
 * is checked against the target policy — with the port being dialled, since allowlist
 * entries may name ports — and the connection is made to exactly the address that passed:
 * there is no window between "check" and "connect" for DNS rebinding. IP literals never
 * reach `lookup`, so the connector checks them itself (and SafeClient before each request).
 *
 * Imported as "undici/index.js" on purpose: under Bun, a bare "undici" import yields Bun's
 * built-in stand-in, which silently ignores `connect.lookup` (docs/target-policy.md).
 */
import dns from "node:dns";
import net from "node:net";
import tls from "node:tls";
import { Agent, buildConnector, Client, type Dispatcher, Pool } from "undici/index.js";
import { pemCertificates, type SiteTls } from "../../../shared/site-tls.ts";
import { resolverLookup } from "./dns-servers.ts";
import { TargetBlockedError, type TargetPolicy } from "./target-policy.ts";

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

export interface AgentLimits {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxHeaderBytes: number;
}

export const DEFAULT_AGENT_LIMITS: AgentLimits = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 10_000,
  maxHeaderBytes: 64 * 1024,
};

/**
 * A `lookup` for net/tls.connect that only ever yields addresses the policy allows on `port`.
 * Without a port, only allowlist entries that cover every port apply (the stricter reading).
 */
export function policyLookup(policy: TargetPolicy, resolve: typeof dns.lookup = dns.lookup, port?: number) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as unknown as dns.LookupAddress[];
      if (list.length === 0) {
        const notFound = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: "ENOTFOUND",
        });
        return callback(notFound, []);
      }
      // One forbidden address taints the name: a resolver answering with a mix of public
      // and private records is exactly what a rebinding attack looks like.
      for (const entry of list) {
        const refusal = policy.refusal(entry.address, port, hostname);
        if (!refusal) continue;
        const reason = refusal.kind === "address" ? `resolves to a ${refusal.reason}` : refusal.reason;
        return callback(new TargetBlockedError(hostname, reason), []);
      }
      // A resolver from DNS_SERVERS answers both families whatever was asked; every answer was
      // checked above, and only the family the caller wants is handed on (dns.lookup already
      // answers only that family, so this changes nothing for it).
      const family = options.family === 4 || options.family === 6 ? options.family : 0;
      const usable = family ? list.filter((entry) => entry.family === family) : list;
      if (usable.length === 0) {
        const notFound = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
        return callback(notFound, []);
      }
      if (options.all) return callback(null, usable);
      const first = usable[0] as dns.LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

/** Most ports remembered by policyConnector; a site naming more only loses TLS session reuse. */
const CONNECTORS_KEPT = 64;

/**
 * undici's connector, with the policy applied on every connection to the port it dials.
 * `lookup` is fixed when a connector is built and is not told the port, so there is one
 * connector per port (each keeps its TLS session cache), the most recently used few kept.
 */
export function policyConnector(
  policy: TargetPolicy,
  resolve: typeof dns.lookup,
  timeoutMs: number,
  ca?: string[],
  site?: SiteTlsOrigin,
): buildConnector.connector {
  const byPort = new Map<number, buildConnector.connector>();
  // The staging site's own origin gets its own connector, with its own certificate rule; every
  // other origin (a redirect elsewhere, a CDN) is verified as usual.
  const siteConnector = site
    ? buildConnector({
        timeout: timeoutMs,
        lookup: policyLookup(policy, resolve, site.port) as never,
        allowH2: true,
        ...(site.tls.mode === "insecure"
          ? { rejectUnauthorized: false }
          : { ca: [...(ca ?? tls.rootCertificates), ...pemCertificates(site.tls.ca)] }),
      })
    : undefined;
  const connectorFor = (port: number) => {
    let connector = byPort.get(port);
    if (connector) byPort.delete(port);
    else
      connector = buildConnector({
        timeout: timeoutMs,
        lookup: policyLookup(policy, resolve, port) as never,
        // Offer h2 and http/1.1 in ALPN; the server picks (see protocolAwareClient).
        allowH2: true,
        ...(ca ? { ca } : {}),
      });
    byPort.set(port, connector);
    if (byPort.size > CONNECTORS_KEPT) byPort.delete(byPort.keys().next().value as number);
    return connector;
  };
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === "https:" ? 443 : 80);
    // undici hands IPv6 literals over without brackets; net.connect skips `lookup` for literals.
    const reason = net.isIP(options.hostname) ? policy.blockReason(options.hostname, port) : undefined;
    if (reason) {
      // Asynchronously, like a failed socket: undici does not expect its callback re-entered.
      const refused = new TargetBlockedError(options.hostname, reason);
      queueMicrotask(() => callback(refused, null));
      return;
    }
    if (
      siteConnector &&
      site &&
      options.protocol === "https:" &&
      port === site.port &&
      options.hostname.toLowerCase() === site.hostname
    ) {
      siteConnector(options, callback);
      return;
    }
    connectorFor(port)(options, callback);
  };
}

/**
 * Connections one agent keeps to one origin (scheme, host, port) at most, whatever the
 * number of analyses sharing it: browsers' figure for HTTP/1.1. Over HTTP/2 one of them
 * carries every request of an analysis (see H2_STREAMS_PER_CONNECTION).
 */
export const MAX_CONNECTIONS_PER_SITE = 6;
/**
 * Requests in flight on one HTTP/2 connection. Below every common server's
 * SETTINGS_MAX_CONCURRENT_STREAMS (nginx 128, Apache 100), so a burst never waits on the peer.
 */
export const H2_STREAMS_PER_CONNECTION = 32;

/** HTTP version of a connection, as the report spells it (`performance.http_version`). */
export type HttpVersion = "1.1" | "2";

/** Per agent: what the latest connection to each origin negotiated (ALPN). */
const negotiated = new WeakMap<Dispatcher, Map<string, HttpVersion>>();
/** Origins remembered per agent; a long-lived agent meets many sites, an analysis needs its own. */
const ORIGINS_KEPT = 1024;

function remember(versions: Map<string, HttpVersion>, origin: string, version: HttpVersion) {
  versions.delete(origin);
  versions.set(origin, version);
  if (versions.size > ORIGINS_KEPT) versions.delete(versions.keys().next().value as string);
}

/**
 * The HTTP version `dispatcher` speaks to `origin` (a URL's `origin`): "2" when the latest TLS
 * connection to that origin negotiated h2 through ALPN, else "1.1" (plain http:// is always
 * HTTP/1.1 — undici does not try h2c). undici tells no request which connection carried it,
 * so this is per origin; a server answers every connection's ALPN the same way.
 */
export function negotiatedHttpVersion(dispatcher: Dispatcher, origin: string): HttpVersion {
  return negotiated.get(dispatcher)?.get(origin) ?? "1.1";
}

export interface SafeAgentOptions {
  /**
   * PEM certificates trusted on top of the system's roots. For tests and benches that serve
   * HTTPS on loopback with a certificate made on the spot; the service never sets it.
   */
  extraCa?: string[];
  /**
   * A staging site's certificate rule (tls: insecure, or tls_ca), for the origin of `url` only.
   * Such an agent serves that one analysis: its pooled connections to the site were made under
   * the relaxed rule and must never carry another analysis's requests.
   */
  siteTls?: { url: string; tls: SiteTls };
}

/** The one origin a relaxed certificate rule applies to: https, its host (no brackets) and port. */
export interface SiteTlsOrigin {
  hostname: string;
  port: number;
  tls: SiteTls;
}

function siteTlsOrigin(siteTls: SafeAgentOptions["siteTls"]): SiteTlsOrigin | undefined {
  if (!siteTls) return undefined;
  const url = new URL(siteTls.url);
  if (url.protocol !== "https:") return undefined;
  return {
    hostname: url.hostname.replace(/^\[|\]$/g, "").toLowerCase(),
    port: Number(url.port) || 443,
    tls: siteTls.tls,
  };
}

/**
 * A Client that multiplexes once its connection negotiated h2. undici 7 gates requests on a
 * connection by `pipelining` whatever the protocol (nodejs/undici#4143, fixed in 8), and a
 * pipelining above 1 would also pipeline HTTP/1.1, which many servers and middleboxes get
 * wrong. So each connection starts at 1 and is raised only when ALPN said h2.
 */
function protocolAwareClient(origin: string, options: Client.Options, versions: Map<string, HttpVersion>): Client {
  const connect = options.connect as buildConnector.connector;
  const client: Client = new Client(origin, {
    ...options,
    connect: (connectOptions, callback) =>
      connect(connectOptions, (error, socket) => {
        callback(error as Error, socket as never);
        if (error || !socket) return;
        const version: HttpVersion = (socket as tls.TLSSocket).alpnProtocol === "h2" ? "2" : "1.1";
        remember(versions, new URL(origin).origin, version);
        client.pipelining = version === "2" ? H2_STREAMS_PER_CONNECTION : 1;
      }),
  });
  return client;
}

/**
 * `dnsServers` (DNS_SERVERS, already normalised by parseDnsServers): resolve site names with
 * these servers instead of the system resolver (see dns-servers.ts). Empty: dns.lookup.
 */
export function createSafeAgent(
  policy: TargetPolicy,
  limits: AgentLimits = DEFAULT_AGENT_LIMITS,
  dnsServers: readonly string[] = [],
  options: SafeAgentOptions = {},
) {
  const resolve = dnsServers.length > 0 ? (resolverLookup(dnsServers) as unknown as typeof dns.lookup) : dns.lookup;
  const ca = options.extraCa?.length ? [...tls.rootCertificates, ...options.extraCa] : undefined;
  const versions = new Map<string, HttpVersion>();
  const agent = new Agent({
    // The policy is in the connector, which every connection of every origin goes through,
    // HTTP/2 or not: h2 only changes what is spoken on a connection the policy let through.
    connect: policyConnector(policy, resolve, limits.connectTimeoutMs, ca, siteTlsOrigin(options.siteTls)),
    allowH2: true,
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    keepAliveTimeout: 4_000,
    // Per origin, shared by every analysis on this agent; SafeClient caps each analysis's
    // requests in flight to what these connections carry at once.
    connections: MAX_CONNECTIONS_PER_SITE,
    factory: (origin, poolOptions) =>
      new Pool(origin, {
        ...(poolOptions as Pool.Options),
        factory: (clientOrigin, clientOptions) =>
          protocolAwareClient(String(clientOrigin), clientOptions as Client.Options, versions),
      }),
  });
  negotiated.set(agent, versions);
  return agent;
}
