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
 * built-in stand-in, which silently ignores `connect.lookup` (SPEC.md §3).
 */
import dns from "node:dns";
import net from "node:net";
import { Agent, buildConnector } from "undici/index.js";
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
): buildConnector.connector {
  const byPort = new Map<number, buildConnector.connector>();
  const connectorFor = (port: number) => {
    let connector = byPort.get(port);
    if (connector) byPort.delete(port);
    else connector = buildConnector({ timeout: timeoutMs, lookup: policyLookup(policy, resolve, port) as never });
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
    connectorFor(port)(options, callback);
  };
}

/**
 * `dnsServers` (DNS_SERVERS, already normalised by parseDnsServers): resolve site names with
 * these servers instead of the system resolver (see dns-servers.ts). Empty: dns.lookup.
 */
export function createSafeAgent(
  policy: TargetPolicy,
  limits: AgentLimits = DEFAULT_AGENT_LIMITS,
  dnsServers: readonly string[] = [],
) {
  const resolve = dnsServers.length > 0 ? (resolverLookup(dnsServers) as unknown as typeof dns.lookup) : dns.lookup;
  return new Agent({
    connect: policyConnector(policy, resolve, limits.connectTimeoutMs),
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    keepAliveTimeout: 4_000,
    // Analyses of one site share the pool; SafeClient caps requests in flight per report.
    connections: 32,
  });
}
