/**
 * Target sites on a chosen loopback address for the fair-slots and dead-target tests (and
 * bench/fair-slots.ts): one that accepts connections and never answers, and a live
 * WordPress-looking blog.
 */
import net from "node:net";
import { blogHomepage } from "../../helpers/sites.ts";

/** Accepts connections and never answers. */
export async function startDeadSite(host: string): Promise<{ url: string; stop(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://${host}:${port}/`,
    stop() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** A WordPress-looking blog on `host`. */
export function startLiveSite(host: string): { url: string; stop(): void } {
  const server = Bun.serve({
    hostname: host,
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/")
        return new Response(blogHomepage(url.origin), { headers: { "content-type": "text/html" } });
      return new Response("not found", { status: 404 });
    },
  });
  return { url: `http://${host}:${server.port}/`, stop: () => server.stop(true) };
}
