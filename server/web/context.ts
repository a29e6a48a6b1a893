/**
 * Per-request state of the web interface: who is logged in, from where, at which origin,
 * the CSRF token for forms, and the cookies to send back.
 *
 * CSRF, two independent defences (OWASP CSRF cheat sheet):
 * 1. Origin verification. A POST whose Origin is another site, or `null` (sandboxed frames,
 *    data: and file: pages), is refused. Without Origin, Sec-Fetch-Site must say
 *    same-origin, and without that, a Referer, if sent, must be ours.
 * 2. A token bound to the session. The form field is HMAC(session id, label): a value a
 *    sibling subdomain cannot compute, even if it plants cookies (it never sees the HttpOnly
 *    session id). Before log-in, the `wpr_csrf` cookie (random) stands in for the session.
 *    Pages leave compressed, so the field carries it masked afresh for every response
 *    (random pad ‖ pad XOR token): no two pages show the same bytes, and BREACH — guessing a
 *    secret from the size of compressed pages that also reflect the attacker's text — has
 *    nothing stable to guess (docs/decisions.md).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { clientAddress, requestBase, throttleClient } from "../platform/http/client-request.ts";
import { isStorableText } from "../platform/http/storable-text.ts";
import { SESSION_COOKIE, SESSION_DAYS, type SessionService, type WebSession } from "./session.service.ts";

export const CSRF_COOKIE = "wpr_csrf";
export const CSRF_FIELD = "_csrf";

export interface WebContext {
  session: WebSession | undefined;
  sessionId: string | undefined;
  /** The value the forms of this response carry: csrfToken, masked for this response. */
  csrf: string;
  /** The pre-session CSRF binder (the `wpr_csrf` cookie's value). */
  csrfCookie: string;
  /** Set-Cookie header values for the response. */
  cookies: string[];
  secure: boolean;
  /** The client's address (the TCP peer, or behind TRUST_PROXY the forwarded client). */
  ip: string;
  /** Our origin for this request (PUBLIC_BASE_URL, or the Host the browser used when unset). */
  origin: string;
  /** Base URL for links this page makes (origin plus PUBLIC_BASE_URL's path, if any). */
  baseUrl: string;
  /** The address the log-in and sign-up throttles count (undefined: see throttleClient). */
  throttleIp: string | undefined;
  /** Path of the current page, for the navigation's aria-current. */
  path: string;
}

export class WebError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Where to send the browser instead of showing an error page (a 303, e.g. to log in). */
    readonly location?: string,
  ) {
    super(message);
    this.name = "WebError";
  }
}

export interface WebDeps {
  sessions: SessionService;
  /** PUBLIC_BASE_URL, or its default. */
  baseUrl: string;
  publicBaseUrlSet: boolean;
  /** TRUST_PROXY: reverse proxies of ours in front (0 = none). */
  trustProxy: number;
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

/** Our origin and base URL for this request (see requestBase). */
export function webBase(request: Request, deps: WebDeps): { origin: string; baseUrl: string } {
  return requestBase(request, {
    publicBaseUrl: deps.baseUrl,
    publicBaseUrlSet: deps.publicBaseUrlSet,
    trustedProxies: deps.trustProxy,
  });
}

/** The form token for a session id (or, before log-in, the `wpr_csrf` cookie), masked for one response. */
function csrfToken(binder: string): string {
  return maskCsrf(createHmac("sha256", binder).update("wpreport web form v1").digest());
}

const CSRF_BYTES = 32; // SHA-256

/** `pad ‖ pad XOR token`, base64url: the same token, different bytes on every page. */
function maskCsrf(token: Buffer): string {
  const pad = randomBytes(CSRF_BYTES);
  const masked = Buffer.alloc(CSRF_BYTES);
  for (let i = 0; i < CSRF_BYTES; i++) masked[i] = (pad[i] as number) ^ (token[i] as number);
  return Buffer.concat([pad, masked]).toString("base64url");
}

/** The token inside a masked value; undefined for anything that is not one. */
function unmaskCsrf(value: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]{86}$/.test(value)) return undefined;
  const bytes = Buffer.from(value, "base64url");
  if (bytes.length !== 2 * CSRF_BYTES) return undefined;
  const token = Buffer.alloc(CSRF_BYTES);
  for (let i = 0; i < CSRF_BYTES; i++) token[i] = (bytes[i] as number) ^ (bytes[CSRF_BYTES + i] as number);
  return token;
}

