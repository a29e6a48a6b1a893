/**
 * The web interface's routes: server-rendered pages, plain HTML forms (CSRF-protected),
 * sessions by cookie. Reports made here use the same service and the same quota as the API,
 * and the report page renders exactly the report JSON the API returns.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Elysia } from "elysia";
import type { VNode } from "preact";
import { diff, isSeverity } from "../../shared/diff.ts";
import { DEFAULT_SARIF_LOCATION, sarifLocationProblem, toSarif } from "../../shared/sarif.ts";
import type { Account, AccountDetails } from "../accounts/account.service.ts";
import { DEVICE_COOKIE, DEVICE_DAYS, retryWords } from "../accounts/login-throttle.ts";
import type { PasswordChangeResult, SignInService, SignUpResult } from "../accounts/sign-in.service.ts";
import { BILLING_NOT_CONFIGURED, DisabledBillingProvider } from "../billing/disabled.provider.ts";
import type { BillingProvider } from "../billing/provider.ts";
import type { BillingMode } from "../config.ts";
import { ApiProblem } from "../http/problem.ts";
import { getPlan, isPlanId } from "../plans/catalogue.ts";
import type { QuotaService } from "../quota/quota.service.ts";
import { limitForWindow } from "../ratelimit/limiter.ts";
import type { ReportHistoryService } from "../reports/report-history.service.ts";
import type { ReportService } from "../reports/reports.service.ts";
import type { TokenService } from "../tokens/token.service.ts";
import { API_VERSION } from "../version.ts";
import { addCookie, endSession, startSession, type WebContext, WebError, webBase } from "./context.ts";
import { AccountPage, LoginPage, SignupPage } from "./pages/auth.tsx";
import { BillingPage } from "./pages/billing.tsx";
import { ChecksPage } from "./pages/checks.tsx";
import { formatDate } from "./pages/common.tsx";
import { ComparePage } from "./pages/compare.tsx";
import { DashboardPage } from "./pages/dashboard.tsx";
import { LandingPage } from "./pages/landing.tsx";
import { ReportPage } from "./pages/report.tsx";
import { ReportsPage } from "./pages/reports-list.tsx";
import { TokensPage } from "./pages/tokens.tsx";
import { download, page, redirect, securityHeaders } from "./render.tsx";
import { type WebPluginDeps, webPlugin } from "./web.plugin.ts";

export interface WebRouteDeps extends WebPluginDeps {
  signIn: SignInService;
  tokens: TokenService;
  quota: QuotaService;
  reports: ReportService;
  history: ReportHistoryService;
  billing: BillingProvider;
  /** BILLING_MODE as resolved by the config; `local` allows test mode to this machine only. */
  billingMode: BillingMode;
}

const NO_BILLING = new DisabledBillingProvider();

const ASSETS: Record<string, { body: string; type: string }> = {
  "app.css": { body: readFileSync(path.join(import.meta.dir, "assets", "app.css"), "utf8"), type: "text/css" },
  "app.js": { body: readFileSync(path.join(import.meta.dir, "assets", "app.js"), "utf8"), type: "text/javascript" },
  "favicon.svg": {
    body: readFileSync(path.join(import.meta.dir, "assets", "favicon.svg"), "utf8"),
    type: "image/svg+xml",
  },
};

/** Why an analysis from the dashboard did not happen, in the words of the web page. */
function analyseError(problem: ApiProblem): string {
  if (problem.code === "quota_exhausted") {
    const extensions = problem.options.extensions ?? {};
    const resets =
      typeof extensions.resets_at === "string" ? formatDate(extensions.resets_at) : "the 1st of next month";
    return `All ${extensions.quota ?? ""} reports of this month are used; the quota resets on ${resets}. Upgrade your plan to analyse more sites now.`;
  }
  return problem.detail;
}

/** The sign-up page's words for a refusal, and its status. */
function signUpError(refusal: Extract<SignUpResult, { ok: false }>): [string, number] {
  switch (refusal.reason) {
    case "throttled":
      return [`Too many sign-ups from your network. Try again in ${refusal.retryAfterMinutes} minutes.`, 429];
    case "invalid_email":
      return ["Enter a valid email address.", 400];
    case "weak_password":
      return [refusal.problem, 400];
    case "not_created":
      // Same words whether or not the email is known (the form cannot tell more without email verification).
      return ["We could not create an account with these details. If you already have one, log in instead.", 400];
  }
}

