/** API tokens: the list, creating one (its secret shown once) and revoking one. */
import { Elysia } from "elysia";
import { WebError } from "../web/context.ts";
import { page, redirect } from "../web/render.tsx";
import { type WebPluginDeps, webPlugin } from "../web/web.plugin.ts";
import { TokensPage } from "./pages/tokens.tsx";
import type { TokenService } from "./token.service.ts";

export interface TokensRouteDeps extends WebPluginDeps {
  tokens: TokenService;
}

export function tokensRoutes(deps: TokensRouteDeps) {
  return new Elysia({ name: "web.tokens" })
    .use(webPlugin(deps))
    .get(
      "/tokens",
      async ({ ctx, session, query }) =>
        page(
          ctx,
          "API tokens",
          <TokensPage
            ctx={ctx}
            query={query}
            tokens={await deps.tokens.list(session.accountId)}
            apiUrl={ctx.baseUrl}
          />,
        ),
      { signedIn: true },
    )
    .post(
      "/tokens",
      async ({ ctx, session, form }) => {
        const name = (form.name ?? "").trim();
        const days = form.expires ? Number(form.expires) : null;
        const render = (
          extra: { created?: { token: string; name: string }; error?: string },
          status = 200,
        ): Promise<Response> =>
          deps.tokens
            .list(session.accountId)
            .then((tokens) =>
              page(
                ctx,
                "API tokens",
                <TokensPage ctx={ctx} query={{}} tokens={tokens} apiUrl={ctx.baseUrl} {...extra} />,
                status,
              ),
            );
        if (!name) return render({ error: "Give the token a name, so you know later what uses it." }, 400);
        if (days !== null && ![30, 90, 365].includes(days))
          return render({ error: "Choose an expiry from the list." }, 400);
        const { token, record } = await deps.tokens.create(session.accountId, {
          name,
          expiresAt: days ? new Date(Date.now() + days * 86_400_000) : null,
        });
        // Shown once, on this response only; never stored or logged in the clear.
        return render({ created: { token, name: record.name } }, 201);
      },
      { signedIn: true, csrf: true },
    )
    .post(
      "/tokens/:id/revoke",
      async ({ ctx, session, params }) => {
        if (!(await deps.tokens.revoke(session.accountId, params.id)))
          throw new WebError(404, "There is no such active token in your account.");
        return redirect(ctx, "/tokens?notice=token_revoked");
      },
      { signedIn: true, csrf: true },
    );
}
