/**
 * Site credentials: HTTP basic auth, extra headers and cookies that open a password-protected
 * staging site to the analyzer (`site_auth` in POST /api/generate-report; the Action's
 * `http-auth`, `http-headers` and `http-cookies` inputs; the CLI's `--http-*` flags).
 *
 * One module for every side, so the service, the Action and the CLI accept and refuse the same
 * things: the request schema, the header-name allowlist, value rules, the parsers of the
 * Action's and CLI's text forms, the headers they become, and the redaction of their secrets.
 *
 * They are sent only to the origin of the analyzed URL (never to other origins, asset CDNs,
 * redirects elsewhere, WordPress.org or intel sources); they are never stored in a report, a
 * log or readable in the database (docs/decisions.md, "Site credentials").
 */
import { type Static, Type } from "@sinclair/typebox";
import { named } from "./schema.ts";

/** Extra headers a request may carry: at most this many. */
export const MAX_SITE_HEADERS = 10;
/** Cookies a request may carry: at most this many. */
export const MAX_SITE_COOKIES = 20;
/** Longest header value, cookie value, user name or password. */
export const MAX_SITE_AUTH_VALUE = 1024;
/** Values shorter than this are not searched for in text to redact (they would match everywhere). */
export const MIN_REDACTED_LENGTH = 4;

/** RFC 9110 token characters: a header name, a cookie name. */
const TOKEN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

/**
 * Header names a request may set, besides basic auth and cookies. An allowlist: custom `X-`
 * headers (what staging protections and firewall bypass rules are keyed on), and the named
 * headers of access gateways. Every other header is the analyzer's own (Host, User-Agent,
 * Accept…) or changes what a request means to a proxy or framework, so it is refused.
 */
export const SITE_HEADER_NAMES = ["cf-access-client-id", "cf-access-client-secret", "x-vercel-protection-bypass"];

/**
 * `X-` headers that proxies, load balancers and frameworks read as routing, identity or method:
 * sent to a site they could reroute a request, spoof the client's address, or turn a GET into a
 * DELETE. Refused although they start with `X-`.
 */
export const DENIED_X_HEADERS = [
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-port",
  "x-forwarded-prefix",
  "x-forwarded-server",
  "x-real-ip",
  "x-client-ip",
  "x-cluster-client-ip",
  "x-original-url",
  "x-original-host",
  "x-rewrite-url",
  "x-host",
  "x-http-method",
  "x-http-method-override",
  "x-method-override",
  "x-http-host-override",
  "x-proxyuser-ip",
  // WordPress's REST nonce: with a log-in cookie it makes REST requests act as that user.
  "x-wp-nonce",
];

const BasicAuthSchema = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: MAX_SITE_AUTH_VALUE, description: "No colon (RFC 7617)" }),
    password: Type.String({ maxLength: MAX_SITE_AUTH_VALUE }),
  },
  { additionalProperties: false, description: "HTTP basic authentication (RFC 7617), UTF-8" },
);

export const SiteAuthSchema = named(
  "SiteAuth",
  Type.Object(
    {
      basic: Type.Optional(BasicAuthSchema),
      headers: Type.Optional(
        Type.Record(Type.String({ pattern: TOKEN, maxLength: 64 }), Type.String({ maxLength: MAX_SITE_AUTH_VALUE }), {
          maxProperties: MAX_SITE_HEADERS,
          description: `Extra request headers by name: custom X- headers (not X-Forwarded-*, X-Real-IP, X-Original-URL, X-HTTP-Method-Override and the like) and ${SITE_HEADER_NAMES.join(", ")}`,
        }),
      ),
      cookies: Type.Optional(
        Type.Record(Type.String({ pattern: TOKEN, maxLength: 128 }), Type.String({ maxLength: MAX_SITE_AUTH_VALUE }), {
          maxProperties: MAX_SITE_COOKIES,
          description: "Cookies by name (RFC 6265 values: no spaces, quotes, commas, semicolons or backslashes)",
        }),
      ),
    },
    {
      additionalProperties: false,
      writeOnly: true,
      description:
        "Credentials for a password-protected site (Since API 1.4.0). Sent only to the origin of `url` — never to other origins, asset hosts or redirects elsewhere — and never stored readable, logged or returned.",
    },
  ),
);
export type SiteAuth = Static<typeof SiteAuthSchema>;

export interface SiteAuthProblem {
  /** JSON pointer inside `site_auth`, e.g. `/headers/X-Forwarded-For`. */
  pointer: string;
  detail: string;
}

