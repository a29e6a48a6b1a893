/**
 * The target policy (docs/target-policy.md): which addresses and ports the analyzer may connect to.
 *
 * Only globally routable unicast addresses are allowed by default, on any port. Loopback,
 * private, link-local (cloud metadata lives there), CGNAT, multicast, unspecified, reserved
 * and documentation ranges are refused — including when they hide inside IPv6 (IPv4-mapped,
 * IPv4-compatible, NAT64, 6to4, Teredo). Classification is ipaddr.js's, not ours.
 *
 * The check runs on *resolved* addresses and the port actually dialled, for every request
 * and redirect hop, and the connection is made to the address that was checked (see
 * safe-agent.ts).
 *
 * TARGET_ALLOWLIST entries relax it, e.g. for local tests. Grammar (one entry):
 *
 *   host[:ports]            wp.internal, localhost:8088
 *   ipv4[:ports]            127.0.0.1:8080
 *   ipv4/len[:ports]        10.0.0.0/8:443
 *   [ipv6][:ports]          [::1]:8080
 *   [ipv6/len][:ports]      [fd00::/8]:443
 *   ipv6, ipv6/len          ::1, fd00::/8 (bare IPv6: always every port)
 *   ports = port | low-high 1–65535, e.g. 8000-8099
 *
 * IPv6 with a port must be in brackets: an unbracketed entry with two or more colons is a
 * bare IPv6 address or range, so `fd00::/8:443` is refused rather than guessed at. An entry
 * without a port opens every port of its hosts (kept for compatibility; warned about at
 * start-up). An allowlisted IPv4 range matches an IPv6 address only in its IPv4-mapped form
 * (::ffff:a.b.c.d, the same host); NAT64, 6to4 and IPv4-compatible addresses are other hosts.
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

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** Inclusive port range; a single port is low === high. */
export interface PortRange {
  low: number;
  high: number;
}

/** One allowlist rule; `ports` undefined means every port. */
interface Rule {
  entry: string;
  ports?: PortRange;
}

export interface HostRule extends Rule {
  host: string;
}

export interface RangeRule extends Rule {
  cidr: Cidr;
}

export interface AllowlistParseResult {
  hosts: HostRule[];
  ranges: RangeRule[];
  /** Entries without a port: they open every port of their hosts. */
  allPorts: string[];
  problems: string[];
}

/**
 * Why a connection is refused. `address`: the address itself is not public ("loopback
 * address", read as "a loopback address"). `port`: the host or range is allowlisted, but not
 * on this port (a full clause: "port 6379 is not allowlisted for 127.0.0.2").
 */
export interface Refusal {
  kind: "address" | "port";
  reason: string;
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const PORTS = /^(\d{1,5})(?:-(\d{1,5}))?$/;

/** The port a URL dials: its own, or the scheme's default. */
export function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

function parsePorts(spec: string): PortRange | undefined {
  const match = PORTS.exec(spec);
  if (!match) return undefined;
  const low = Number(match[1]);
  const high = match[2] === undefined ? low : Number(match[2]);
  if (low < 1 || high > 65535 || low > high) return undefined;
  return { low, high };
}

/** Splits an entry into its target and port text (undefined: no port given). */
function splitEntry(
  entry: string,
): { target: string; ports?: string; form: "bracketed" | "bare-ipv6" | "plain" } | undefined {
  if (entry.startsWith("[")) {
    const match = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
    if (!match?.[1]) return undefined;
    return { target: match[1], ports: match[2], form: "bracketed" };
  }
  const colons = entry.split(":").length - 1;
  if (colons >= 2) return { target: entry, form: "bare-ipv6" };
  if (colons === 0) return { target: entry, form: "plain" };
  const at = entry.indexOf(":");
  return { target: entry.slice(0, at), ports: entry.slice(at + 1), form: "plain" };
}

type Target = { host: string } | { cidr: Cidr } | { problem: string };

/** Brackets, or an unbracketed entry with two or more colons, hold an IPv6 address or range. */
function parseIPv6Target(target: string, bracketed: boolean): Target {
  const valid = target.includes("/") ? ipaddr.IPv6.isValidCIDR(target) : ipaddr.IPv6.isValid(target);
  if (!valid) {
    // "fd00::/8:443" is most likely a range and a port: say how to write that.
    const hint = bracketed ? "brackets hold IPv6 only" : "with a port, IPv6 goes in brackets: [fd00::/8]:443";
    return { problem: `is not a valid IPv6 address or range (${hint})` };
  }
  if (!target.includes("/")) return { cidr: [parseIP(target), 128] };
  const [address = "", bits] = target.split("/");
  return { cidr: [parseIP(address), Number(bits)] };
}

/** Unbracketed: an IPv4 address or range in plain a.b.c.d form, or a host name. */
function parsePlainTarget(target: string): Target {
  if (target.includes("/")) {
    if (!ipaddr.IPv4.isValidCIDRFourPartDecimal(target)) return { problem: "is not a valid CIDR range" };
    return { cidr: ipaddr.IPv4.parseCIDR(target) };
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(target)) return { cidr: [ipaddr.IPv4.parse(target), 32] };
  // "10.1" or "2130706433" would be a host name nobody has: say what is wrong instead.
  if (/^[\d.]+$/.test(target)) return { problem: "is not a valid IPv4 address (write it as a.b.c.d)" };
  if (HOST_NAME.test(target)) return { host: target };
  return { problem: "is not a host name, IP address or CIDR range" };
}

export function parseAllowlist(entries: readonly string[]): AllowlistParseResult {
  const result: AllowlistParseResult = { hosts: [], ranges: [], allPorts: [], problems: [] };
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const problem = (text: string) => result.problems.push(`TARGET_ALLOWLIST entry "${raw.trim()}" ${text}`);
    const parts = splitEntry(entry);
    if (!parts) {
      problem("is not a host name, IP address or CIDR range");
      continue;
    }
    let ports: PortRange | undefined;
    if (parts.ports !== undefined) {
      ports = parsePorts(parts.ports);
      if (!ports) {
        problem(`has an invalid port "${parts.ports}" (a port is 1-65535; a range is low-high, e.g. 8000-8099)`);
        continue;
      }
    }
    const target =
      parts.form === "plain"
        ? parsePlainTarget(parts.target)
        : parseIPv6Target(parts.target, parts.form === "bracketed");
    if ("problem" in target) {
      problem(target.problem);
      continue;
    }
    if ("host" in target) result.hosts.push({ entry, host: target.host, ports });
    else result.ranges.push({ entry, cidr: target.cidr, ports });
    if (!ports) result.allPorts.push(entry);
  }
  return result;
}

