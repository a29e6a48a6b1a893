/**
 * The web pages of alerts (composed by server/start/app.ts): email recipients and the
 * digest, webhooks with "send test", secret rotation and the delivery log. Every form is a
 * signed-in, CSRF-checked POST answered with a redirect (or the page with the secret shown
 * once); the rules are the services' (WebhookService, AlertSettingsService), the same the
 * API goes through.
 */
import { Elysia } from "elysia";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../shared/events.ts";
import type { WebhookFormat } from "../../shared/monitoring-api.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { type WebContext, WebError } from "../web/context.ts";
import { page, redirect } from "../web/render.tsx";
import { type WebPluginDeps, webPlugin } from "../web/web.plugin.ts";
import { AlertSettingsError } from "./email/alert-settings.service.ts";
import type { Monitoring } from "./monitoring.ts";
import { AlertsPage, ConfirmRecipientPage, eventField, WebhookPage, WebhooksPage } from "./pages/alerts.tsx";

export interface AlertsRouteDeps extends WebPluginDeps {
  monitoring: Pick<Monitoring, "webhooks" | "alerts" | "emailEnabled">;
}

const chosenEvents = (form: Record<string, string>) =>
  SUBSCRIBABLE_EVENT_TYPES.filter((type) => form[eventField(type)] === "on");

/** A refusal of the services as the page shows it; anything else goes on to the error pages. */
function messageOf(error: unknown): { status: number; message: string } {
  if (error instanceof ApiProblem) {
    if (error.code === "not_found") throw new WebError(404, error.detail);
    return { status: error.status, message: error.detail };
  }
  throw error;
}

export function alertsRoutes(deps: AlertsRouteDeps) {
  const { webhooks, alerts } = deps.monitoring;

  const webhooksPage = async (
    ctx: WebContext,
    accountId: string,
    query: Record<string, string | undefined>,
    extra: Partial<Parameters<typeof WebhooksPage>[0]> = {},
    status = 200,
  ) => {
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
  };

  const webhookPage = async (
    ctx: WebContext,
    accountId: string,
    id: string,
    query: Record<string, string | undefined>,
    rotated?: { secret: string; previous_secret_expires_at: string | null },
  ) => {
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
  };

  /** Runs a webhook action, then sends the browser back to the webhook's page with a notice. */
  const act = async (ctx: WebContext, id: string, action: () => Promise<unknown>, notice: string) => {
    try {
      await action();
    } catch (error) {
      const { status, message } = messageOf(error);
      throw new WebError(status, message);
    }
    return redirect(ctx, `/alerts/webhooks/${id}?notice=${notice}`);
  };

  return new Elysia({ name: "web.alerts" })
    .use(webPlugin(deps))
    .get(
      "/alerts",
      async ({ ctx, account, query }) =>
        page(
          ctx,
          "Alerts",
          <AlertsPage
            ctx={ctx}
            query={query}
            settings={await alerts.get(account.id)}
            emailEnabled={deps.monitoring.emailEnabled}
            accountEmail={account.email}
          />,
        ),
      { account: true },
    )
    .post(
      "/alerts",
      async ({ ctx, account, form }) => {
        const settings = {
          recipients: [form.recipients ?? ""],
          digest: form.digest === "on",
          events: chosenEvents(form),
        };
        try {
          await alerts.save(account.id, settings);
        } catch (error) {
          if (!(error instanceof AlertSettingsError)) throw error;
          return page(
            ctx,
            "Alerts",
            <AlertsPage
              ctx={ctx}
              query={{}}
              settings={{ ...settings, recipients: [], confirmed: [] }}
              recipientsText={form.recipients ?? ""}
              emailEnabled={deps.monitoring.emailEnabled}
              accountEmail={account.email}
              error={error.message}
            />,
            400,
          );
        }
        return redirect(ctx, "/alerts?notice=alerts_saved");
      },
      { account: true, csrf: true },
    )
    .get(
      "/alerts/confirm",
      async ({ ctx, query }) => {
        // A recipient's confirmation link (alert-settings.service.ts): anyone holding it, signed in or not.
        const token = typeof query.token === "string" ? query.token : "";
        const email = await alerts.confirm(token, false);
        const status = email ? 200 : 404;
        return page(
          ctx,
          "Confirm alert emails",
          <ConfirmRecipientPage ctx={ctx} token={token} email={email} />,
          status,
        );
      },
      { page: true },
    )
    .post(
      "/alerts/confirm",
      async ({ ctx, form }) => {
        const token = form.token ?? "";
        const email = await alerts.confirm(token, true);
        return page(
          ctx,
          "Confirm alert emails",
          <ConfirmRecipientPage ctx={ctx} token={token} email={email} confirmed={email !== undefined} />,
          email ? 200 : 404,
        );
      },
      { page: true, csrf: true },
    )
    .get("/alerts/webhooks", ({ ctx, session, query }) => webhooksPage(ctx, session.accountId, query), {
      signedIn: true,
    })
    .post(
      "/alerts/webhooks",
      async ({ ctx, session, form }) => {
        const input = {
          url: (form.url ?? "").trim(),
          events: chosenEvents(form),
          format: (form.format === "slack" ? "slack" : "standard") as WebhookFormat,
          description: (form.description ?? "").trim().slice(0, 200),
        };
        const refuse = (message: string, status: number) =>
          webhooksPage(ctx, session.accountId, {}, { form: input, error: message }, status);
        if (!input.url) return refuse("Give the URL your endpoint receives events at.", 400);
        if (input.events.length === 0) return refuse("Choose at least one event to send to it.", 400);
        try {
          const created = await webhooks.create(session.accountId, input);
          // Shown once, on this response only; stored sealed, never logged.
          return webhooksPage(ctx, session.accountId, {}, { created }, 201);
        } catch (error) {
          const { status, message } = messageOf(error);
          return refuse(message, status);
        }
      },
      { signedIn: true, csrf: true },
    )
    .get(
      "/alerts/webhooks/:id",
      ({ ctx, session, params, query }) => webhookPage(ctx, session.accountId, params.id, query),
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
        let rotated: Awaited<ReturnType<typeof webhooks.rotateSecret>>;
        try {
          rotated = await webhooks.rotateSecret(session.accountId, params.id);
        } catch (error) {
          const { status, message } = messageOf(error);
          throw new WebError(status, message);
        }
        return webhookPage(ctx, session.accountId, params.id, {}, rotated);
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
        try {
          await webhooks.remove(session.accountId, params.id);
        } catch (error) {
          const { status, message } = messageOf(error);
          throw new WebError(status, message);
        }
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
