/**
 * Per-request state of the web interface: who is logged in, the CSRF token for forms, and
 * the cookies to send back.
 *
 * CSRF: a double-submit token. Every visitor gets a random `wpr_csrf` cookie (HttpOnly,
 * SameSite=Lax); every form carries the same value in a hidden field; a POST is accepted
 * only when the two match (compared in constant time) and, when the browser sends an
 * Origin header, it is our own. A new token is issued at login and logout.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Server } from "bun";
import { SESSION_COOKIE, SESSION_DAYS, type SessionService, type WebSession } from "./session.service.ts";

export const CSRF_COOKIE = "wpr_csrf";
export const CSRF_FIELD = "_csrf";

export interface WebContext {
  session: WebSession | undefined;
  sessionId: string | undefined;
  csrf: string;
  /** Set-Cookie header values for the response. */
  cookies: string[];
  secure: boolean;
  /** The client's address (X-Forwarded-For first hop when TRUST_PROXY is on). */
  ip: string;
  /** Path of the current page, for the navigation's aria-current. */
  path: string;
}

export class WebError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "WebError";
  }
}

export interface WebDeps {
  sessions: SessionService;
  baseUrl: string;
  trustProxy: boolean;
}

function cookie(name: string, value: string, secure: boolean, maxAgeSeconds: number): string {
  return new Bun.Cookie(name, value, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure,
    maxAge: maxAgeSeconds,
  }).serialize();
}

function clientIp(request: Request, server: Server<undefined> | null, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded.slice(0, 64);
  }
  return server?.requestIP(request)?.address ?? "unknown";
}

export async function webContext(
  request: Request,
  server: Server<undefined> | null,
  deps: WebDeps,
): Promise<WebContext> {
  const jar = new Bun.CookieMap(request.headers.get("cookie") ?? "");
  const secure = deps.baseUrl.startsWith("https:");
  const sessionId = jar.get(SESSION_COOKIE) ?? undefined;
  const session = await deps.sessions.lookup(sessionId);
  const cookies: string[] = [];
  let csrf = jar.get(CSRF_COOKIE) ?? "";
  if (!/^[A-Za-z0-9_-]{43}$/.test(csrf)) {
    csrf = randomBytes(32).toString("base64url");
    cookies.push(cookie(CSRF_COOKIE, csrf, secure, SESSION_DAYS * 86_400));
  }
  if (sessionId && !session) cookies.push(cookie(SESSION_COOKIE, "", secure, 0)); // expired: clear it
  return {
    session,
    sessionId: session ? sessionId : undefined,
    csrf,
    cookies,
    secure,
    ip: clientIp(request, server, deps.trustProxy),
    path: new URL(request.url).pathname,
  };
}

/** Throws 403 unless the form carries this browser's CSRF token and comes from our origin. */
export function verifyCsrf(context: WebContext, form: Record<string, string>, request: Request, baseUrl: string): void {
  const origin = request.headers.get("origin");
  if (origin && origin !== "null" && origin !== new URL(baseUrl).origin) {
    throw new WebError(403, "This form was sent from another site. Reload the page and try again.");
  }
  const sent = Buffer.from(form[CSRF_FIELD] ?? "");
  const expected = Buffer.from(context.csrf);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    throw new WebError(403, "The form has expired or was not sent from this site. Reload the page and try again.");
  }
}

/** Logs the browser in: a fresh session id and a fresh CSRF token (no fixation of either). */
export async function startSession(context: WebContext, deps: WebDeps, accountId: string): Promise<void> {
  await deps.sessions.destroy(context.sessionId);
  const id = await deps.sessions.create(accountId);
  context.cookies.push(cookie(SESSION_COOKIE, id, context.secure, SESSION_DAYS * 86_400));
  context.csrf = randomBytes(32).toString("base64url");
  context.cookies.push(cookie(CSRF_COOKIE, context.csrf, context.secure, SESSION_DAYS * 86_400));
}

export async function endSession(context: WebContext, deps: WebDeps): Promise<void> {
  await deps.sessions.destroy(context.sessionId);
  context.cookies.push(cookie(SESSION_COOKIE, "", context.secure, 0));
  context.csrf = randomBytes(32).toString("base64url");
  context.cookies.push(cookie(CSRF_COOKIE, context.csrf, context.secure, SESSION_DAYS * 86_400));
}

/** Form fields as strings (urlencoded bodies parsed by Elysia; anything else ignored). */
export function formFields(body: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!body || typeof body !== "object") return fields;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === "string" && key.length <= 64) fields[key] = value.slice(0, 10_000);
  }
  return fields;
}
