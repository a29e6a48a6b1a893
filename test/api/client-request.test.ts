/** Who sent a request and where to: routing URL, client address behind proxies, request origin. */
import { describe, expect, test } from "bun:test";
import os from "node:os";
import {
  clientAddress,
  isLoopbackHost,
  requestBase,
  routableRequest,
  throttleClient,
} from "../../server/platform/http/client-request.ts";
import { beginRequest } from "../../server/platform/http/request-context.ts";

/** Elysia 1.4's own path extraction, which the fix must satisfy. */
const elysiaPath = (url: string) => url.slice(url.indexOf("/", 11)).split("?")[0];

describe("routableRequest", () => {
  test("a normal URL is passed through untouched", () => {
    const request = new Request("http://127.0.0.1:3000/api/usage?x=1");
    expect(routableRequest(request)).toBe(request);
  });

  test("short hosts and bare paths become URLs Elysia reads the path of correctly", () => {
    for (const raw of ["http://x/abc/api/usage", "http://x:1/abc/api/usage", "http://ab/abc/api/usage?q=1"]) {
      const routed = routableRequest(new Request(raw));
      expect({ raw, path: elysiaPath(routed.url) }).toEqual({ raw, path: "/abc/api/usage" });
    }
  });

  test("the body and headers survive the new Request", async () => {
    const routed = routableRequest(
      new Request("http://x/api/generate-report", { method: "POST", body: '{"url":"a"}', headers: { host: "x" } }),
    );
    expect(routed.method).toBe("POST");
    expect(routed.headers.get("host")).toBe("x");
    expect(await routed.text()).toBe('{"url":"a"}');
  });
});

describe("clientAddress", () => {
  const request = (peer: string, forwarded?: string) => {
    const r = new Request("http://wpreport.example/", {
      headers: forwarded ? { "x-forwarded-for": forwarded } : {},
    });
    beginRequest(r, peer);
    return r;
  };

  test("without proxies: the TCP peer, whatever X-Forwarded-For claims", () => {
    expect(clientAddress(request("127.0.0.5", "203.0.113.9"), 0)).toBe("127.0.0.5");
    expect(clientAddress(request("::ffff:127.0.0.5"), 0)).toBe("127.0.0.5");
  });

  test("behind N proxies: the entry N from the right; a spoofed left entry is ignored", () => {
    expect(clientAddress(request("10.0.0.2", "198.51.100.7"), 1)).toBe("198.51.100.7");
    expect(clientAddress(request("10.0.0.2", "6.6.6.6, 198.51.100.7"), 1)).toBe("198.51.100.7");
    expect(clientAddress(request("10.0.0.2", "6.6.6.6, 198.51.100.7, 10.0.0.1"), 2)).toBe("198.51.100.7");
    // Fewer entries than proxies: the leftmost there is; garbage falls back to the peer.
    expect(clientAddress(request("10.0.0.2", "198.51.100.7"), 3)).toBe("198.51.100.7");
    expect(clientAddress(request("10.0.0.2", "not-an-ip"), 1)).toBe("10.0.0.2");
    expect(clientAddress(request("10.0.0.2"), 1)).toBe("10.0.0.2");
  });
});

describe("requestBase", () => {
  const unset = { publicBaseUrl: "http://localhost:3000", publicBaseUrlSet: false, trustedProxies: 0 };
  const at = (host: string | undefined, headers: Record<string, string> = {}) =>
    new Request("http://wpreport.internal/x", { headers: host === undefined ? headers : { host, ...headers } });

  test("PUBLIC_BASE_URL set: always that", () => {
    const options = { publicBaseUrl: "https://wp.example/app", publicBaseUrlSet: true, trustedProxies: 0 };
    expect(requestBase(at("127.0.0.1:3000"), options)).toEqual({
      origin: "https://wp.example",
      baseUrl: "https://wp.example/app",
    });
  });

  test("unset: the Host the client used; odd or missing hosts fall back to the default", () => {
    expect(requestBase(at("127.0.0.1:3000"), unset).origin).toBe("http://127.0.0.1:3000");
    expect(requestBase(at("[::1]:3000"), unset).origin).toBe("http://[::1]:3000");
    expect(requestBase(at("LocalHost:3000"), unset).origin).toBe("http://localhost:3000");
    expect(requestBase(at(`${os.hostname()}:3000`), unset).origin).toBe(`http://${os.hostname().toLowerCase()}:3000`);
    // A name someone else's DNS controls is not ours (DNS rebinding of a local trial).
    for (const odd of ["", "a b", "x/y", "évil", "x:1:2", "user@host", "attacker.example:3000", "wp.example"]) {
      expect({ odd, origin: requestBase(at(odd), unset).origin }).toEqual({ odd, origin: "http://localhost:3000" });
    }
    expect(requestBase(at(undefined), unset).origin).toBe("http://localhost:3000");
  });

  test("forwarded host and scheme count only behind a trusted proxy", () => {
    const headers = { "x-forwarded-host": "203.0.113.5", "x-forwarded-proto": "https" };
    expect(requestBase(at("10.0.0.2:3000", headers), unset).origin).toBe("http://10.0.0.2:3000");
    expect(requestBase(at("10.0.0.2:3000", headers), { ...unset, trustedProxies: 1 }).origin).toBe(
      "https://203.0.113.5",
    );
  });
});

test("the throttle's client: a same-host proxy's peer (127.0.0.1, ::1) says nothing without TRUST_PROXY", () => {
  expect(throttleClient("127.0.0.1", 0)).toBeUndefined();
  expect(throttleClient("::1", 0)).toBeUndefined();
  expect(throttleClient("::ffff:127.0.0.1", 0)).toBeUndefined();
  expect(throttleClient("unknown", 0)).toBeUndefined();
  expect(throttleClient("127.0.0.7", 0)).toBe("127.0.0.7");
  expect(throttleClient("203.0.113.9", 0)).toBe("203.0.113.9");
  // With TRUST_PROXY the client address is the proxy's X-Forwarded-For entry, whatever it is.
  expect(throttleClient("127.0.0.1", 1)).toBe("127.0.0.1");
});

test("isLoopbackHost", () => {
  for (const host of ["localhost", "app.localhost", "127.0.0.1", "127.8.9.10", "::1", "[::1]", "::ffff:127.0.0.1"]) {
    expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: true });
  }
  for (const host of ["wp.example", "10.0.0.1", "0.0.0.0", "::", "localhost.example", "unknown"]) {
    expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: false });
  }
});
