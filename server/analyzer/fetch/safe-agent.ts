/**
 * The undici Agent every analyzer request goes through.
 *
 * DNS resolution happens inside the connection's `lookup`, where every resolved address
 * is checked against the target policy and the connection is made to exactly the address
 * that passed: there is no window between "check" and "connect" for DNS rebinding. IP
 * literals never reach `lookup`, so SafeClient checks them before each request.
 *
 * Imported as "undici/index.js" on purpose: under Bun, a bare "undici" import yields Bun's
 * built-in stand-in, which silently ignores `connect.lookup` (SPEC.md §3).
 */
import dns from "node:dns";
import { Agent } from "undici/index.js";
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

/** A `lookup` for net/tls.connect that only ever yields addresses the policy allows. */
export function policyLookup(policy: TargetPolicy, resolve: typeof dns.lookup = dns.lookup) {
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
        const reason = policy.blockReason(entry.address, hostname);
        if (reason) return callback(new TargetBlockedError(hostname, `resolves to a ${reason}`), []);
      }
      if (options.all) return callback(null, list);
      const first = list[0] as dns.LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

export function createSafeAgent(policy: TargetPolicy, limits: AgentLimits = DEFAULT_AGENT_LIMITS) {
  return new Agent({
    connect: {
      timeout: limits.connectTimeoutMs,
      lookup: policyLookup(policy) as never,
    },
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    keepAliveTimeout: 4_000,
    // Analyses of one site share the pool; SafeClient caps requests in flight per report.
    connections: 32,
  });
}
