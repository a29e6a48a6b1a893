/**
 * Flags of the cookies the homepage sets. Secure matters on HTTPS sites (without it the
 * cookie also travels over any plain-HTTP request); HttpOnly matters for session cookies
 * (an injected script cannot steal them). Other cookies — consent banners, analytics — are
 * often read by scripts on purpose, so a missing HttpOnly is only held against sessions.
 */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/** Names of cookies that identify a session or a logged-in user. */
const SESSION_COOKIE = /^(?:wordpress_(?:logged_in_|sec_|[0-9a-f]{32}$)|phpsessid$)|session/i;

export const auditCookies: Audit = ({ security }) => {
  const id = "security.cookie_flags";
  const { cookies } = security;
  if (cookies.length === 0) return [makeCheck(id, "skip", "The homepage sets no cookies.")];
  const problems: string[] = [];
  for (const cookie of cookies) {
    const missing: string[] = [];
    if (security.https && !cookie.secure) missing.push("Secure");
    if (SESSION_COOKIE.test(cookie.name) && !cookie.http_only) missing.push("HttpOnly");
    if (missing.length > 0) problems.push(`${cookie.name}: no ${missing.join(", no ")}`);
  }
  if (problems.length > 0) {
    return [
      makeCheck(
        id,
        "fail",
        `${problems.length} of ${cookies.length} cookie(s) set by the homepage lack a flag they need.`,
        problems,
      ),
    ];
  }
  const flags = security.https ? "Secure, and session cookies HttpOnly" : "HttpOnly where they hold a session";
  return [
    makeCheck(
      id,
      "pass",
      `The ${cookies.length} cookie(s) set by the homepage are ${flags}.`,
      cookies.map((cookie) => cookie.name),
    ),
  ];
};
