/**
 * HEAD-first exposed-file probes over HTTP/1.1 keep their connection (fetch/safe-client.ts
 * tells undici so), which is safe only if a server that breaks the rule — a body after its
 * HEAD answer, which undici closed connections for — cannot make a report wrong. A raw TCP
 * server (Bun.serve and node:http drop HEAD bodies themselves) that sends every body, HEAD or
 * not, after its headers in a separate write: the report is complete, without failed probes,
 * and still finds the .env it exposes (HEAD 200, then the GET that reads it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { analyze } from "../../server/analyzer/analyze.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { blogFeed, blogHomepage, EXPOSED_ENV_FILE } from "../helpers/sites.ts";

interface RawSite {
  url: string;
  /** "METHOD /path" of every request, in order. */
  hits: string[];
  /** Connections the client opened. */
  connections: number;
  stop(): void;
}

/** A keep-alive HTTP/1.1 server that writes a body after its headers for HEAD too (a few ms later, its own segment). */
async function startBodyOnHeadSite(): Promise<RawSite> {
  const site: RawSite = { url: "", hits: [], connections: 0, stop: () => {} };
  const answer = (path: string): [string, string, string] => {
    if (path === "/") return ["200 OK", "text/html; charset=UTF-8", blogHomepage(site.url.replace(/\/$/, ""))];
    if (path === "/feed/") return ["200 OK", "application/rss+xml", blogFeed];
    if (path === "/.env") return ["200 OK", "text/plain", EXPOSED_ENV_FILE];
    return [
      "404 Not Found",
      "text/html",
      `<html><body><h1>Nothing here</h1>${"<p>theme</p>".repeat(200)}</body></html>`,
    ];
  };
  const server = net.createServer((socket) => {
    site.connections += 1;
    let pending = "";
    // Answers go out in order, each body after its headers.
    let queue = Promise.resolve();
    socket.on("data", (data) => {
      pending += data.toString("latin1");
      for (let end = pending.indexOf("\r\n\r\n"); end >= 0; end = pending.indexOf("\r\n\r\n")) {
        const [method = "", target = "/"] = pending.slice(0, end).split(" ");
        pending = pending.slice(end + 4);
        const path = new URL(target, "http://x").pathname;
        site.hits.push(`${method} ${path}`);
        const [status, type, body] = answer(path);
        queue = queue.then(async () => {
          if (socket.destroyed) return;
          socket.write(
            `HTTP/1.1 ${status}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n`,
          );
          await Bun.sleep(method === "HEAD" ? 5 : 0);
          if (!socket.destroyed) socket.write(body);
        });
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  site.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
  site.stop = () => server.close();
  return site;
}

describe("a server that sends a body with its HEAD answers", () => {
  let site: RawSite;
  beforeAll(async () => {
    site = await startBodyOnHeadSite();
  });
  afterAll(() => site?.stop());

  test("the report is complete, no probe fails, and the exposed .env is still found", async () => {
    const policy = new TargetPolicy([`127.0.0.1:${new URL(site.url).port}`]);
    const agent = createSafeAgent(policy);
    try {
      const report = await analyze(
        site.url,
        { agent, policy, userAgent: "wpreport-test" },
        AbortSignal.timeout(20_000),
      );
      // The exposed-file probes did ask HEAD first, on this site too.
      expect(site.hits).toContain("HEAD /.git/HEAD");
      expect(site.hits).toContain("HEAD /.env");
      expect(site.hits).toContain("GET /.env");
      expect(report.errors).toEqual([]);
      expect(report.summary).not.toBeNull();
      expect(report.security?.exposed_files.map((file) => file.path)).toEqual(["/.env"]);
      expect(report.checks.find((check) => check.id === "security.env_file_exposed")?.status).toBe("fail");
      expect(report.checks.find((check) => check.id === "security.git_exposed")?.status).toBe("pass");
    } finally {
      await agent.close();
    }
  });
});