const CONTROL = /[\u0000-\u001f\u007f]/;
/** RFC 9110 field-value, visible ASCII with inner spaces and tabs (no obs-text). */
const FIELD_VALUE = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/;
/** RFC 6265 cookie-value: cookie-octets, optionally in double quotes. */
const COOKIE_VALUE = /^("?)[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*\1$/;
const tokenPattern = new RegExp(TOKEN);
const pointerPart = (name: string) => name.replaceAll("~", "~0").replaceAll("/", "~1");

/** Whether a site header name is allowed (case-insensitive). */
export function isAllowedSiteHeader(name: string): boolean {
  const lower = name.toLowerCase();
  if (!tokenPattern.test(name)) return false;
  if (SITE_HEADER_NAMES.includes(lower)) return true;
  return lower.startsWith("x-") && lower.length > 2 && !DENIED_X_HEADERS.includes(lower);
}

/**
 * What the schema cannot say: the header allowlist, value characters, a user name without a
 * colon. Messages never repeat a value (they end up in logs and CI output).
 */
export function siteAuthProblems(auth: SiteAuth): SiteAuthProblem[] {
  const problems: SiteAuthProblem[] = [];
  if (auth.basic) {
    if (auth.basic.username.includes(":") || CONTROL.test(auth.basic.username))
      problems.push({ pointer: "/basic/username", detail: "must not contain a colon or control characters" });
    if (CONTROL.test(auth.basic.password))
      problems.push({ pointer: "/basic/password", detail: "must not contain control characters" });
  }
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(auth.headers ?? {})) {
    const pointer = `/headers/${pointerPart(name)}`;
    if (!isAllowedSiteHeader(name)) {
      problems.push({
        pointer,
        detail: `is not a header site credentials may set: use basic for Authorization and cookies for Cookie; other headers must be custom X- headers (not ${DENIED_X_HEADERS.slice(0, 3).join(", ")}…) or ${SITE_HEADER_NAMES.join(", ")}`,
      });
    } else if (seen.has(name.toLowerCase())) {
      problems.push({ pointer, detail: "is given twice (header names are case-insensitive)" });
    } else if (!FIELD_VALUE.test(value)) {
      problems.push({ pointer, detail: "must be visible ASCII characters, spaces and tabs only, not empty" });
    }
    seen.add(name.toLowerCase());
  }
  for (const [name, value] of Object.entries(auth.cookies ?? {})) {
    if (!COOKIE_VALUE.test(value))
      problems.push({
        pointer: `/cookies/${pointerPart(name)}`,
        detail: "must be a cookie value: no spaces, double quotes inside, commas, semicolons or backslashes",
      });
  }
  return problems;
}

/** True when the credentials would add nothing to a request. */
export function isEmptySiteAuth(auth: SiteAuth | undefined): boolean {
  return (
    !auth ||
    (!auth.basic && Object.keys(auth.headers ?? {}).length === 0 && Object.keys(auth.cookies ?? {}).length === 0)
  );
}

/** The `Authorization` value of basic credentials (RFC 7617, UTF-8). */
export function basicAuthorization(basic: { username: string; password: string }): string {
  return `Basic ${Buffer.from(`${basic.username}:${basic.password}`, "utf8").toString("base64")}`;
}

/** The request headers the credentials add, by lower-case name. */
export function siteAuthHeaders(auth: SiteAuth): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(auth.headers ?? {})) headers[name.toLowerCase()] = value;
  if (auth.basic) headers.authorization = basicAuthorization(auth.basic);
  const cookies = Object.entries(auth.cookies ?? {});
  if (cookies.length > 0) headers.cookie = cookies.map(([name, value]) => `${name}=${value}`).join("; ");
  return headers;
}

/**
 * The secret strings of the credentials, as they could appear in text: the password, the header
 * and cookie values, the Authorization and Cookie values they make, and each value
 * percent-encoded. The user name is not among them: it is not a secret, and is often a word
 * (admin) a report rightly shows.
 */
export function siteAuthSecrets(auth: SiteAuth | undefined): string[] {
  if (!auth) return [];
  const values = [
    ...(auth.basic ? [auth.basic.password, basicAuthorization(auth.basic).slice("Basic ".length)] : []),
    ...Object.values(auth.headers ?? {}),
    ...Object.values(auth.cookies ?? {}),
  ];
  const cookieHeader = siteAuthHeaders(auth).cookie;
  if (cookieHeader) values.push(cookieHeader);
  const all = values.flatMap((value) => [value, encodeURIComponent(value)]);
  // Longest first, so a value containing another is replaced whole.
  return [...new Set(all.filter((value) => value.length >= MIN_REDACTED_LENGTH))].sort((a, b) => b.length - a.length);
}

export const REDACTED = "[redacted]";

