/**
 * Rendering pages: the layout, and Response helpers that add the security headers and the
 * cookies of the request's WebContext. JSX is Preact's, rendered to a string: every text
 * child and attribute is HTML-escaped, so site text (titles, plugin names…) stays text.
 */
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { CSRF_FIELD, type WebContext } from "./context.ts";

export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
  "cross-origin-opener-policy": "same-origin",
};

export function securityHeaders(secure: boolean): Record<string, string> {
  return secure
    ? { ...SECURITY_HEADERS, "strict-transport-security": "max-age=31536000; includeSubDomains" }
    : SECURITY_HEADERS;
}

/** The hidden CSRF field every form carries. */
export function Csrf({ ctx }: { ctx: WebContext }) {
  return <input type="hidden" name={CSRF_FIELD} value={ctx.csrf} />;
}

const SIGNED_IN_NAV: [string, string][] = [
  ["/dashboard", "Dashboard"],
  ["/reports", "Reports"],
  ["/portfolio", "Portfolio"],
  ["/monitors", "Monitors"],
  ["/tokens", "API tokens"],
  ["/alerts", "Alerts"],
  ["/billing", "Plan & billing"],
];

function Nav({ ctx }: { ctx: WebContext }) {
  const current = (href: string) => (ctx.path === href || ctx.path.startsWith(`${href}/`) ? "page" : undefined);
  if (!ctx.session) {
    return (
      <nav class="main" aria-label="Main">
        <ul>
          <li>
            <a href="/#pricing">Pricing</a>
          </li>
          <li>
            <a href="/login" aria-current={current("/login")}>
              Log in
            </a>
          </li>
          <li>
            <a class="button" href="/signup">
              Sign up free
            </a>
          </li>
        </ul>
      </nav>
    );
  }
  return (
    <nav class="main" aria-label="Main">
      <ul>
        {SIGNED_IN_NAV.map(([href, label]) => (
          <li key={href}>
            <a href={href} aria-current={current(href)}>
              {label}
            </a>
          </li>
        ))}
        <li>
          <a
            href="/account"
            aria-current={current("/account")}
            class="small account-link"
            aria-label={`Account: ${ctx.session.email}`}
          >
            <span class="hide-sm">{ctx.session.email}</span>
            <span class="show-sm">Account</span>
          </a>
        </li>
        <li>
          <form method="post" action="/logout" class="inline">
            <Csrf ctx={ctx} />
            <button type="submit" class="secondary">
              Log out
            </button>
          </form>
        </li>
      </ul>
    </nav>
  );
}

export function Layout({ ctx, title, children }: { ctx: WebContext; title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · wpreport`}</title>
        <meta name="color-scheme" content="light dark" />
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/app.css" />
        <script src="/assets/app.js" defer />
      </head>
      <body>
        <a class="skip-link" href="#content">
          Skip to content
        </a>
        <header class="site">
          <div class="container">
            <a class="brand" href={ctx.session ? "/dashboard" : "/"}>
              wp<span>report</span>
            </a>
            <Nav ctx={ctx} />
          </div>
        </header>
        <main id="content" class="container" tabIndex={-1}>
          {children}
        </main>
        <footer class="site">
          <div class="container">
            wpreport — WordPress reports for agencies and CI. <a href="/api/openapi.json">API</a> ·{" "}
            <a href="/api/schema/report.json">Report schema</a> · <a href="/docs/checks">Checks</a>
          </div>
        </footer>
      </body>
    </html>
  );
}

function headers(ctx: WebContext, extra: Record<string, string> = {}): Headers {
  const result = new Headers({ ...securityHeaders(ctx.secure), "cache-control": "no-store", ...extra });
  for (const cookie of ctx.cookies) result.append("set-cookie", cookie);
  return result;
}

/** A full HTML page. */
export function page(ctx: WebContext, title: string, body: VNode, status = 200): Response {
  const html = `<!doctype html>${renderToString(
    <Layout ctx={ctx} title={title}>
      {body}
    </Layout>,
  )}`;
  return new Response(html, { status, headers: headers(ctx, { "content-type": "text/html; charset=utf-8" }) });
}

/** 303 See Other: after a form POST, the browser GETs the next page. */
export function redirect(ctx: WebContext, location: string): Response {
  return new Response(null, { status: 303, headers: headers(ctx, { location }) });
}

/**
 * A page that moved for good. 308 keeps the method and the body, so a form posted to the old
 * URL (a page loaded before the move) is posted again, with its CSRF token, to the new one.
 */
export function moved(ctx: WebContext, location: string): Response {
  return new Response(null, { status: 308, headers: headers(ctx, { location }) });
}

/** A file download (report JSON / SARIF). */
export function download(ctx: WebContext, body: string, filename: string, type: string): Response {
  return new Response(body, {
    headers: headers(ctx, {
      "content-type": `${type}; charset=utf-8`,
      "content-disposition": `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
    }),
  });
}

/** An error page: the status and, in words, what went wrong. */
export function errorPage(ctx: WebContext, status: number, message: string, title = "Error"): Response {
  return page(ctx, title, <ErrorPage status={status} message={message} />, status);
}

export function ErrorPage({ status, message }: { status: number; message: string }) {
  return (
    <div class="card stack">
      <h1>
        {status === 404
          ? "Not found"
          : status === 403 || status === 405
            ? "Not allowed"
            : status === 429
              ? "Slow down"
              : "Something went wrong"}
      </h1>
      <p>{message}</p>
      <p>
        <a href="/">Back to the start page</a>
      </p>
    </div>
  );
}

/** Notices shown after a redirect, by key — never text from the query string itself. */
export const NOTICES: Record<string, { kind: "success" | "error" | "warning"; text: string }> = {
  welcome: { kind: "success", text: "Welcome! Your free account is ready: 3 reports a month, on the house." },
  password_changed: { kind: "success", text: "Password changed. Other sessions were logged out." },
  token_revoked: { kind: "success", text: "Token revoked. API calls with it are refused from now on." },
  plan_changed: { kind: "success", text: "Plan changed. The new quota applies at once." },
  plan_cancelled: {
    kind: "success",
    text: "Cancelled. You keep your plan until the end of the paid period, then move to Free.",
  },
  checkout_cancelled: { kind: "warning", text: "Checkout was cancelled; nothing changed." },
  checkout_done: {
    kind: "success",
    text: "Thanks! Your plan changes as soon as the payment is confirmed (usually within seconds).",
  },
  logged_out: { kind: "success", text: "You are logged out." },
};

/**
 * The notice named by `?notice=` — from the shell's own table, or from `notices` (a feature's
 * pages pass theirs: key → text, shown as a success).
 */
export function Notice({
  query,
  notices,
}: {
  query: Record<string, string | undefined>;
  notices?: Record<string, string>;
}) {
  const key = query.notice;
  const own = key && notices && Object.hasOwn(notices, key) ? notices[key] : undefined;
  const notice = own ? { kind: "success", text: own } : key && Object.hasOwn(NOTICES, key) ? NOTICES[key] : undefined;
  if (!notice) return null;
  return (
    <div class={`alert ${notice.kind}`} role="status">
      {notice.text}
    </div>
  );
}
