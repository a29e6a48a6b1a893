/**
 * Small real HTTP servers on loopback that play target sites in tests: a plain
 * WordPress-like blog, a slow one, and whatever a test needs. (The real WordPress from
 * the fixture sites (README, "Run the tests") is used where WordPress itself matters.)
 */
import type { Server } from "bun";

export interface TestSite {
  url: string;
  server: Server<undefined>;
  /** Requests seen, as "METHOD /path". */
  hits: string[];
  stop(): void;
}

export type Handler = (request: Request) => Response | Promise<Response>;

export function startSite(routes: Record<string, Handler>, fallback?: Handler): TestSite {
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    fetch(request) {
      const url = new URL(request.url);
      hits.push(`${request.method} ${url.pathname}`);
      const handler = routes[url.pathname] ?? fallback;
      return handler ? handler(request) : new Response("not found", { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, server, hits, stop: () => server.stop(true) };
}

export const BLOG_VERSION = "6.4.2";

export function blogHomepage(origin: string, title = "Test Blog"): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="alternate" type="application/rss+xml" title="Feed" href="${origin}/feed/">
<link rel="https://api.w.org/" href="${origin}/wp-json/">
<link rel="stylesheet" href="${origin}/wp-includes/css/dist/block-library/style.min.css?ver=${BLOG_VERSION}">
<meta name="generator" content="WordPress ${BLOG_VERSION}">
</head><body class="home blog"><h1>${title}</h1><p>${"Hello world. ".repeat(200)}</p></body></html>`;
}

export const blogFeed = `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Test Blog</title>
<generator>https://wordpress.org/?v=${BLOG_VERSION}</generator></channel></rss>`;

/** A WordPress-like blog: homepage with generator meta, REST link and a feed. */
export function startBlog(): TestSite {
  let origin = "";
  const site = startSite({
    "/": () => new Response(blogHomepage(origin), { headers: { "content-type": "text/html; charset=UTF-8" } }),
    "/feed/": () => new Response(blogFeed, { headers: { "content-type": "application/rss+xml" } }),
  });
  origin = site.url.replace(/\/$/, "");
  return site;
}

/** A site whose homepage answers only after `delayMs` (or never, until stopped). */
export function startSlowSite(delayMs: number): TestSite {
  return startSite({
    "/": async () => {
      await Bun.sleep(delayMs);
      return new Response("<html><head><title>slow</title></head></html>", {
        headers: { "content-type": "text/html" },
      });
    },
  });
}

export interface SwitchableBlog extends TestSite {
  /** Serve the homepage gzip-compressed (true, the start) or plain (a performance regression). */
  compressed: boolean;
}

/**
 * A blog whose homepage can regress on demand: switching `compressed` off turns
 * performance.html_compression from pass to fail — a real change of what the site serves.
 */
export function startSwitchableBlog(): SwitchableBlog {
  let origin = "";
  const site = startSite({
    "/": () => {
      const html = blogHomepage(origin);
      return blog.compressed
        ? new Response(Bun.gzipSync(html), { headers: { "content-type": "text/html", "content-encoding": "gzip" } })
        : new Response(html, { headers: { "content-type": "text/html" } });
    },
    "/feed/": () => new Response(blogFeed, { headers: { "content-type": "application/rss+xml" } }),
  });
  origin = site.url.replace(/\/$/, "");
  const blog: SwitchableBlog = Object.assign(site, { compressed: true });
  return blog;
}

export interface EnvExposingBlog extends TestSite {
  /** Serve a `.env` file in the web root (a bad deploy) or 404 for it (the start). */
  envExposed: boolean;
  /** The homepage is WordPress's 500 "Error establishing a database connection" page (a deploy that broke the site). */
  down: boolean;
}

/** The `.env` a bad deploy leaves behind: what security.env_file_exposed looks for. */
export const EXPOSED_ENV_FILE =
  "APP_ENV=production\nDB_PASSWORD=correct-horse-battery-staple\nSTRIPE_SECRET_KEY=sk_live_x\n";

/**
 * A WordPress-like blog whose deploys can leave a `.env` in the web root: switching
 * `envExposed` on turns security.env_file_exposed (critical) from pass to fail.
 */
export function startEnvExposingBlog(): EnvExposingBlog {
  let origin = "";
  const site = startSite({
    "/": () =>
      blog.down
        ? new Response(
            "<!doctype html><title>Database Error</title><h1>Error establishing a database connection</h1>",
            {
              status: 500,
              headers: { "content-type": "text/html; charset=UTF-8" },
            },
          )
        : new Response(blogHomepage(origin), { headers: { "content-type": "text/html; charset=UTF-8" } }),
    "/feed/": () => new Response(blogFeed, { headers: { "content-type": "application/rss+xml" } }),
    "/.env": () =>
      blog.envExposed
        ? new Response(EXPOSED_ENV_FILE, { headers: { "content-type": "text/plain" } })
        : new Response("not found", { status: 404 }),
  });
  origin = site.url.replace(/\/$/, "");
  const blog: EnvExposingBlog = Object.assign(site, { envExposed: false, down: false });
  return blog;
}

/** A static site made with Hugo, served by nginx (so its headers say): not WordPress. */
export function startStaticSite(): TestSite {
  return startSite({
    "/": () =>
      new Response(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title><meta name="generator" content="Hugo 0.111.3"></head><body><h1>Docs</h1><p>${"Static text. ".repeat(100)}</p></body></html>`,
        { headers: { "content-type": "text/html; charset=UTF-8", server: "nginx/1.22.1" } },
      ),
  });
}
