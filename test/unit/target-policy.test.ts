/**
 * The target policy and URL validation: a table of SSRF forms that must all be refused,
 * and ordinary public targets that must pass.
 */
import { describe, expect, test } from "bun:test";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
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
    expect(relaxed.blockReason("192.168.0.9", "wp.internal")).toBeUndefined();
    expect(relaxed.blockReason("::1")).toBeUndefined();
    expect(relaxed.blockReason("::ffff:127.0.0.1")).toBeUndefined();
  });

  test("bad allowlist entries are refused", () => {
    expect(() => new TargetPolicy(["10.0.0.0/33"])).toThrow("not a valid CIDR range");
    expect(() => new TargetPolicy(["exa mple.com"])).toThrow("not a host name");
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
