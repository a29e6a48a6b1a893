/** The dashboard (usage, plan, recent reports) and the analyze form on it. */
import { Elysia } from "elysia";
import { LAB_DEVICES, LAB_THROTTLINGS, type LabDevice, type LabThrottling } from "../../shared/report.ts";
import { parseSiteAuthInputs, type SiteAuth, SiteAuthInputError } from "../../shared/site-auth.ts";
import { limitForWindow } from "../access/rate-limiter.ts";
import type { Account } from "../accounts/account.service.ts";
import { getPlan } from "../billing/plans.ts";
import type { QuotaService } from "../billing/quota.service.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import type { WebContext } from "../web/context.ts";
import { formatDate } from "../web/pages/common.tsx";
import { moved, page, redirect } from "../web/render.tsx";
import { type WebPluginDeps, webPlugin } from "../web/web.plugin.ts";
import { DashboardPage } from "./pages/dashboard.tsx";
import type { ReportHistoryService } from "./report-history.service.ts";
import { parseReportOptions } from "./report-options.ts";
import type { ReportService } from "./reports.service.ts";

export interface DashboardRouteDeps extends WebPluginDeps {
  quota: QuotaService;
  reports: ReportService;
  history: ReportHistoryService;
}

/**
 * The optional credentials of a password-protected site, checked by the same rules as the API's
 * `site_auth` (shared/site-auth.ts). A mistake is a 400 page naming the field, never its value;
 * the form does not fill the secret fields in again.
 */
function siteAuthFromForm(form: Record<string, string | undefined>): SiteAuth | undefined {
  const user = (form.http_user ?? "").trim();
  const password = form.http_password ?? "";
  try {
    return parseSiteAuthInputs(
      {
        httpAuth: user || password ? `${user}:${password}` : undefined,
        headers: form.http_headers,
        cookies: form.http_cookies,
      },
      { httpAuth: "User name", headers: "Headers", cookies: "Cookies" },
    );
  } catch (error) {
    if (error instanceof SiteAuthInputError) {
      const message = error.message.replace(
        "User name must look like user:password",
        "User name is required with a password",
      );
      throw new ApiProblem("invalid_request", `${message}.`);
    }
    throw error;
  }
}

/** Why an analysis from the dashboard did not happen, in the words of the web page. */
function analyzeError(problem: ApiProblem): string {
  if (problem.code === "quota_exhausted") {
    const extensions = problem.options.extensions ?? {};
    const resets =
      typeof extensions.resets_at === "string" ? formatDate(extensions.resets_at) : "the 1st of next month";
    return `All ${extensions.quota ?? ""} reports of this month are used; the quota resets on ${resets}. Upgrade your plan to analyze more sites now.`;
  }
  return problem.detail;
}

export function dashboardRoutes(deps: DashboardRouteDeps) {
  async function dashboard(
    ctx: WebContext,
    account: Account,
    query: Record<string, string | undefined>,
    analyze?: { url?: string; error?: string },
    status = 200,
  ) {
    const plan = getPlan(account.planId);
    const usage = await deps.quota.usage(account.id, plan.monthlyQuota);
    const recent = await deps.history.list(account.id, { limit: 5 });
    return page(
      ctx,
      "Dashboard",
      <DashboardPage
        ctx={ctx}
        query={query}
        plan={plan}
        usage={usage}
        rateLimit={limitForWindow(account.rateLimitPerMinute ?? plan.requestsPerMinute, 60)}
        recent={recent.data}
        analyze={analyze}
      />,
      status,
    );
  }

  return (
    new Elysia({ name: "web.dashboard" })
      .use(webPlugin(deps))
      .get("/dashboard", ({ ctx, account, query }) => dashboard(ctx, account, query), { account: true })
      .post(
        "/analyze",
        async ({ ctx, account, form }) => {
          const url = (form.url ?? "").trim();
          const plan = getPlan(account.planId);
          try {
            // The checkbox sends mode=aggressive when ticked; anything else is the default mode.
            const options = parseReportOptions({
              mode: form.mode === "aggressive" ? "aggressive" : undefined,
              site_auth: siteAuthFromForm(form),
              // The lab checkbox sends lab=true when ticked; its device and throttling choices are
              // always sent, and only count with it.
              ...(form.lab === "true" ? { lab: true, ...labChoices(form) } : {}),
            });
            const outcome = await deps.reports.generate(
              { accountId: account.id, planId: plan.id, monthlyQuota: plan.monthlyQuota },
              { url, metadata: { environment: "web" }, options },
            );
            return redirect(ctx, `/reports/${outcome.report.id}`);
          } catch (error) {
            if (!(error instanceof ApiProblem)) throw error;
            const status = error.status < 500 ? error.status : 422;
            return dashboard(ctx, account, {}, { url, error: analyzeError(error) }, status);
          }
        },
        { account: true, csrf: true },
      )
      // The form's old address (the spelling is "analyze" everywhere now: CONTRIBUTING.md).
      // Checked like the form itself: only a signed-in browser's own form is sent on.
      .post("/analyse", ({ ctx }) => moved(ctx, "/analyze"), { signedIn: true, csrf: true })
  );
}

/** The lab's device and throttling as the form chose them; anything else is refused in plain words. */
function labChoices(form: Record<string, string | undefined>): {
  lab_device?: LabDevice;
  lab_throttling?: LabThrottling;
} {
  const device = form.lab_device || undefined;
  const throttling = form.lab_throttling || undefined;
  if (device !== undefined && !(LAB_DEVICES as readonly string[]).includes(device))
    throw new ApiProblem("invalid_request", `The lab's device must be one of ${LAB_DEVICES.join(", ")}.`);
  if (throttling !== undefined && !(LAB_THROTTLINGS as readonly string[]).includes(throttling))
    throw new ApiProblem("invalid_request", `The lab's throttling must be one of ${LAB_THROTTLINGS.join(", ")}.`);
  return {
    ...(device ? { lab_device: device as LabDevice } : {}),
    ...(throttling ? { lab_throttling: throttling as LabThrottling } : {}),
  };
}
