/**
 * Small real WordPress-like sites for detection tests, served by Bun on 127.0.0.1 from the
 * files in test/analyzer/sites/<name>/public/, as nginx or Apache would serve them: index.html (or
 * index.php, served as HTML, index.xml, index.json) for a folder, 301 to the slash for a folder asked without one,
 * an autoindex page for a folder without an index when the site turns autoindex on, 403
 * otherwise, 404 for anything missing. `{{origin}}` in text files becomes the site's origin,
 * so pages carry absolute URLs as WordPress prints them.
 *
 * test/analyzer/sites/<name>/site.json:
 *   autoindex  "nginx" | "apache" | null   the listing format (nginx autoindex, Apache mod_autoindex FancyIndexing)
 *   headers    { "<path>": { name: value } }   extra response headers ("*": every response;
 *              `{{origin}}` is replaced here too)
 *
 * Used by scripts/capture-artifacts.ts (`--site <name>`) and test/analyzer/detect-sites.test.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Server } from "bun";

export const SITES_DIR = import.meta.dir;

interface SiteConfig {
  autoindex?: "nginx" | "apache" | null;
  headers?: Record<string, Record<string, string>>;
}

export interface StaticSite {
  name: string;
  /** Origin with a trailing slash. */
  url: string;
  /** Requests seen, as "METHOD /path?query". */
  hits: string[];
  stop(): void;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=UTF-8",
  ".php": "text/html; charset=UTF-8",
  ".css": "text/css",
  ".js": "application/javascript",
  ".json": "application/json; charset=UTF-8",
  ".txt": "text/plain",
  ".xml": "application/xml",
};

/** Fixed dates, so that captured listings do not change between captures. */
const STAMP = { nginx: "05-Jun-2024 10:12", apache: "2024-06-05 10:12" };

function nginxIndex(urlPath: string, entries: { name: string; directory: boolean; size: number }[]): string {
  const rows = entries.map(({ name, directory, size }) => {
    const label = `${name}${directory ? "/" : ""}`;
    const href = `${encodeURIComponent(name)}${directory ? "/" : ""}`;
    return `<a href="${href}">${label}</a>${" ".repeat(Math.max(1, 51 - label.length))}${STAMP.nginx}${String(directory ? "-" : size).padStart(20)}`;
  });
  return `<html>\r\n<head><title>Index of ${urlPath}</title></head>\r\n<body>\r\n<h1>Index of ${urlPath}</h1><hr><pre><a href="../">../</a>\r\n${rows.join("\r\n")}\r\n</pre><hr></body>\r\n</html>\r\n`;
}

function apacheIndex(urlPath: string, entries: { name: string; directory: boolean; size: number }[]): string {
  const shown = urlPath.replace(/\/$/, "");
  const parent = `${shown.slice(0, shown.lastIndexOf("/") + 1)}`;
  const rows = entries.map(({ name, directory, size }) => {
    const href = `${encodeURIComponent(name)}${directory ? "/" : ""}`;
    const icon = directory ? `<img src="/icons/folder.gif" alt="[DIR]">` : `<img src="/icons/text.gif" alt="[TXT]">`;
    return `<tr><td valign="top">${icon}</td><td><a href="${href}">${name}${directory ? "/" : ""}</a></td><td align="right">${STAMP.apache}  </td><td align="right">${directory ? "  - " : `${size} `}</td><td>&nbsp;</td></tr>`;
  });
  return `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html>
 <head>
  <title>Index of ${shown}</title>
 </head>
 <body>
<h1>Index of ${shown}</h1>
  <table>
   <tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th><th><a href="?C=D;O=A">Description</a></th></tr>
   <tr><th colspan="5"><hr></th></tr>
<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="${parent}">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td><td>&nbsp;</td></tr>
${rows.join("\n")}
   <tr><th colspan="5"><hr></th></tr>
</table>
<address>Apache/2.4.62 (Debian) Server at 127.0.0.1 Port 80</address>
</body></html>
`;
}

/** Starts site `name` on 127.0.0.1 (`port` 0: any free port). */
export function startStaticSite(name: string, port = 0): StaticSite {
  const root = path.join(SITES_DIR, name, "public");
  const config = JSON.parse(readFileSync(path.join(SITES_DIR, name, "site.json"), "utf8")) as SiteConfig;
  const hits: string[] = [];
  let origin = "";

  const headersFor = (urlPath: string, type: string) => {
    const extra = { ...config.headers?.["*"], ...config.headers?.[urlPath] };
    for (const [name, value] of Object.entries(extra)) extra[name] = value.replaceAll("{{origin}}", origin);
    return { "content-type": type, ...extra };
  };
  const file = (filePath: string, urlPath: string, method: string) => {
    const type = TYPES[path.extname(filePath)] ?? "application/octet-stream";
    const text = readFileSync(filePath, "utf8").replaceAll("{{origin}}", origin);
    return new Response(method === "HEAD" ? null : text, { headers: headersFor(urlPath, type) });
  };

  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port,
    fetch(request) {
      const url = new URL(request.url);
      hits.push(`${request.method} ${url.pathname}${url.search}`);
      let urlPath: string;
      try {
        urlPath = decodeURIComponent(url.pathname);
      } catch {
        return new Response("bad request", { status: 400 });
      }
      const target = path.join(root, urlPath);
      if (!target.startsWith(root)) return new Response("forbidden", { status: 403 });
      const notFound = () =>
        new Response("<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>", {
          status: 404,
          headers: headersFor(urlPath, TYPES[".html"] as string),
        });
      if (!existsSync(target)) return notFound();
      if (statSync(target).isDirectory()) {
        if (!urlPath.endsWith("/"))
          return new Response(null, { status: 301, headers: { location: `${url.pathname}/` } });
        for (const index of ["index.html", "index.php", "index.xml", "index.json"]) {
          if (existsSync(path.join(target, index))) return file(path.join(target, index), urlPath, request.method);
        }
        if (!config.autoindex) return new Response("<html><body>403 Forbidden</body></html>", { status: 403 });
        const entries = readdirSync(target, { withFileTypes: true })
          .map((entry) => ({
            name: entry.name,
            directory: entry.isDirectory(),
            size: entry.isDirectory() ? 0 : statSync(path.join(target, entry.name)).size,
          }))
          .sort((a, b) => a.name.localeCompare(b.name));
        const html = config.autoindex === "apache" ? apacheIndex(urlPath, entries) : nginxIndex(urlPath, entries);
        return new Response(request.method === "HEAD" ? null : html, {
          headers: headersFor(urlPath, TYPES[".html"] as string),
        });
      }
      return file(target, urlPath, request.method);
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  return { name, url: `${origin}/`, hits, stop: () => server.stop(true) };
}

/** The sites in test/analyzer/sites/ (folders with a site.json). */
export function siteNames(): string[] {
  return readdirSync(SITES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(SITES_DIR, entry.name, "site.json")))
    .map((entry) => entry.name)
    .sort();
}
