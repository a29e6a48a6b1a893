/** Pages anyone may read: the landing page and the check catalogue. */
import { Elysia } from "elysia";
import type { ComponentType } from "preact";
import { ChecksPage } from "./pages/checks.tsx";
import { LandingPage } from "./pages/landing.tsx";
import { page } from "./render.tsx";
import { type WebPluginDeps, webPlugin } from "./web.plugin.ts";

export interface PublicRouteDeps extends WebPluginDeps {
  /** The plans for the landing page's pricing section (billing's, handed in by start/app.ts). */
  Pricing: ComponentType;
}

export function publicRoutes(deps: PublicRouteDeps) {
  return new Elysia({ name: "web.public" })
    .use(webPlugin(deps))
    .get(
      "/",
      ({ ctx }) => page(ctx, "WordPress reports for agencies and CI", <LandingPage ctx={ctx} Pricing={deps.Pricing} />),
      {
        page: true,
      },
    )
    .get("/docs/checks", ({ ctx }) => page(ctx, "Check catalogue", <ChecksPage />), { page: true });
}
