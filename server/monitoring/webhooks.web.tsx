/**
 * The web pages of webhooks (/alerts/webhooks…, composed by alerts.web.tsx): the list with the
 * add form, one webhook with "send test", secret rotation, enable, disable, delete and its
 * delivery log with redeliver. Every form is a signed-in, CSRF-checked POST answered with a
 * redirect (or the page with the secret shown once); the rules are WebhookService's, the same
 * the API goes through.
 */
import { Elysia } from "elysia";
import type { WebhookFormat } from "../../shared/monitoring-api.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { type WebContext, WebError } from "../web/context.ts";
import { page, redirect } from "../web/render.tsx";
import { type WebPluginDeps, webPlugin } from "../web/web.plugin.ts";
import type { Monitoring } from "./monitoring.ts";
import { chosenEvents, WebhookPage, WebhooksPage } from "./pages/alerts.tsx";
import type { WebhookService } from "./webhooks/webhooks.service.ts";

export interface WebhookPagesDeps extends WebPluginDeps {
  monitoring: Pick<Monitoring, "webhooks">;
}

type Query = Record<string, string | undefined>;

/** A refusal of the service as the page shows it; anything else goes on to the error pages. */
function messageOf(error: unknown): { status: number; message: string } {
  if (error instanceof ApiProblem) {
    if (error.code === "not_found") throw new WebError(404, error.detail);
    return { status: error.status, message: error.detail };
  }
  throw error;
}

/** Runs a service call whose refusal is an error page (a missing webhook is the 404 page). */
async function refusedAsErrorPage<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    const { status, message } = messageOf(error);
    throw new WebError(status, message);
  }
}

/** The form as typed (trimmed), for the service and for showing it again on a refusal. */
function webhookFormFrom(form: Record<string, string>) {
  return {
    url: (form.url ?? "").trim(),
    events: chosenEvents(form),
    format: (form.format === "slack" ? "slack" : "standard") as WebhookFormat,
    description: (form.description ?? "").trim().slice(0, 200),
  };
}

async function webhooksPage(
  webhooks: WebhookService,
  ctx: WebContext,
  accountId: string,
  query: Query,
  extra: Partial<Parameters<typeof WebhooksPage>[0]> = {},
  status = 200,
) {
  const list = await webhooks.list(accountId, { before: query.before }).catch(() => webhooks.list(accountId));
  return page(
    ctx,
    "Webhooks",
    <WebhooksPage
      ctx={ctx}
      query={query}
      webhooks={list.data}
      nextCursor={list.next_cursor}
      available={webhooks.available()}
      {...extra}
    />,
    status,
  );
}

async function webhookPage(
  webhooks: WebhookService,
  ctx: WebContext,
  accountId: string,
  id: string,
  query: Query,
  rotated?: { secret: string; previous_secret_expires_at: string | null },
) {
  try {
    const webhook = await webhooks.get(accountId, id);
    const log = await webhooks
      .deliveries(accountId, id, { before: query.before })
      .catch(() => webhooks.deliveries(accountId, id));
    return page(
      ctx,
      "Webhook",
      <WebhookPage
        ctx={ctx}
        query={query}
        webhook={webhook}
        deliveries={log.data}
        nextCursor={log.next_cursor}
        rotated={rotated}
      />,
    );
  } catch (error) {
    messageOf(error);
    throw error;
  }
}

export function webhookPagesRoutes(deps: WebhookPagesDeps) {
  const { webhooks } = deps.monitoring;

  /** Runs a webhook action, then sends the browser back to the webhook's page with a notice. */
  const act = async (ctx: WebContext, id: string, action: () => Promise<unknown>, notice: string) => {
    await refusedAsErrorPage(action);
    return redirect(ctx, `/alerts/webhooks/${id}?notice=${notice}`);
  };

  return new Elysia({ name: "web.alerts.webhooks" })
    .use(webPlugin(deps))
    .get("/alerts/webhooks", ({ ctx, session, query }) => webhooksPage(webhooks, ctx, session.accountId, query), {
      signedIn: true,
    })
    .post(
      "/alerts/webhooks",
      async ({ ctx, session, form }) => {
        const input = webhookFormFrom(form);
        const refuse = (message: string, status: number) =>
          webhooksPage(webhooks, ctx, session.accountId, {}, { form: input, error: message }, status);
        if (!input.url) return refuse("Give the URL your endpoint receives events at.", 400);
        if (input.events.length === 0) return refuse("Choose at least one event to send to it.", 400);
        try {
          const created = await webhooks.create(session.accountId, input);
          // Shown once, on this response only; stored sealed, never logged.
          return webhooksPage(webhooks, ctx, session.accountId, {}, { created }, 201);
        } catch (error) {
          const { status, message } = messageOf(error);
          return refuse(message, status);
        }
      },
      { signedIn: true, csrf: true },
    )
    .get(
      "/alerts/webhooks/:id",
      ({ ctx, session, params, query }) => webhookPage(webhooks, ctx, session.accountId, params.id, query),
      { signedIn: true },
    )
    .post(
      "/alerts/webhooks/:id/test",
      ({ ctx, session, params }) =>
        act(ctx, params.id, () => webhooks.test(session.accountId, params.id), "webhook_test_sent"),
      { signedIn: true, csrf: true },
    )
    .post(
      "/alerts/webhooks/:id/rotate",
      async ({ ctx, session, params }) => {
        const rotated = await refusedAsErrorPage(() => webhooks.rotateSecret(session.accountId, params.id));
        return webhookPage(webhooks, ctx, session.accountId, params.id, {}, rotated);
      },
      { signedIn: true, csrf: true },
    )
    .post(
      "/alerts/webhooks/:id/enable",
      ({ ctx, session, params }) =>
        act(ctx, params.id, () => webhooks.update(session.accountId, params.id, { enabled: true }), "webhook_enabled"),
      { signedIn: true, csrf: true },
    )
    .post(
      "/alerts/webhooks/:id/disable",
      ({ ctx, session, params }) =>
        act(
          ctx,
          params.id,
          () => webhooks.update(session.accountId, params.id, { enabled: false }),
          "webhook_disabled",
        ),
      { signedIn: true, csrf: true },
    )
    .post(
      "/alerts/webhooks/:id/delete",
      async ({ ctx, session, params }) => {
        await refusedAsErrorPage(() => webhooks.remove(session.accountId, params.id));
        return redirect(ctx, "/alerts/webhooks?notice=webhook_deleted");
      },
      { signedIn: true, csrf: true },
    )
    .post(
      "/alerts/webhooks/:id/deliveries/:delivery_id/redeliver",
      ({ ctx, session, params }) =>
        act(
          ctx,
          params.id,
          () => webhooks.redeliver(session.accountId, params.id, params.delivery_id),
          "webhook_redelivered",
        ),
      { signedIn: true, csrf: true },
    );
}