/** The account page's words for a refused password change, and its status. */
function passwordChangeError(refusal: Extract<PasswordChangeResult, { ok: false }>): [string, number] {
  switch (refusal.reason) {
    case "throttled":
      return [`Too many attempts. Try again in ${retryWords(refusal.retryAfterSeconds)}.`, 429];
    case "wrong_password":
      return ["The current password is wrong.", 400];
    case "weak_password":
      return [refusal.problem, 400];
  }
}

/** The ?next= of the login page, when it is a path we would follow (see safeNext). */
function nextParam(next: unknown): string | undefined {
  return typeof next === "string" && safeNext(next) === next ? next : undefined;
}

/** Where to go after logging in: only local paths, never another site. */
function safeNext(next: string | undefined): string {
  return next && /^\/(?!\/)[\w\-./?=&%]*$/.test(next) && !next.startsWith("/\\") ? next : "/dashboard";
}

export function webRoutes(deps: WebRouteDeps) {
  async function dashboard(
    ctx: WebContext,
    account: Account,
    query: Record<string, string | undefined>,
    analyse?: { url?: string; error?: string },
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
        analyse={analyse}
      />,
      status,
    );
  }

  /** Remembers this browser as one the account signed in with (see accounts/login-throttle.ts). */
  const trustThisDevice = (ctx: WebContext, device: string) =>
    addCookie(ctx, DEVICE_COOKIE, device, DEVICE_DAYS * 86_400);
  const deviceCookie = (request: Request) =>
    new Bun.CookieMap(request.headers.get("cookie") ?? "").get(DEVICE_COOKIE) ?? undefined;

  /** The billing this browser may use: the local test mode is for browsers on this machine only. */
  const billingFor = (ctx: WebContext): BillingProvider =>
    deps.billingMode === "local" && !ctx.local ? NO_BILLING : deps.billing;

  return new Elysia({ name: "web" })
    .use(webPlugin(deps))
    .get("/assets/:file", ({ params, request }) => {
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
    })
    .get("/", ({ ctx }) => page(ctx, "WordPress reports for agencies and CI", <LandingPage ctx={ctx} />), {
      page: true,
    })
    .get("/docs/checks", ({ ctx }) => page(ctx, "Check catalogue", <ChecksPage />), { page: true })
    .get(
      "/signup",
      ({ ctx }) => {
        if (ctx.session) return redirect(ctx, "/dashboard");
        return page(ctx, "Sign up", <SignupPage ctx={ctx} />);
      },
      { page: true },
    )
    .post(
      "/signup",
      async ({ ctx, form }) => {
        const result = await deps.signIn.signUp({
          email: form.email ?? "",
          password: form.password ?? "",
          address: ctx.ip,
        });
        if (!result.ok) {
          const [error, status] = signUpError(result);
          const email = "email" in result ? result.email : form.email;
          return page(ctx, "Sign up", <SignupPage ctx={ctx} email={email} error={error} />, status);
        }
        await startSession(ctx, deps, result.accountId);
        trustThisDevice(ctx, result.device);
        return redirect(ctx, "/dashboard?notice=welcome");
      },
      { csrf: true },
    )
    .get(
      "/login",
      ({ ctx, query }) => {
        const next = nextParam(query.next);
        if (ctx.session) return redirect(ctx, safeNext(next));
        return page(ctx, "Log in", <LoginPage ctx={ctx} next={next} query={query} />);
      },
      { page: true },
    )
    .post(
      "/login",
      async ({ ctx, form, query, request }) => {
        const next = nextParam(query.next);
        const result = await deps.signIn.signIn({
          email: form.email ?? "",
          password: form.password ?? "",
          address: ctx.ip,
          device: deviceCookie(request),
        });
        if (!result.ok) {
          const throttled = result.reason === "throttled";
          const error = throttled
            ? result.scope === "account"
              ? `Too many failed attempts on this account. Try again in ${retryWords(result.retryAfterSeconds)}.`
              : `Too many attempts. Try again in ${retryWords(result.retryAfterSeconds)}.`
            : "Email or password is wrong.";
          const view = <LoginPage ctx={ctx} email={form.email} next={next} error={error} />;
          const response = page(ctx, "Log in", view, throttled ? 429 : 401);
          if (throttled) response.headers.set("retry-after", String(result.retryAfterSeconds));
          return response;
        }
        await startSession(ctx, deps, result.accountId);
        trustThisDevice(ctx, result.device);
        return redirect(ctx, safeNext(next));
      },
      { csrf: true },
    )
    .post(
      "/logout",
      async ({ ctx }) => {
        await endSession(ctx, deps);
        return redirect(ctx, "/login?notice=logged_out");
      },
      { csrf: true },
    )
    .get(
      "/account",
      ({ ctx, account }) => page(ctx, "Account", <AccountPage ctx={ctx} hasPassword={account.hasPassword} />),
      {
        account: true,
      },
    )
    .post(
      "/account/password",
      async ({ ctx, session, form, request }) => {
        const result = await deps.signIn.changePassword({
          accountId: session.accountId,
          email: session.email,
          current: form.current ?? "",
          password: form.password ?? "",
          address: ctx.ip,
          device: deviceCookie(request),
        });
        if (!result.ok) {
          const [error, status] = passwordChangeError(result);
          return page(ctx, "Account", <AccountPage ctx={ctx} hasPassword={result.hasPassword} error={error} />, status);
        }
        // A new session for this browser; every other session ends, and so does every device
        // cookie (keyed with the old hash) but this browser's new one.
        await startSession(ctx, deps, session.accountId);
        trustThisDevice(ctx, result.device);
        await deps.sessions.destroyOthers(
          session.accountId,
          ctx.cookies.map((line) => /^wpr_session=([^;]*)/.exec(line)?.[1]).find(Boolean),
        );
        return redirect(ctx, "/dashboard?notice=password_changed");
      },
      { signedIn: true, csrf: true },
    )
    .get("/dashboard", ({ ctx, account, query }) => dashboard(ctx, account, query), { account: true })
    .post(
      "/analyse",
      async ({ ctx, account, form }) => {
        const url = (form.url ?? "").trim();
        const plan = getPlan(account.planId);
        try {
          const outcome = await deps.reports.generate(
            { accountId: account.id, planId: plan.id, monthlyQuota: plan.monthlyQuota },
            { url, metadata: { environment: "web" }, mode: form.mode === "aggressive" ? "aggressive" : "passive" },
          );
          return redirect(ctx, `/reports/${outcome.report.id}`);
        } catch (error) {
          if (!(error instanceof ApiProblem)) throw error;
          const status = error.status < 500 ? error.status : 422;
          return dashboard(ctx, account, {}, { url, error: analyseError(error) }, status);
        }
      },
      { account: true, csrf: true },
    )
    .get(
      "/reports",
      async ({ ctx, session, query }) => {
        const search = (query.site ?? "").slice(0, 200);
        const grade = /^[A-F]$/.test(query.grade ?? "") ? (query.grade as string) : "";
        let page_: Awaited<ReturnType<ReportHistoryService["list"]>>;
        try {
          page_ = await deps.history.list(session.accountId, {
            search: search || undefined,
            grade: grade || undefined,
            before: query.before,
            limit: 25,
          });
        } catch {
          throw new WebError(400, "That page of reports does not exist.");
        }
        return page(
          ctx,
          "Reports",
          <ReportsPage reports={page_.data} search={search} grade={grade} next={page_.next_cursor} />,
        );
      },
      { signedIn: true },
    )
    .get(
      "/reports/:id",
      async ({ ctx, session, params }) => {
        const report = await deps.reports.get(session.accountId, params.id);
        if (!report) throw new WebError(404, "There is no report with this id in your account.");
        const siblings = (
          await deps.history.list(session.accountId, {
            url: report.url,
            status: "completed",
            before: report.id,
            limit: 10,
          })
        ).data;
        return page(ctx, `Report — ${report.url}`, <ReportPage report={report} siblings={siblings} />);
      },
      { signedIn: true },
    )
    .get(
      "/reports/:id/report.json",
      async ({ ctx, session, params }) => {
        const report = await deps.reports.get(session.accountId, params.id);
        if (!report) throw new WebError(404, "There is no report with this id in your account.");
        return download(ctx, JSON.stringify(report, null, 2), `${report.id}.json`, "application/json");
      },
      { signedIn: true },
    )
    .get(
      "/reports/:id/report.sarif",
      async ({ ctx, session, params, query }) => {
        // The same ?sarif_location= as the API: the repository file results are attached to.
        const location = typeof query.sarif_location === "string" ? query.sarif_location : DEFAULT_SARIF_LOCATION;
        const problem = sarifLocationProblem(location);
        if (problem) throw new WebError(400, `sarif_location ${problem}.`);
        const report = await deps.reports.get(session.accountId, params.id);
        if (!report) throw new WebError(404, "There is no report with this id in your account.");
        return download(
          ctx,
          JSON.stringify(toSarif(report, API_VERSION, `${ctx.baseUrl}/docs/checks`, location), null, 2),
          `${report.id}.sarif`,
          "application/sarif+json",
        );
      },
      { signedIn: true },
    )
    .get(
      "/reports/:id/compare",
      async ({ ctx, session, params, query }) => {
        const head = await deps.reports.get(session.accountId, params.id);
        const base = query.base ? await deps.reports.get(session.accountId, query.base) : undefined;
        if (!head || !base) throw new WebError(404, "One of the two reports does not exist in your account.");
        const failOn =
          query.fail_on === "none" || (query.fail_on && isSeverity(query.fail_on)) ? query.fail_on : "high";
        const result = diff(base, head, { failOn: failOn as "high" });
        return page(ctx, "Compare reports", <ComparePage base={base} head={head} diff={result} failOn={failOn} />);
      },
      { signedIn: true },
    )
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
    )
    .get("/billing", ({ ctx, account, query }) => billingPage(ctx, account, query), { account: true })
    .post(
      "/billing/checkout",
      async ({ ctx, account, form }) => {
        const billing = billingFor(ctx);
        if (billing.mode === "off") return billingPage(ctx, account, {}, BILLING_NOT_CONFIGURED, 403);
        const plan = form.plan ?? "";
        if (!isPlanId(plan) || !billing.purchasable().includes(plan))
          return billingPage(ctx, account, {}, "That plan cannot be bought here.", 400);
        const target = await billing.checkout(account, plan, {
          success: `${ctx.baseUrl}/billing?notice=${billing.mode === "test" ? "plan_changed" : "checkout_done"}`,
          cancel: `${ctx.baseUrl}/billing?notice=checkout_cancelled`,
        });
        return redirect(ctx, target);
      },
      { account: true, csrf: true },
    )
    .post(
      "/billing/portal",
      async ({ ctx, account }) => {
        const target = await billingFor(ctx).portal(account, `${ctx.baseUrl}/billing`);
        if (!target) return billingPage(ctx, account, {}, "There is no subscription to manage yet.", 400);
        return redirect(ctx, target);
      },
      { account: true, csrf: true },
    )
    .post(
      "/billing/cancel",
      async ({ ctx, account }) => {
        const billing = billingFor(ctx);
        if (billing.mode === "off") return billingPage(ctx, account, {}, BILLING_NOT_CONFIGURED, 403);
        await billing.cancel(account);
        return redirect(ctx, "/billing?notice=plan_cancelled");
      },
      { account: true, csrf: true },
    );

  async function billingPage(
    ctx: WebContext,
    account: AccountDetails,
    query: Record<string, string | undefined>,
    error?: string,
    status = 200,
  ) {
    const usage = await deps.quota.usage(account.id, getPlan(account.planId).monthlyQuota);
    const billing = billingFor(ctx);
    const view: VNode = (
      <BillingPage
        ctx={ctx}
        query={query}
        account={account}
        mode={billing.mode}
        purchasable={billing.purchasable()}
        hasPortal={billing.mode === "stripe" && account.stripeCustomerId !== null}
        usage={usage}
        error={error}
      />
    );
    return page(ctx, "Plan & billing", view, status);
  }
}
