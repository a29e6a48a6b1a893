/**
 * DNS_SERVERS: resolving site names with chosen DNS servers instead of the system resolver.
 *
 * The system resolver of a server inside a company or cloud network answers internal
 * (split-horizon) names — `db.corp.example`, `metadata.google.internal` — that the public
 * internet cannot see. The target policy refuses the private addresses such names usually
 * point to, but an internal name pointing to a *public* address of the company would pass.
 * Asking a public resolver instead makes internal names simply not resolve.
 *
 * The answers go through the same policy check as before (safe-agent.ts `policyLookup`):
 * both families are asked (A and AAAA), every answer is checked, one forbidden answer
 * taints the name, and the connection goes to an address that was checked.
 */
import dns from "node:dns";
import ipaddr from "ipaddr.js";

/** Normalises `IP[:port]` entries to what `Resolver#setServers` takes; reports bad ones. */
export function parseDnsServers(entries: readonly string[]): { servers: string[]; problems: string[] } {
  const servers: string[] = [];
  const problems: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    // [v6]:port, [v6], v4:port, v4, bare v6 — in that order, since a bare IPv6 has colons too.
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const match = bracketed ?? /^([\d.]+)(?::(\d+))?$/.exec(entry) ?? [entry, entry];
    const host = match[1] ?? "";
    const port = match[2] === undefined ? undefined : Number(match[2]);
    const ipv6 = ipaddr.IPv6.isValid(host);
    if (!(ipv6 || (ipaddr.IPv4.isValidFourPartDecimal(host) && !bracketed))) {
      problems.push(
        `DNS_SERVERS entry "${raw}" is not an IP address with an optional port (e.g. 1.1.1.1, 1.1.1.1:53 or [2606:4700:4700::1111]:53)`,
      );
      continue;
    }
    if (port !== undefined && (port < 1 || port > 65535)) {
      problems.push(`DNS_SERVERS entry "${raw}" has a port outside 1–65535`);
      continue;
    }
    const kind = ipaddr.parse(host).kind();
    const address = ipaddr.parse(host).toString();
    if (port === undefined) servers.push(address);
    else servers.push(kind === "ipv6" ? `[${address}]:${port}` : `${address}:${port}`);
  }
  return { servers, problems };
}

type LookupAllCallback = (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void;

const NO_ANSWER = new Set(["ENODATA", "ENOTFOUND", "NODATA", "NOTFOUND"]);

function dnsError(code: "ENOTFOUND" | "EAI_AGAIN", hostname: string, cause?: unknown): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code === "ENOTFOUND" ? "no address for" : "could not resolve"} ${hostname}`), {
    code,
    hostname,
    cause,
  });
}

/**
 * A `dns.lookup`-shaped function (always `all: true`) that asks the given servers for A and
 * AAAA records. IPv4 answers come first. An empty answer is ENOTFOUND; a server failure
 * (timeout, SERVFAIL, refused) with no answer from the other family is EAI_AGAIN — both are
 * "dns" failures for SafeClient.
 */
export function resolverLookup(servers: readonly string[], options: { timeoutMs?: number; tries?: number } = {}) {
  const resolver = new dns.promises.Resolver({ timeout: options.timeoutMs ?? 1_500, tries: options.tries ?? 2 });
  resolver.setServers([...servers]);
  return (hostname: string, _options: dns.LookupOptions, callback: LookupAllCallback): void => {
    const name = hostname.replace(/^\[(.*)\]$/, "$1");
    if (ipaddr.isValid(name)) {
      // net.connect never looks up IP literals; answer them as themselves all the same.
      const address = ipaddr.parse(name);
      callback(null, [{ address: address.toString(), family: address.kind() === "ipv6" ? 6 : 4 }]);
      return;
    }
    void Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]).then(([v4, v6]) => {
      // Every answer of both families goes back: policyLookup checks them all.
      const addresses: dns.LookupAddress[] = [
        ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (addresses.length > 0) {
        callback(null, addresses);
        return;
      }
      const failures = [v4, v6].flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
      const transient = failures.find((reason) => !NO_ANSWER.has(String((reason as { code?: string })?.code)));
      callback(transient ? dnsError("EAI_AGAIN", name, transient) : dnsError("ENOTFOUND", name), []);
    });
  };
}
