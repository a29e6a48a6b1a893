/** The web interface's own CSS, script and icon: read once at start-up, cached an hour by browsers. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Elysia } from "elysia";
import { WebError, webBase } from "./context.ts";
import { securityHeaders } from "./render.tsx";
import { type WebPluginDeps, webPlugin } from "./web.plugin.ts";

const ASSETS: Record<string, { body: string; type: string }> = {
  "app.css": { body: readFileSync(path.join(import.meta.dir, "assets", "app.css"), "utf8"), type: "text/css" },
  "app.js": { body: readFileSync(path.join(import.meta.dir, "assets", "app.js"), "utf8"), type: "text/javascript" },
  "favicon.svg": {
    body: readFileSync(path.join(import.meta.dir, "assets", "favicon.svg"), "utf8"),
    type: "image/svg+xml",
  },
};

export function assetsRoutes(deps: WebPluginDeps) {
  return new Elysia({ name: "web.assets" }).use(webPlugin(deps)).get("/assets/:file", ({ params, request }) => {
    const asset = ASSETS[params.file];
    if (!asset) throw new WebError(404, "There is no such file.");
    const { origin } = webBase(request, deps);
    return new Response(asset.body, {
      headers: {
        ...securityHeaders(origin.startsWith("https:")),
        "content-type": `${asset.type}; charset=utf-8`,
        "cache-control": "public, max-age=3600",
      },
    });
  });
}