export async function webContext(request: Request, deps: WebDeps): Promise<WebContext> {
  const jar = new Bun.CookieMap(request.headers.get("cookie") ?? "");
  const { origin, baseUrl } = webBase(request, deps);
  const secure = origin.startsWith("https:");
  const sessionId = jar.get(SESSION_COOKIE) ?? undefined;
  const session = await deps.sessions.lookup(sessionId);
  const cookies: string[] = [];
  let csrfCookie = jar.get(CSRF_COOKIE) ?? "";
  if (!/^[A-Za-z0-9_-]{43}$/.test(csrfCookie)) {
    csrfCookie = randomBytes(32).toString("base64url");
    cookies.push(cookie(CSRF_COOKIE, csrfCookie, secure, SESSION_DAYS * 86_400));
  }
  if (sessionId && !session) cookies.push(cookie(SESSION_COOKIE, "", secure, 0)); // expired: clear it
  const ip = clientAddress(request, deps.trustProxy);
  return {
    session,
    sessionId: session ? sessionId : undefined,
    csrf: csrfToken(session && sessionId ? sessionId : csrfCookie),
    csrfCookie,
    cookies,
    secure,
    ip,
    origin,
    baseUrl,
    throttleIp: throttleClient(ip, deps.trustProxy),
    path: new URL(request.url).pathname,
  };
}

const FOREIGN = "This form was sent from another site. Reload the page and try again.";

/** Throws 403 unless the form comes from our origin and carries this session's CSRF token. */
export function verifyCsrf(context: WebContext, form: Record<string, string>, request: Request): void {
  const origin = request.headers.get("origin");
  if (origin !== null) {
    // `null` is what sandboxed frames and data:/file: pages send: never one of our pages.
    if (origin !== context.origin) throw new WebError(403, FOREIGN);
  } else {
    const site = request.headers.get("sec-fetch-site");
    const referer = request.headers.get("referer");
    if (site !== null) {
      if (site !== "same-origin") throw new WebError(403, FOREIGN);
    } else if (referer !== null && originOf(referer) !== context.origin) {
      throw new WebError(403, FOREIGN);
    }
  }
  const sent = unmaskCsrf(form[CSRF_FIELD] ?? "");
  const expected = unmaskCsrf(context.csrf);
  if (!sent || !expected || !timingSafeEqual(sent, expected)) {
    throw new WebError(403, "The form has expired or was not sent from this site. Reload the page and try again.");
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** At most `max` UTF-16 units, never cutting a surrogate pair in half. */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** Logs the browser in: a fresh session id and a fresh CSRF token (no fixation of either). */
export async function startSession(context: WebContext, deps: WebDeps, accountId: string): Promise<void> {
  await deps.sessions.destroy(context.sessionId);
  const id = await deps.sessions.create(accountId);
  context.cookies.push(cookie(SESSION_COOKIE, id, context.secure, SESSION_DAYS * 86_400));
  context.sessionId = id;
  context.csrf = csrfToken(id);
  renewCsrfCookie(context);
}

export async function endSession(context: WebContext, deps: WebDeps): Promise<void> {
  await deps.sessions.destroy(context.sessionId);
  context.cookies.push(cookie(SESSION_COOKIE, "", context.secure, 0));
  context.sessionId = undefined;
  renewCsrfCookie(context);
  context.csrf = csrfToken(context.csrfCookie);
}

/** Adds a cookie (HttpOnly, SameSite=Lax, Secure on https) to the response. */
export function addCookie(context: WebContext, name: string, value: string, maxAgeSeconds: number): void {
  context.cookies.push(cookie(name, value, context.secure, maxAgeSeconds));
}

/** A new pre-session binder at every log-in and log-out: nothing from before carries over. */
function renewCsrfCookie(context: WebContext): void {
  context.csrfCookie = randomBytes(32).toString("base64url");
  context.cookies.push(cookie(CSRF_COOKIE, context.csrfCookie, context.secure, SESSION_DAYS * 86_400));
}

/**
 * Form fields as strings (urlencoded bodies parsed by Elysia; anything else ignored).
 * Text no database can store (NUL, a lone surrogate) is refused here with a 400 page.
 */
export function formFields(body: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!body || typeof body !== "object") return fields;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value !== "string" || key.length > 64) continue;
    if (!isStorableText(key) || !isStorableText(value))
      throw new WebError(400, "The form contains characters that cannot be stored (a NUL or a broken character).");
    fields[key] = truncate(value, 10_000);
  }
  return fields;
}
