/**
 * Per-target limits across every account and worker (docs/target-policy.md, "Per-target
 * limits"): no customer may rent the service as a flooder, whatever they pay and however they
 * spell the site.
 *
 * A target is counted under two keys at once: its canonical host (lower case, no trailing
 * dot, no leading `www.`) and each address it resolves to. Spellings of one name meet on the
 * host key; the IP literal, other names and wildcard subdomains of the same server meet on the
 * address key. Subdomains are *not* folded into their parent domain: `shop.example.com` and
 * `blog.example.com` are often different sites of different customers, and where they share
 * a server the address key catches them.
 *
 * Three limits follow from that:
 * - analyses at once: a slot of every key (Slots, in the database): HOST_CONCURRENCY of one
 *   host, TARGET_ADDRESS_CONCURRENCY of one address — higher, because unrelated sites share
 *   addresses (shared hosting, and a CDN's few addresses front millions of sites), yet bounded,
 *   because other names of one server (wildcard subdomains, the IP literal) meet there;
 * - requests per second: each numbered slot of a key carries a fixed share of TARGET_MAX_RPS,
 *   the shares of a key's slots adding up to it (pace-shares.ts); an analysis starts at most
 *   the smallest share of its slots in any one second (a sliding window in its SafeClient). A
 *   slot is held one second past its analysis (`paceWindowMs`), so the next analysis in it cannot
 *   add its first second to the last one's: a host, and each address, sees at most
 *   TARGET_MAX_RPS requests start in any one second, all analyses together — with no
 *   per-request round trip to a shared store;
 * - aggressive requests per hour: the enumeration's request budget is granted from a counter
 *   per key and hour in the database (TARGET_AGGRESSIVE_PER_HOUR), before it starts.
 */
import dns from "node:dns";
import ipaddr from "ipaddr.js";
import { resolverLookup } from "../analyzer/fetch/dns-servers.ts";
import type { Sql } from "../platform/db/database.ts";
import { analysisShare } from "./pace-shares.ts";

/** At most this many addresses of one name are keyed (a name with more is still limited by them). */
const MAX_ADDRESSES = 4;
/** How long the worker waits for DNS before keying on the host alone. */
const RESOLVE_TIMEOUT_MS = 3_000;
/** A grant smaller than this is no enumeration at all: calibration alone takes a few requests. */
export const MIN_AGGRESSIVE_GRANT = 10;

export interface TargetLimitSettings {
  /** HOST_CONCURRENCY: analyses of one canonical host at once. */
  hostConcurrency: number;
  /** TARGET_ADDRESS_CONCURRENCY: analyses of one address at once, all names on it together. */
  addressConcurrency: number;
  /** TARGET_MAX_RPS: requests to one target in any one second, all analyses together; 0 = no pace. */
  targetMaxRps: number;
  /** TARGET_AGGRESSIVE_PER_HOUR: enumeration requests one target gets per hour. */
  aggressivePerHour: number;
  dnsServers: readonly string[];
}

/** The one spelling of a host: `WWW.Example.COM.` → `example.com`; IPs in their plain form. */
export function canonicalHost(hostname: string): string {
  const bare = hostname
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase()
    .replace(/\.+$/, "");
  if (ipaddr.isValid(bare)) return ipaddr.process(bare).toString();
  return bare.replace(/^www\./, "");
}

export interface TargetKeys {
  host: string;
  /** `host:…` then `addr:…` keys, sorted, for the slot and budget tables. */
  keys: string[];
}

export class TargetLimits {
  private readonly lookup: (hostname: string) => Promise<string[]>;

  constructor(
    private readonly sql: Sql,
    readonly settings: TargetLimitSettings,
  ) {
    this.lookup = addressLookup(settings.dnsServers);
  }

  /**
   * Requests one analysis may start in any one second: the smallest share of the slots it holds
   * of its `keys` (`slotOf`: their numbers, Slots.slotNumbers). 0: no pace.
   */
  analysisRps(keys: readonly string[], slotOf: ReadonlyMap<string, number>): number {
    return analysisShare(this.settings.targetMaxRps, keys, slotOf, this.limitOf);
  }

  /** How long a target slot stays taken after its analysis: the pace's window, one second. */
  get paceWindowMs(): number {
    return this.settings.targetMaxRps > 0 ? 1_000 : 0;
  }

  /** How many analyses may hold a key at once: HOST_CONCURRENCY for a host, TARGET_ADDRESS_CONCURRENCY for an address. */
  limitOf = (key: string): number =>
    key.startsWith("addr:") ? this.settings.addressConcurrency : this.settings.hostConcurrency;

  /** The keys a target URL is counted under: its canonical host and the addresses it resolves to. */
  async keysFor(target: string): Promise<TargetKeys> {
    const host = canonicalHost(new URL(target).hostname);
    const addresses = ipaddr.isValid(host) ? [host] : await this.lookup(host).catch(() => []);
    const unique = [...new Set(addresses.map((address) => ipaddr.process(address).toString()))].sort();
    const keys = [`host:${host}`, ...unique.slice(0, MAX_ADDRESSES).map((address) => `addr:${address}`)];
    return { host, keys: [...new Set(keys)] };
  }

  /**
   * Grants up to `wanted` aggressive requests from this hour's budget of every key, atomically
   * (the rows are locked in key order, so two grants never interleave or deadlock). Returns
   * what was granted: 0 when less than MIN_AGGRESSIVE_GRANT was left.
   */
  async grantAggressive(keys: readonly string[], wanted: number): Promise<number> {
    const limit = this.settings.aggressivePerHour;
    return this.sql.begin(async (tx) => {
      for (const key of keys) {
        await tx`
          insert into target_hourly_requests (target, hour) values (${key}, date_trunc('hour', now()))
          on conflict do nothing`;
      }
      const rows = await tx<{ granted: number }[]>`
        select granted from target_hourly_requests
        where target in ${tx(keys as string[])} and hour = date_trunc('hour', now())
        order by target for update`;
      const left = Math.min(...rows.map((row) => limit - row.granted));
      const grant = Math.min(wanted, Math.max(0, left));
      if (grant < MIN_AGGRESSIVE_GRANT) return 0;
      await tx`
        update target_hourly_requests set granted = granted + ${grant}
        where target in ${tx(keys as string[])} and hour = date_trunc('hour', now())`;
      return grant;
    });
  }

  /** Drops budget rows of past hours (the sweeper). */
  async sweep(): Promise<void> {
    await this.sql`delete from target_hourly_requests where hour < date_trunc('hour', now())`;
  }
}

/** Every address of a name, with the resolver the analyzer uses (DNS_SERVERS or the system's). */
function addressLookup(dnsServers: readonly string[]): (hostname: string) => Promise<string[]> {
  const resolve =
    dnsServers.length > 0
      ? (resolverLookup(dnsServers) as unknown as typeof dns.lookup)
      : (dns.lookup as typeof dns.lookup);
  return (hostname) =>
    new Promise<string[]>((resolvePromise) => {
      const timer = setTimeout(() => resolvePromise([]), RESOLVE_TIMEOUT_MS);
      resolve(hostname, { all: true, verbatim: true }, (error, addresses) => {
        clearTimeout(timer);
        resolvePromise(error ? [] : (addresses as dns.LookupAddress[]).map((entry) => entry.address));
      });
    });
}
