/**
 * The target policy (SPEC.md §8): which addresses the analyzer may connect to.
 *
 * Only globally routable unicast addresses are allowed by default. Loopback, private,
 * link-local (cloud metadata lives there), CGNAT, multicast, unspecified, reserved and
 * documentation ranges are refused — including when they hide inside IPv6 (IPv4-mapped,
 * IPv4-compatible, NAT64, 6to4, Teredo). Classification is ipaddr.js's, not ours.
 *
 * The check runs on *resolved* addresses, for every request and redirect hop, and the
 * connection is made to the address that was checked (see safe-agent.ts).
 * TARGET_ALLOWLIST entries (host names, IPs, CIDRs) relax it, e.g. for local tests.
 */
import ipaddr from "ipaddr.js";

export class TargetBlockedError extends Error {
  constructor(
    readonly target: string,
    readonly reason: string,
  ) {
    super(`${target} is not allowed: ${reason}`);
    this.name = "TargetBlockedError";
  }
}

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface AllowlistParseResult {
  hosts: Set<string>;
  ranges: Cidr[];
  problems: string[];
}

export function parseAllowlist(entries: readonly string[]): AllowlistParseResult {
  const hosts = new Set<string>();
  const ranges: Cidr[] = [];
  const problems: string[] = [];
  for (const raw of entries) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, "$1");
    if (!entry) continue;
    try {
      if (entry.includes("/")) {
        ranges.push(ipaddr.parseCIDR(entry));
      } else if (ipaddr.isValid(entry)) {
        const address = ipaddr.parse(entry);
        ranges.push([address, address.kind() === "ipv4" ? 32 : 128]);
      } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) {
        hosts.add(entry);
      } else {
        problems.push(`TARGET_ALLOWLIST entry "${raw}" is not a host name, IP address or CIDR range`);
      }
    } catch {
      problems.push(`TARGET_ALLOWLIST entry "${raw}" is not a valid CIDR range`);
    }
  }
  return { hosts, ranges, problems };
}

/** IPv6 forms that carry an IPv4 address inside; the embedded one decides. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  const range = address.range();
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (range === "ipv4Mapped" || range === "rfc6145" || range === "rfc6052") {
    return fromWords(parts[6] ?? 0, parts[7] ?? 0);
  }
  if (range === "6to4") return fromWords(parts[1] ?? 0, parts[2] ?? 0);
  // ::a.b.c.d, the deprecated IPv4-compatible form (not "unspecified"/"loopback").
  if (parts.slice(0, 6).every((word) => word === 0) && range !== "unspecified" && range !== "loopback") {
    return fromWords(parts[6] ?? 0, parts[7] ?? 0);
  }
  return undefined;
}

const FRIENDLY: Record<string, string> = {
  loopback: "loopback address",
  private: "private network address",
  linkLocal: "link-local address (includes cloud metadata services)",
  carrierGradeNat: "carrier-grade NAT address",
  multicast: "multicast address",
  broadcast: "broadcast address",
  unspecified: "unspecified address",
  reserved: "reserved address",
  uniqueLocal: "private (unique local) IPv6 address",
  teredo: "Teredo tunnel address",
  deprecatedSiteLocal: "site-local IPv6 address",
};

export class TargetPolicy {
  private readonly hosts: Set<string>;
  private readonly ranges: Cidr[];

  constructor(allowlist: readonly string[] = []) {
    const parsed = parseAllowlist(allowlist);
    if (parsed.problems.length > 0) throw new Error(parsed.problems.join("; "));
    this.hosts = parsed.hosts;
    this.ranges = parsed.ranges;
  }

  /** True when the host name itself is allowlisted (its addresses then pass too). */
  isHostAllowlisted(hostname: string): boolean {
    return this.hosts.has(
      hostname
        .toLowerCase()
        .replace(/^\[(.*)\]$/, "$1")
        .replace(/\.$/, ""),
    );
  }

  private isAddressAllowlisted(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.ranges.some(([range, bits]) => {
      if (range.kind() !== address.kind()) return false;
      return address.match(range as never, bits);
    });
  }

  /** Why this address may not be contacted, or undefined when it may. */
  blockReason(ip: string, hostname?: string): string | undefined {
    if (!ipaddr.isValid(ip)) return "not an IP address";
    let address = ipaddr.parse(ip);
    if (hostname && this.isHostAllowlisted(hostname)) return undefined;
    if (this.isAddressAllowlisted(address)) return undefined;
    if (address.kind() === "ipv6") {
      const inner = embeddedIPv4(address as ipaddr.IPv6);
      if (inner) {
        if (this.isAddressAllowlisted(inner)) return undefined;
        address = inner;
      }
    }
    const range = address.range();
    if (range === "unicast") return undefined;
    return FRIENDLY[range] ?? `special-purpose address (${range})`;
  }

  assertAddress(ip: string, hostname?: string): void {
    const reason = this.blockReason(ip, hostname);
    if (reason) throw new TargetBlockedError(hostname ?? ip, reason);
  }
}