/**
 * ipaddr.parse, except that "::a.b.c.d" is read as the OS reads it: the IPv4-compatible
 * ::xxxx:xxxx. ipaddr.js reads it as ::ffff:a.b.c.d (IPv4-mapped, another host), and resolvers
 * print IPv4-compatible answers that way (libuv and c-ares turn ::7f00:2 into "::127.0.0.2").
 */
export function parseIP(ip: string): Address {
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!dotted || !ipaddr.IPv6.isValid(ip)) return ipaddr.parse(ip);
  const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
  const word = (high: number, low: number) => ((high << 8) | low).toString(16);
  return ipaddr.IPv6.parse(`${dotted[1]}${word(a, b)}:${word(c, d)}`);
}

/** parseIP, normalised; undefined for anything that is not an IP address. */
function parseOrUndefined(ip: string): Address | undefined {
  if (!ipaddr.isValid(ip)) return undefined;
  try {
    return normalise(parseIP(ip));
  } catch {
    return undefined;
  }
}

/** The IPv4-mapped form (::ffff:a.b.c.d) *is* that IPv4 host: compare it as IPv4. */
function normalise(address: Address): Address {
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

/** `address` is already normalised; an IPv6 rule such as [::ffff:10.0.0.0/104] still covers IPv4. */
function inRange(address: Address, [range, bits]: Cidr): boolean {
  if (address.kind() === range.kind()) return address.match(range as never, bits);
  if (address.kind() === "ipv4" && range.kind() === "ipv6") {
    return (address as ipaddr.IPv4).toIPv4MappedAddress().match(range as ipaddr.IPv6, bits);
  }
  // Any other IPv6 carrying an IPv4 (NAT64, 6to4, IPv4-compatible) is a different host.
  return false;
}

function portAllowed(ports: PortRange | undefined, port: number | undefined): boolean {
  if (!ports) return true;
  return port !== undefined && port >= ports.low && port <= ports.high;
}

/**
 * IPv6 forms that carry an IPv4 address inside. They are classified by it (to *refuse*
 * NAT64 or 6to4 of a private address), never allowlisted by it (see inRange).
 */
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

/** ipaddr.js's range name of the address, or of the IPv4 address it carries. */
function classify(address: Address): string {
  const inner = address.kind() === "ipv6" ? embeddedIPv4(address as ipaddr.IPv6) : undefined;
  return (inner ?? address).range();
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

function normaliseHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
}

export class TargetPolicy {
  private readonly hosts: HostRule[];
  private readonly ranges: RangeRule[];
  /** Allowlist entries without a port (every port of their hosts is reachable). */
  readonly allPortEntries: readonly string[];

  constructor(allowlist: readonly string[] = []) {
    const parsed = parseAllowlist(allowlist);
    if (parsed.problems.length > 0) throw new Error(parsed.problems.join("; "));
    this.hosts = parsed.hosts;
    this.ranges = parsed.ranges;
    this.allPortEntries = parsed.allPorts;
  }

  /** True when the host name itself is allowlisted, on some port. */
  isHostAllowlisted(hostname: string): boolean {
    const name = normaliseHost(hostname);
    return this.hosts.some((rule) => rule.host === name);
  }

  /**
   * Why this address may not be contacted on this port (for a connection made on behalf of
   * `hostname`, when it was a name), or undefined when it may. An unknown port (undefined)
   * matches only entries without a port.
   */
  refusal(ip: string, port?: number, hostname?: string): Refusal | undefined {
    const address = parseOrUndefined(ip);
    if (!address) return { kind: "address", reason: "not an IP address" };
    const name = hostname ? normaliseHost(hostname) : undefined;
    const hostRules = this.hosts.filter((rule) => rule.host === name);
    const rangeRules = this.ranges.filter((rule) => inRange(address, rule.cidr));
    if ([...hostRules, ...rangeRules].some((rule) => portAllowed(rule.ports, port))) return undefined;
    const range = classify(address);
    if (range === "unicast") return undefined;
    if (hostRules.length > 0 || rangeRules.length > 0) {
      const subject = hostRules.length > 0 ? name : address.toString();
      const which = port === undefined ? "this port" : `port ${port}`;
      return { kind: "port", reason: `${which} is not allowlisted for ${subject}` };
    }
    return { kind: "address", reason: FRIENDLY[range] ?? `special-purpose address (${range})` };
  }

  /** The refusal's reason alone (see refusal). */
  blockReason(ip: string, port?: number, hostname?: string): string | undefined {
    return this.refusal(ip, port, hostname)?.reason;
  }

  assertAddress(ip: string, port?: number, hostname?: string): void {
    const reason = this.blockReason(ip, port, hostname);
    if (reason) throw new TargetBlockedError(hostname ?? ip, reason);
  }
}
