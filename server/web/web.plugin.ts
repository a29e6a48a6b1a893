/**
 * What every route of the web interface needs, declared on the route instead of typed out in
 * each handler: Elysia macros (the pattern Elysia's best-practice guide gives for a
 * request-dependent service), plus the HTML error pages.
 *
 *   .get("/", ({ ctx }) => …, { page: true })                       the request's WebContext
 *   .get("/tokens", ({ ctx, session }) => …, { signedIn: true })    and a session, or 303 to log in
 *   .get("/billing", ({ ctx, account }) => …, { account: true })    and the signed-in account
 *   .post("/tokens", ({ ctx, form }) => …, { signedIn: true, csrf: true })
 *                                  and the form's fields, sent from our origin with this
 *                                  browser's CSRF token (context.ts), or a 403 page
 *
 * A WebError thrown by a macro or a handler becomes an HTML page of its status (or the 303 it
 * carries); other errors go on to the errors plugin, whose HTML pages `htmlError` renders.
 *
 * Each feature's routes `.use(webPlugin(deps))` before their routes (a plugin's hooks reach
 * only the routes added after it).
 */
import { Elysia } from "elysia";
import type { AccountAuthService, AccountDetails } from "../accounts/account.service.ts";
import type { ApiProblem } from "../platform/http/problem.ts";
import { requestContext } from "../platform/http/request-context.ts";
import { formFields, verifyCsrf, type WebContext, type WebDeps, WebError, webContext } from "./context.ts";
import { errorPage, redirect } from "./render.tsx";
import type { WebSession } from "./session.service.ts";

export interface WebPluginDeps extends WebDeps {
  auth: AccountAuthService;
}

export function webPlugin(deps: WebPluginDeps) {
  // One WebContext per request, shared by the macros and the error page: the cookies it sets
  // (a first CSRF cookie, the removal of an expired session's) leave once, with whatever answers.
  const contexts = new WeakMap<Request, Promise<WebContext>>();
  const contextOf = (request: Request): Promise<WebContext> => {
    let context = contexts.get(request);
    if (!context) {
      context = webContext(request, deps);
      context.catch(() => contexts.delete(request)); // the error page tries afresh
      contexts.set(request, context);
    }
    return context;
  };

  const signedIn = async (request: Request): Promise<{ ctx: WebContext; session: WebSession }> => {
    const ctx = await contextOf(request);
    if (ctx.session) return { ctx, session: ctx.session };
    const url = new URL(request.url);
    throw new WebError(303, "login required", `/login?next=${encodeURIComponent(url.pathname + url.search)}`);
  };

  return new Elysia({ name: "web.plugin" })
    .macro({
      /** A page anyone may see: `ctx` (with `ctx.session` when signed in). */
      page: {
        resolve: async ({ request }) => ({ ctx: await contextOf(request) }),
      },
      /** A signed-in page: `ctx` and `session`; a signed-out browser is sent to log in. */
      signedIn: {
        // In transform, i.e. before any macro's resolve: a signed-out browser goes to log in
        // before its form is looked at (CSRF, fields), whatever the order of the route's options.
        transform: async ({ request }) => {
          await signedIn(request);
        },
        resolve: ({ request }) => signedIn(request),
      },
      /** A signed-in page that reads the account: also `account` (plan, billing state). */
      account: {
        signedIn: true,
        resolve: async ({ request }): Promise<{ account: AccountDetails }> => {
          const { session } = await signedIn(request);
          const account = await deps.auth.details(session.accountId);
          if (!account) throw new WebError(403, "Your account no longer exists.");
          return { account };
        },
      },
      /** A form post: `form`, its fields, once its origin and CSRF token are verified (else 403). */
      csrf: {
        resolve: async ({ request, body }) => {
          const ctx = await contextOf(request);
          const form = formFields(body);
          verifyCsrf(ctx, form, request);
          return { ctx, form };
        },
      },
    })
    .onError({ as: "scoped" }, async ({ error, request }) => {
      if (!(error instanceof WebError)) return;
      const ctx = await contextOf(request);
      return error.location ? redirect(ctx, error.location) : errorPage(ctx, error.status, error.message);
    });
}

/**
 * Errors outside the API, for browsers (the errors plugin's `renderHtml`): an HTML page
 * instead of problem+json, for a path no route has (404), a method the path does not answer
 * (405; the errors plugin adds its Allow header), or an unexpected failure (500).
 */
export async function htmlError(problem: ApiProblem, request: Request, deps: WebDeps): Promise<Response> {
  const ctx = await webContext(request, deps).catch(() => undefined);
  const message =
    problem.code === "not_found"
      ? "There is no page at this address."
      : problem.status >= 500
        ? `Something went wrong on our side. If it keeps happening, quote this reference: ${requestContext(request).id}.`
        : problem.detail;
  if (!ctx)
    return new Response(message, { status: problem.status, headers: { "content-type": "text/plain; charset=utf-8" } });
  return errorPage(ctx, problem.status, message, problem.title);
}
