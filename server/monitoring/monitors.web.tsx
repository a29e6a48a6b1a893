/**
 * The web pages of monitors (composed by server/start/app.ts): list and add (/monitors), one
 * monitor with edit, pause or resume, run now and delete (/monitors/{id}). Every form is a
 * signed-in, CSRF-checked POST answered with a redirect, or with the page and what was typed
 * when MonitorService refuses it — the same rules the API goes through.
 */
import { Elysia } from "elysia";
import type { Account } from "../accounts/account.service.ts";
import { getPlan } from "../billing/plans.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { type WebContext, WebError } from "../web/context.ts";
import { page, redirect } from "../web/render.tsx";
import { type WebPluginDeps, webPlugin } from "../web/web.plugin.ts";
import type { Monitoring } from "./monitoring.ts";
import type { MonitorCaller } from "./monitors/monitors.service.ts";
import { type MonitorForm, MonitorPage, MonitorsPage } from "./pages/monitors.tsx";

export interface MonitorsWebDeps extends WebPluginDeps {
  monitoring: Pick<Monitoring, "monitors">;
}

function callerOf(account: Account): MonitorCaller {
  const plan = getPlan(account.planId);
  return { accountId: account.id, planId: plan.id, monthlyQuota: plan.monthlyQuota };
}

/** The form as typed (trimmed), for the service and for showing it again on a refusal. */
function formFrom(form: Record<string, string>): MonitorForm {
  return {
    url: (form.url ?? "").trim(),
    schedule: (form.schedule ?? "").trim(),
    environment: (form.environment ?? "").trim(),
    fail_on: (form.fail_on ?? "high").trim(),
    assert: form.assert ?? "",
  };
}

/** A refusal of the service as the page shows it; a missing monitor is the 404 page; the rest go on. */
function refusal(error: unknown): { status: number; message: string } {
  if (error instanceof ApiProblem) {
    if (error.code === "not_found") throw new WebError(404, error.detail);
    return { status: error.status < 500 ? error.status : 422, message: error.detail };
  }
  throw error;
}

export function monitorsWebRoutes(deps: MonitorsWebDeps) {
  const { monitors } = deps.monitoring;

  const listPage = async (
    ctx: WebContext,
    account: Account,
    query: Record<string, string | undefined>,
    refused?: { form: MonitorForm; error: string; status: number },
  ) => {
    const list = await monitors.list(account.id, { before: query.before }).catch(() => monitors.list(account.id));
    return page(
      ctx,
      "Monitors",
      <MonitorsPage
        ctx={ctx}
        query={query}
        monitors={list.data}
        nextCursor={list.next_cursor}
        maxMonitors={getPlan(account.planId).maxMonitors}
        form={refused?.form}
        error={refused?.error}
      />,
      refused?.status ?? 200,
    );
  };

  const monitorPage = async (
    ctx: WebContext,
    accountId: string,
    id: string,
    query: Record<string, string | undefined>,
    refused?: { form: MonitorForm; error: string; status: number },
  ) => {
    let monitor: Awaited<ReturnType<typeof monitors.get>>;
    try {
      monitor = await monitors.get(accountId, id);
    } catch (error) {
      refusal(error);
      throw error;
    }
    return page(
      ctx,
      "Monitor",
      <MonitorPage ctx={ctx} query={query} monitor={monitor} form={refused?.form} error={refused?.error} />,
      refused?.status ?? 200,
    );
  };

  /** Runs an action on a monitor, then sends the browser on (a refusal is an error page with its words). */
  const act = async (ctx: WebContext, action: () => Promise<string>) => {
    let location: string;
    try {
      location = await action();
    } catch (error) {
      const { status, message } = refusal(error);
      throw new WebError(status, message);
    }
    return redirect(ctx, location);
  };

  return new Elysia({ name: "web.monitors" })
    .use(webPlugin(deps))
    .get("/monitors", ({ ctx, account, query }) => listPage(ctx, account, query), { account: true })
    .post(
      "/monitors",
      async ({ ctx, account, form }) => {
        const typed = formFrom(form);
        try {
          const created = await monitors.create(callerOf(account), {
            url: typed.url,
            schedule: typed.schedule,
            ...(typed.environment ? { environment: typed.environment } : {}),
            fail_on: typed.fail_on,
            assert: typed.assert,
          });
          return redirect(ctx, `/monitors/${created.id}?notice=monitor_created`);
        } catch (error) {
          const { status, message } = refusal(error);
          return listPage(ctx, account, {}, { form: typed, error: message, status });
        }
      },
      { account: true, csrf: true },
    )
    .get("/monitors/:id", ({ ctx, session, params, query }) => monitorPage(ctx, session.accountId, params.id, query), {
      signedIn: true,
    })
    .post(
      "/monitors/:id",
      async ({ ctx, session, params, form }) => {
        const typed = formFrom(form);
        try {
          await monitors.update(session.accountId, params.id, {
            url: typed.url,
            schedule: typed.schedule,
            environment: typed.environment || null,
            fail_on: typed.fail_on,
            assert: typed.assert,
          });
        } catch (error) {
          const { status, message } = refusal(error);
          return monitorPage(ctx, session.accountId, params.id, {}, { form: typed, error: message, status });
        }
        return redirect(ctx, `/monitors/${params.id}?notice=monitor_saved`);
      },
      { signedIn: true, csrf: true },
    )
    .post(
      "/monitors/:id/run",
      ({ ctx, account, params }) =>
        act(ctx, async () => {
          const outcome = await monitors.runNow(callerOf(account), params.id);
          return `/reports/${outcome.report.id}`;
        }),
      { account: true, csrf: true },
    )
    .post(
      "/monitors/:id/pause",
      ({ ctx, session, params }) =>
        act(ctx, async () => {
          await monitors.update(session.accountId, params.id, { enabled: false });
          return `/monitors/${params.id}?notice=monitor_paused`;
        }),
      { signedIn: true, csrf: true },
    )
    .post(
      "/monitors/:id/resume",
      ({ ctx, session, params }) =>
        act(ctx, async () => {
          await monitors.update(session.accountId, params.id, { enabled: true });
          return `/monitors/${params.id}?notice=monitor_resumed`;
        }),
      { signedIn: true, csrf: true },
    )
    .post(
      "/monitors/:id/delete",
      ({ ctx, session, params }) =>
        act(ctx, async () => {
          await monitors.delete(session.accountId, params.id);
          return "/monitors?notice=monitor_deleted";
        }),
      { signedIn: true, csrf: true },
    );
}
