/**
 * The target policy and URL validation: a table of SSRF forms that must all be refused,
 * and ordinary public targets that must pass.
 */
import { describe, expect, test } from "bun:test";
import { parseAllowlist, TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { siteKey, validateTargetUrl } from "../../server/analyzer/target-url.ts";

const strict = new TargetPolicy([]);

describe("addresses", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.100.100.200", "carrier-grade NAT"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.10", "reserved"],
    ["198.18.0.1", "reserved"],
    ["240.0.0.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fd00:ec2::254", "unique local"],
    ["fc00::1", "unique local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:10.1.1.1", "private"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["2002:7f00:1::", "loopback"],
    ["2001::1", "Teredo"],
    ["2001:db8::1", "reserved"],
  ])("%s is refused (%s)", (address, reason) => {
    expect(strict.blockReason(address)).toContain(reason);
  });

  test.each([
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:81b::200e",
    "::ffff:8.8.8.8",
  ])("%s is allowed", (address) => {
    expect(strict.blockReason(address)).toBeUndefined();
  });

  test("the allowlist relaxes by IP, CIDR or host name", () => {
    const relaxed = new TargetPolicy(["127.0.0.1", "10.1.0.0/16", "wp.internal", "[::1]"]);
    expect(relaxed.blockReason("127.0.0.1")).toBeUndefined();
    expect(relaxed.blockReason("127.0.0.2")).toContain("loopback");
    expect(relaxed.blockReason("10.1.200.3")).toBeUndefined();
    expect(relaxed.blockReason("10.2.0.1")).toContain("private");
    expect(relaxed.blockReason("192.168.0.9", 80, "wp.internal")).toBeUndefined();
    expect(relaxed.blockReason("::1")).toBeUndefined();
    expect(relaxed.blockReason("::ffff:127.0.0.1")).toBeUndefined();
  });

  test("bad allowlist entries are refused", () => {
    expect(() => new TargetPolicy(["10.0.0.0/33"])).toThrow("not a valid CIDR range");
    expect(() => new TargetPolicy(["exa mple.com"])).toThrow("not a host name");
  });
});

describe("allowlist grammar", () => {
  const portsOf = (entry: string) => {
    const { hosts, ranges, problems } = parseAllowlist([entry]);
    expect(problems).toEqual([]);
    const rule = hosts[0] ?? ranges[0];
    return rule?.ports ?? "all";
  };

  test.each([
    ["localhost:8088", { low: 8088, high: 8088 }],
    ["localhost:8000-8099", { low: 8000, high: 8099 }],
    ["wp.internal", "all"],
    ["127.0.0.2:6379", { low: 6379, high: 6379 }],
    ["127.0.0.2", "all"],
    ["10.0.0.0/8:443", { low: 443, high: 443 }],
    ["10.0.0.0/8:1-1024", { low: 1, high: 1024 }],
    ["10.0.0.0/8", "all"],
    ["[::1]:8080", { low: 8080, high: 8080 }],
    ["[::1]", "all"],
    ["::1", "all"],
    ["[fd00::/8]:443", { low: 443, high: 443 }],
    ["fd00::/8", "all"],
    ["[::ffff:127.0.0.2]:80", { low: 80, high: 80 }],
    [" LocalHost:65535 ", { low: 65535, high: 65535 }],
    ["host:1-65535", { low: 1, high: 65535 }],
  ] as const)("%s → ports %j", (entry, ports) => {
    expect(portsOf(entry)).toEqual(ports);
  });

  test("entries without a port are listed, to be warned about at start-up", () => {
    const parsed = parseAllowlist(["127.0.0.1", "localhost:8088", "::1", "[::1]:80", "10.0.0.0/8", "wp.internal"]);
    expect(parsed.allPorts).toEqual(["127.0.0.1", "::1", "10.0.0.0/8", "wp.internal"]);
    expect(new TargetPolicy(["127.0.0.1", "localhost:8088"]).allPortEntries).toEqual(["127.0.0.1"]);
  });

  test.each([
    ["127.0.0.2:0", "invalid port"],
    ["127.0.0.2:65536", "invalid port"],
    ["127.0.0.2:99999", "invalid port"],
    ["localhost:9000-8000", "invalid port"],
    ["localhost:0-80", "invalid port"],
    ["localhost:", "invalid port"],
    ["localhost:http", "invalid port"],
    ["localhost:80-", "invalid port"],
    ["localhost:-80", "invalid port"],
    ["localhost:8080:9090", "not a valid IPv6"],
    ["[::1]:0", "invalid port"],
    ["[::1]x", "not a host name"],
    ["[::1", "not a host name"],
    ["[127.0.0.1]:80", "not a valid IPv6"],
    ["[localhost]", "not a valid IPv6"],
    ["fd00::/8:443", "IPv6 goes in brackets"],
    ["10.0.0.0/33:443", "not a valid CIDR range"],
    ["10.0.0.0/8:", "invalid port"],
    ["127.1", "not a valid IPv4 address"],
    ["2130706433:80", "not a valid IPv4 address"],
    ["exa mple.com:80", "not a host name"],
    [":80", "not a host name"],
  ])("%s is a configuration problem (%s)", (entry, problem) => {
    const { problems, hosts, ranges } = parseAllowlist([entry]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`"${entry}"`);
    expect(problems[0]).toContain(problem);
    expect([...hosts, ...ranges]).toEqual([]);
  });
});

