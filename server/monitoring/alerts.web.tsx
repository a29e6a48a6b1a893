/**
 * The web pages of alerts (composed by server/start/app.ts): email recipients and the digest
 * (/alerts), a recipient's confirmation link (/alerts/confirm), and the webhooks' pages
 * (webhooks.web.tsx). Every form is a signed-in, CSRF-checked POST answered with a redirect
 * (or the page with what was typed); the rules are AlertSettingsService's, the same the API
 * goes through.
 */
import { Elysia } from "elysia";
import { page, redirect } from "../web/render.tsx";
import { type WebPluginDeps, webPlugin } from "../web/web.plugin.ts";
import { AlertSettingsError } from "./email/alert-settings.service.ts";
import type { Monitoring } from "./monitoring.ts";
import { AlertsPage, ConfirmRecipientPage, chosenEvents } from "./pages/alerts.tsx";
import { webhookPagesRoutes } from "./webhooks.web.tsx";

export interface AlertsRouteDeps extends WebPluginDeps {
  monitoring: Pick<Monitoring, "webhooks" | "alerts" | "emailEnabled">;
}

/** Email alerts: who gets them (confirmed recipients), which events, and the daily digest. */
function alertEmailRoutes(deps: AlertsRouteDeps) {
  const { alerts, emailEnabled } = deps.monitoring;
  return new Elysia({ name: "web.alerts.email" })
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
            emailEnabled={emailEnabled}
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
              emailEnabled={emailEnabled}
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
    );
}

export function alertsRoutes(deps: AlertsRouteDeps) {
  return new Elysia({ name: "web.alerts" }).use(alertEmailRoutes(deps)).use(webhookPagesRoutes(deps));
}
