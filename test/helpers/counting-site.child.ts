/**
 * The site of test/helpers/counting-site.ts, in a process of its own: a WordPress-looking blog
 * that notes when each request reached it. Prints `{"port":…,"control":…}` on its first line;
 * `GET /` on the control port answers what it saw so far.
 */
import { blogHomepage } from "./sites.ts";

const hostname = process.env.SITE_ADDRESS ?? "127.0.0.1";
const robotsHoldMs = Number(process.env.ROBOTS_HOLD_MS ?? "0");

const arrivals: { at: number; host: string; path: string }[] = [];
let atOnce = 0;
let maxAtOnce = 0;

const site = Bun.serve({
  hostname,
  port: 0,
  idleTimeout: 60,
  async fetch(request) {
    const url = new URL(request.url);
    arrivals.push({ at: performance.now(), host: url.hostname.toLowerCase(), path: url.pathname });
    if (url.pathname === "/robots.txt") {
      // robots.txt is asked once per analysis, near its start: held, it counts analyses at once.
      atOnce++;
      maxAtOnce = Math.max(maxAtOnce, atOnce);
      try {
        if (robotsHoldMs > 0) await Bun.sleep(robotsHoldMs);
        return new Response("User-agent: *\nDisallow:\n", { headers: { "content-type": "text/plain" } });
      } finally {
        atOnce--;
      }
    }
    if (url.pathname === "/")
      return new Response(blogHomepage(url.origin), { headers: { "content-type": "text/html" } });
    return new Response("not found", { status: 404 });
  },
});

const control = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => Response.json({ arrivals, maxAtOnce }),
});

console.log(JSON.stringify({ port: site.port, control: control.port }));