describe("allowlist ports", () => {
  const policy = new TargetPolicy([
    "127.0.0.2:8088",
    "localhost:8000-8099",
    "10.0.0.0/8:443",
    "[::1]:8080",
    "[fd00::/8]:443",
  ]);

  test("an entry with a port relaxes the policy for that port only", () => {
    expect(policy.blockReason("127.0.0.2", 8088)).toBeUndefined();
    expect(policy.blockReason("127.0.0.2", 6379)).toBe("port 6379 is not allowlisted for 127.0.0.2");
    expect(policy.blockReason("127.0.0.2", 80)).toBe("port 80 is not allowlisted for 127.0.0.2");
    expect(policy.blockReason("10.20.30.40", 443)).toBeUndefined();
    expect(policy.blockReason("10.20.30.40", 5432)).toBe("port 5432 is not allowlisted for 10.20.30.40");
    expect(policy.blockReason("::1", 8080)).toBeUndefined();
    expect(policy.blockReason("::1", 6379)).toBe("port 6379 is not allowlisted for ::1");
    expect(policy.blockReason("fd12::5", 443)).toBeUndefined();
    expect(policy.blockReason("fd12::5", 22)).toBe("port 22 is not allowlisted for fd12::5");
  });

  test("port ranges are inclusive; host names are matched on their resolved addresses' connection", () => {
    for (const port of [8000, 8042, 8099]) expect(policy.blockReason("127.0.0.1", port, "localhost")).toBeUndefined();
    for (const port of [7999, 8100, 5432, 6379]) {
      expect(policy.blockReason("127.0.0.1", port, "LOCALHOST.")).toBe(`port ${port} is not allowlisted for localhost`);
    }
    // The name's rule says nothing about the address on its own.
    expect(policy.blockReason("127.0.0.1", 8042)).toContain("loopback");
  });

  test("the refusal says whether the address or only the port is the problem", () => {
    expect(policy.refusal("127.0.0.2", 6379)).toEqual({
      kind: "port",
      reason: "port 6379 is not allowlisted for 127.0.0.2",
    });
    expect(policy.refusal("127.0.0.3", 8088)).toEqual({ kind: "address", reason: "loopback address" });
    expect(policy.refusal("192.168.1.1", 443)).toEqual({ kind: "address", reason: "private network address" });
  });

  test("an unknown port matches only entries without a port", () => {
    expect(policy.blockReason("127.0.0.2")).toBe("this port is not allowlisted for 127.0.0.2");
    expect(new TargetPolicy(["127.0.0.2"]).blockReason("127.0.0.2")).toBeUndefined();
  });

  test("public addresses stay allowed on every port; entries only ever relax", () => {
    const withPublic = new TargetPolicy(["93.184.216.34:443"]);
    expect(withPublic.blockReason("93.184.216.34", 8080)).toBeUndefined();
    expect(withPublic.blockReason("8.8.8.8", 53)).toBeUndefined();
  });

  test("entries add up: a port-less entry for the same host opens every port", () => {
    const both = new TargetPolicy(["127.0.0.2:8088", "127.0.0.0/8"]);
    expect(both.blockReason("127.0.0.2", 6379)).toBeUndefined();
    const named = new TargetPolicy(["localhost:8088", "127.0.0.1"]);
    expect(named.blockReason("127.0.0.1", 6379, "localhost")).toBeUndefined();
  });

  test("the IPv4-mapped form of an allowlisted address gets the same ports", () => {
    expect(policy.blockReason("::ffff:127.0.0.2", 8088)).toBeUndefined();
    expect(policy.blockReason("::ffff:7f00:2", 6379)).toBe("port 6379 is not allowlisted for 127.0.0.2");
  });
});