/** Replaces every secret in strings (recursively through arrays and objects); a function of the secrets. */
export function redactor(secrets: readonly string[]): { text(value: string): string; deep<T>(value: T): T } {
  const text = (value: string): string => {
    let result = value;
    for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    return result;
  };
  const deep = <T>(value: T): T => {
    if (secrets.length === 0) return value;
    if (typeof value === "string") return text(value) as T;
    if (Array.isArray(value)) return value.map(deep) as T;
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [text(key), deep(item)])) as T;
    }
    return value;
  };
  return { text, deep };
}

/** Raised by the text-form parsers (Action inputs, CLI flags); the message names the input, never a value. */
export class SiteAuthInputError extends Error {}

export interface SiteAuthInputs {
  /** `user:password`. */
  httpAuth?: string;
  /** One `Name: value` per line (or per flag). */
  headers?: string | string[];
  /** `name=value` pairs, separated by `;` or new lines (or one per flag). */
  cookies?: string | string[];
}

/**
 * Credentials from their text forms — the Action's `http-auth`, `http-headers`, `http-cookies`
 * inputs, the CLI's flags and environment — checked as the service checks them, so a mistake
 * fails the step before any request (and before any credit). `names` says what to call each
 * input in messages. Undefined when nothing was given.
 */
export function parseSiteAuthInputs(
  inputs: SiteAuthInputs,
  names: { httpAuth: string; headers: string; cookies: string },
): SiteAuth | undefined {
  const auth: SiteAuth = {};
  const httpAuth = inputs.httpAuth?.trim();
  if (httpAuth) {
    const colon = httpAuth.indexOf(":");
    if (colon < 1) throw new SiteAuthInputError(`${names.httpAuth} must look like user:password`);
    auth.basic = { username: httpAuth.slice(0, colon), password: httpAuth.slice(colon + 1) };
  }
  const headerLines = (Array.isArray(inputs.headers) ? inputs.headers : (inputs.headers ?? "").split(/\r?\n/))
    .map((line) => line.trim())
    .filter(Boolean);
  for (const [index, line] of headerLines.entries()) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim() : "";
    if (!name) throw new SiteAuthInputError(`${names.headers} line ${index + 1} must look like "Name: value"`);
    auth.headers = { ...auth.headers, [name]: line.slice(colon + 1).trim() };
  }
  const cookiePairs = (Array.isArray(inputs.cookies) ? inputs.cookies : [inputs.cookies ?? ""])
    .flatMap((text) => text.split(/[;\r\n]+/))
    .map((pair) => pair.trim())
    .filter(Boolean);
  for (const [index, pair] of cookiePairs.entries()) {
    const equals = pair.indexOf("=");
    const name = equals > 0 ? pair.slice(0, equals).trim() : "";
    if (!name) throw new SiteAuthInputError(`${names.cookies} entry ${index + 1} must look like name=value`);
    auth.cookies = { ...auth.cookies, [name]: pair.slice(equals + 1).trim() };
  }
  if (isEmptySiteAuth(auth)) return undefined;
  const schemaProblem = siteAuthShapeProblem(auth);
  const problem = schemaProblem ?? siteAuthProblems(auth)[0];
  if (problem) {
    const input = problem.pointer.startsWith("/basic")
      ? names.httpAuth
      : problem.pointer.startsWith("/headers")
        ? names.headers
        : names.cookies;
    const what = decodeURIComponent(problem.pointer.split("/").slice(2).join("/").replaceAll("~1", "/"));
    throw new SiteAuthInputError(`${input}: ${what ? `${what} ` : ""}${problem.detail}`);
  }
  return auth;
}

/** The limits the request schema sets (counts, lengths, name characters), as a problem. */
function siteAuthShapeProblem(auth: SiteAuth): SiteAuthProblem | undefined {
  if (
    auth.basic &&
    (auth.basic.username.length > MAX_SITE_AUTH_VALUE || auth.basic.password.length > MAX_SITE_AUTH_VALUE)
  )
    return { pointer: "/basic", detail: `must be at most ${MAX_SITE_AUTH_VALUE} characters each` };
  for (const [group, limit, nameLength] of [
    ["headers", MAX_SITE_HEADERS, 64],
    ["cookies", MAX_SITE_COOKIES, 128],
  ] as const) {
    const entries = Object.entries(auth[group] ?? {});
    if (entries.length > limit) return { pointer: `/${group}`, detail: `may hold at most ${limit}` };
    for (const [name, value] of entries) {
      if (!tokenPattern.test(name) || name.length > nameLength)
        return { pointer: `/${group}/${pointerPart(name)}`, detail: "is not a valid name" };
      if (value.length > MAX_SITE_AUTH_VALUE)
        return {
          pointer: `/${group}/${pointerPart(name)}`,
          detail: `must be at most ${MAX_SITE_AUTH_VALUE} characters`,
        };
    }
  }
  return undefined;
}
