/** Pages anyone may read: the landing page and the check catalogue. */
import { Elysia } from "elysia";
import { ChecksPage } from "./pages/checks.tsx";
import { LandingPage } from "./pages/landing.tsx";
import { page } from "./render.tsx";
import { type WebPluginDeps, webPlugin } from "./web.plugin.ts";

export function publicRoutes(deps: WebPluginDeps) {
  return new Elysia({ name: "web.public" })
    .use(webPlugin(deps))
    .get("/", ({ ctx }) => page(ctx, "WordPress reports for agencies and CI", <LandingPage ctx={ctx} />), {
      page: true,
    })
    .get("/docs/checks", ({ ctx }) => page(ctx, "Check catalogue", <ChecksPage />), { page: true });
}