describe("IPv6 embeddings of an allowlisted IPv4 address", () => {
  const policy = new TargetPolicy(["127.0.0.2"]);

  test.each([
    ["::ffff:127.0.0.2", "IPv4-mapped, dotted"],
    ["::ffff:7f00:2", "IPv4-mapped, hex"],
    ["0:0:0:0:0:ffff:7f00:2", "IPv4-mapped, long form"],
  ])("%s is the same host (%s): allowed", (address) => {
    expect(policy.blockReason(address, 80)).toBeUndefined();
  });

  test.each([
    ["::7f00:2", "IPv4-compatible"],
    ["::127.0.0.2", "IPv4-compatible, dotted"],
    ["64:ff9b::7f00:2", "NAT64 (rfc6052)"],
    ["64:ff9b::127.0.0.2", "NAT64, dotted"],
    ["2002:7f00:2::", "6to4"],
    ["::ffff:0:7f00:2", "rfc6145"],
  ])("%s is another host (%s): refused as the loopback it carries", (address) => {
    expect(policy.blockReason(address, 80)).toBe("loopback address");
  });

  test("an IPv6 range written for mapped addresses covers the IPv4 addresses too", () => {
    const mapped = new TargetPolicy(["[::ffff:127.0.0.0/104]:80"]);
    expect(mapped.blockReason("127.0.0.2", 80)).toBeUndefined();
    expect(mapped.blockReason("127.0.0.2", 81)).toBe("port 81 is not allowlisted for 127.0.0.2");
    expect(mapped.blockReason("64:ff9b::7f00:2", 80)).toBe("loopback address");
  });

  test("validateTargetUrl refuses the embeddings before anything connects", () => {
    for (const url of ["http://[64:ff9b::7f00:2]/", "http://[::7f00:2]/", "http://[2002:7f00:2::]/"]) {
      const verdict = validateTargetUrl(url, policy);
      expect(verdict).toMatchObject({ ok: false, code: "url_not_allowed" });
    }
    expect(validateTargetUrl("http://[::ffff:127.0.0.2]/", policy).ok).toBe(true);
  });
});

