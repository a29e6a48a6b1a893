/**
 * The lab's policy proxy on its own, spoken to as Chromium speaks to it (absolute-form http
 * requests and CONNECT), against loopback servers: what the target policy refuses is never
 * reached, a name is resolved once by the proxy and the tunnel goes to the address that was
 * checked, and the byte budget holds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type dns from "node:dns";
import net from "node:net";
import { TargetPolicy } from "../../../server/analyzer/fetch/target-policy.ts";
import { PolicyProxy } from "../../../server/analyzer/lab/policy-proxy.ts";

let hits = { allowed: 0, forbidden: 0 };
let allowed: ReturnType<typeof Bun.serve>;
let forbidden: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  allowed = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      hits.allowed += 1;
      return new Response("x".repeat(10_000));
    },
  });
  forbidden = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      hits.forbidden += 1;
      return new Response("reached");
    },
  });
});
afterAll(() => {
  allowed.stop(true);
  forbidden.stop(true);
});

/** A resolver that answers from a table, counting the questions. */
function resolver(answers: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = ((host: string, _options: unknown, callback: (e: unknown, a: dns.LookupAddress[]) => void) => {
    asked.push(host);
    const list = answers[host];
    if (!list) return callback(Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" }), []);
    callback(
      null,
      list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
  }) as unknown as typeof dns.lookup;
  return { resolve, asked };
}

/** Sends raw text to the proxy and returns the first answer it gets (the status line and what follows). */
function speak(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString();
      if (/\r\n\r\n/.test(received)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
  });
}

async function withProxy<T>(
  answers: Record<string, string[]>,
  work: (port: number, proxy: PolicyProxy, asked: string[]) => Promise<T>,
  maxBytes = 1024 * 1024,
) {
  hits = { allowed: 0, forbidden: 0 };
  const { resolve, asked } = resolver(answers);
  const proxy = new PolicyProxy({ policy: new TargetPolicy([`127.0.0.1:${allowed.port}`]), resolve, maxBytes });
  const port = Number(new URL(await proxy.listen()).port);
  try {
    return await work(port, proxy, asked);
  } finally {
    await proxy.close();
  }
}

describe("the lab's policy proxy", () => {
  test("plain http to a non-allowlisted loopback port: 403, never reached", async () => {
    await withProxy({}, async (port, proxy) => {
      const url = `http://127.0.0.1:${forbidden.port}/x`;
      const answer = await speak(port, `GET ${url} HTTP/1.1\r\nHost: 127.0.0.1:${forbidden.port}\r\n\r\n`);
      expect(answer).toStartWith("HTTP/1.1 403");
      expect(proxy.refused[0]).toEqual({
        target: url,
        reason: `port ${forbidden.port} is not allowlisted for 127.0.0.1`,
      });
      expect(hits.forbidden).toBe(0);
    });
  });

  test("CONNECT to it, by address or by a name that resolves there (or to a mix with a public address): refused", async () => {
    await withProxy({ "rebind.test": ["93.184.216.34", "127.0.0.1"], "inside.test": ["127.0.0.1"] }, async (port) => {
      for (const target of [
        `127.0.0.1:${forbidden.port}`,
        `inside.test:${forbidden.port}`,
        `rebind.test:${forbidden.port}`,
      ]) {
        const answer = await speak(port, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
        expect(answer).toStartWith("HTTP/1.1 403");
      }
      expect(hits.forbidden).toBe(0);
    });
  });

  test("CONNECT by name: resolved once by the proxy, and the tunnel goes to the checked address", async () => {
    await withProxy({ "site.test": ["127.0.0.1"] }, async (port, _proxy, asked) => {
      const target = `site.test:${allowed.port}`;
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () =>
          socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`),
        );
        let received = "";
        let sent = false;
        socket.on("data", (chunk) => {
          received += chunk.toString();
          if (!sent && received.includes("\r\n\r\n")) {
            sent = true;
            socket.write(`GET / HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`);
          }
        });
        socket.on("error", reject);
        socket.on("close", () => resolve(received));
      });
      expect(answer).toStartWith("HTTP/1.1 200 Connection Established");
      expect(answer).toContain("HTTP/1.1 200 OK");
      expect(asked).toEqual(["site.test"]);
      expect(hits.allowed).toBe(1);
    });
  });

  test("a name that does not resolve, or a malformed CONNECT: no tunnel", async () => {
    await withProxy({}, async (port) => {
      expect(await speak(port, "CONNECT nowhere.test:443 HTTP/1.1\r\n\r\n")).toStartWith("HTTP/1.1 502");
      expect(await speak(port, "CONNECT no-port HTTP/1.1\r\n\r\n")).toStartWith("HTTP/1.1 400");
      expect(await speak(port, "GET /relative HTTP/1.1\r\nHost: x\r\n\r\n")).toMatch(/^HTTP\/1.1 40[03]/);
    });
  });

  test("past the byte budget, requests are refused", async () => {
    await withProxy(
      {},
      async (port, proxy) => {
        const url = `http://127.0.0.1:${allowed.port}/`;
        const request = `GET ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
        await speak(port, request);
        const second = await speak(port, request);
        expect(second).toStartWith("HTTP/1.1 403");
        expect(proxy.refused.at(-1)?.reason).toBe("the lab run's byte budget is spent");
        expect(hits.allowed).toBe(1);
      },
      5_000,
    );
  });
});
