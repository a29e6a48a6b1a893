/**
 * Signing up, logging in and out, the account page and password changes. The rules are
 * SignInService's (server/accounts/sign-in.service.ts); these routes turn forms into its
 * calls and its answers into pages, sessions and cookies.
 */
import { Elysia } from "elysia";
import { addCookie, endSession, startSession, type WebContext } from "../web/context.ts";
import { page, redirect } from "../web/render.tsx";
import { type WebPluginDeps, webPlugin } from "../web/web.plugin.ts";
import { DEVICE_COOKIE, DEVICE_DAYS, retryWords } from "./login-throttle.ts";
import { AccountPage, LoginPage, SignupPage } from "./pages/auth.tsx";
import type { PasswordChangeResult, SignInService, SignUpResult } from "./sign-in.service.ts";

export interface AuthRouteDeps extends WebPluginDeps {
  signIn: SignInService;
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

/** Remembers this browser as one the account signed in with (see accounts/login-throttle.ts). */
function trustThisDevice(ctx: WebContext, device: string): void {
  addCookie(ctx, DEVICE_COOKIE, device, DEVICE_DAYS * 86_400);
}

/** The device proof this browser carries, if any. */
function deviceCookie(request: Request): string | undefined {
  return new Bun.CookieMap(request.headers.get("cookie") ?? "").get(DEVICE_COOKIE) ?? undefined;
}

export function authRoutes(deps: AuthRouteDeps) {
  return new Elysia({ name: "web.auth" })
    .use(webPlugin(deps))
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
          address: ctx.throttleIp,
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
          address: ctx.throttleIp,
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
    );
}