describe("validateTargetUrl", () => {
  test.each([
    ["http://127.0.0.1/", "url_not_allowed"],
    ["http://2130706433/", "url_not_allowed"],
    ["http://0x7f.0.0.1/", "url_not_allowed"],
    ["http://0177.0.0.1/", "url_not_allowed"],
    ["http://127.1/", "url_not_allowed"],
    ["http://0/", "url_not_allowed"],
    ["http://[::]/", "url_not_allowed"],
    ["http://[::ffff:7f00:1]/", "url_not_allowed"],
    ["http://0x08080808/", "url_not_allowed"],
    ["http://user@example.com/", "url_not_allowed"],
    ["http://example.com@127.0.0.1/", "url_not_allowed"],
    ["https://:secret@example.com/", "url_not_allowed"],
    ["gopher://example.com/", "url_not_allowed"],
    ["data:text/html,hi", "url_not_allowed"],
    ["http://localhost/", "url_not_allowed"],
    ["//example.com/", "invalid_url"],
    ["example.com", "invalid_url"],
    ["http://", "invalid_url"],
    ["https://exa mple.com/", "invalid_url"],
  ] as const)("%s → %s", (url, code) => {
    const verdict = validateTargetUrl(url, strict);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.code).toBe(code);
  });

  test("localhost names say they are the server itself, unless allowlisted", () => {
    const closed = new TargetPolicy([]);
    for (const url of ["http://localhost:8088/", "http://LOCALHOST./", "http://wp.localhost/"]) {
      const verdict = validateTargetUrl(url, closed);
      expect(verdict).toMatchObject({ ok: false, code: "url_not_allowed", byAddressPolicy: true });
      expect(verdict.ok ? "" : verdict.detail).toContain("loopback");
    }
    expect(validateTargetUrl("http://localhost:8088/", new TargetPolicy(["localhost:8088"])).ok).toBe(true);
    // Refusals the allowlist could not lift are not flagged for the operator's hint.
    expect(validateTargetUrl("ftp://example.com/", closed)).not.toHaveProperty("byAddressPolicy");
  });

  test("the url's port, or its scheme's default, is checked against port-limited entries", () => {
    const policy = new TargetPolicy(["127.0.0.2:8088", "127.0.0.3:443", "localhost:8088"]);
    expect(validateTargetUrl("http://127.0.0.2:8088/", policy).ok).toBe(true);
    expect(validateTargetUrl("https://127.0.0.3/", policy).ok).toBe(true);
    expect(validateTargetUrl("http://127.0.0.3/", policy)).toEqual({
      ok: false,
      code: "url_not_allowed",
      detail: "The url cannot be analyzed: port 80 is not allowlisted for 127.0.0.3.",
      byAddressPolicy: true,
    });
    expect(validateTargetUrl("http://127.0.0.2:6379/", policy)).toEqual({
      ok: false,
      code: "url_not_allowed",
      detail: "The url cannot be analyzed: port 6379 is not allowlisted for 127.0.0.2.",
      byAddressPolicy: true,
    });
    expect(validateTargetUrl("http://127.0.0.4:8088/", policy)).toMatchObject({ ok: false, code: "url_not_allowed" });
    // A name is checked once resolved, with the port, where the connection is made.
    expect(validateTargetUrl("http://localhost:6379/", policy).ok).toBe(true);
  });

  test("ordinary URLs pass, normalised, without fragment", () => {
    const verdict = validateTargetUrl("  HTTPS://WWW.Example.COM:443/blog/#top ", strict);
    expect(verdict.ok && verdict.url.toString()).toBe("https://www.example.com/blog/");
    expect(validateTargetUrl("http://8.8.8.8:8080/", strict).ok).toBe(true);
    expect(validateTargetUrl("https://xn--bcher-kva.example/", strict).ok).toBe(true);
    expect(validateTargetUrl("https://bücher.example/", strict).ok).toBe(true);
  });
});

describe("siteKey", () => {
  test.each([
    ["https://www.Example.com/", "example.com"],
    ["http://example.com", "example.com"],
    ["https://example.com/blog/?utm=1#x", "example.com/blog"],
    ["https://example.com:8443/", "example.com:8443"],
    ["https://staging.example.com/", "staging.example.com"],
  ])("%s → %s", (url, key) => {
    expect(siteKey(new URL(url))).toBe(key);
  });
});
