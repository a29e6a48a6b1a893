/**
 * Transport security: is the site on HTTPS, does http:// lead there, and does HSTS keep
 * browsers from ever trying plain HTTP again?
 */

import type { Check } from "../../../../shared/report.ts";
import { tlsVerificationNote } from "../../../../shared/site-tls.ts";
import type { ProbeAnswer } from "../../facts.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/** 180 days: the minimum max-age security scanners (Mozilla Observatory) accept. */
export const HSTS_MIN_SECONDS = 180 * 24 * 60 * 60;

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export const auditTransport: Audit = ({ homepage, probes, security }) => {
  const finalUrl = new URL(homepage.url);
  const checks: Check[] = [];
  if (security.tls_verification && finalUrl.protocol === "https:") {
    // The certificate was not verified as a browser does (a staging site's tls: insecure or
    // tls_ca): what a visitor's browser would say of this HTTPS is unknown, so nothing passes.
    const note = tlsVerificationNote(security.tls_verification);
    return [
      makeCheck(
        "security.https",
        "skip",
        `${capitalized(note)}, so what a browser says of its HTTPS is unknown: not checked.`,
        [homepage.url],
      ),
      redirectCheck(security.https, security.http_to_https_redirect, probes.answers.http_redirect),
      makeCheck(
        "security.hsts",
        "skip",
        `${capitalized(note)}, and browsers ignore HSTS over a certificate they do not trust: not checked.`,
      ),
    ];
  }
  if (finalUrl.protocol === "https:") {
    checks.push(makeCheck("security.https", "pass", "The homepage is served over HTTPS.", [homepage.url]));
  } else {
    checks.push(
      makeCheck(
        "security.https",
        "fail",
        "The homepage is served over plain HTTP; visitors' traffic and logins can be read and altered.",
        [homepage.url],
      ),
    );
  }
  checks.push(redirectCheck(security.https, security.http_to_https_redirect, probes.answers.http_redirect));
  checks.push(hstsCheck(security.https, security.hsts));
  return checks;
};

function redirectCheck(https: boolean, redirects: boolean | null, plain: ProbeAnswer | undefined): Check {
  const id = "security.http_to_https_redirect";
  if (!https) return makeCheck(id, "skip", "The site is not served over HTTPS, so there is nothing to redirect to.");
  if (!plain || redirects === null) {
    return makeCheck(id, "error", "The http:// version of the homepage could not be requested (see errors).");
  }
  const location = plain.location ?? "";
  const evidence = [`${siteUrl(plain.url)} → ${plain.status}${location ? ` ${siteUrl(location)}` : ""}`];
  if (redirects) return makeCheck(id, "pass", "http:// requests are redirected to https://.", evidence);
  // A first hop to another http:// URL (e.g. adding www) may still end on HTTPS, but the
  // request that leaves first is in clear text and the redirect chain can be tampered with.
  if (plain.status >= 300 && plain.status < 400 && /^http:\/\//i.test(location.trim())) {
    return makeCheck(
      id,
      "warn",
      "http:// redirects to another http:// address first instead of straight to https://.",
      evidence,
    );
  }
  return makeCheck(
    id,
    "fail",
    `http:// requests are answered with status ${plain.status} instead of a redirect to https://, so visitors who type the address stay on plain HTTP.`,
    evidence,
  );
}

/** max-age of a Strict-Transport-Security value, or null when it has none. */
export function hstsMaxAge(value: string): number | null {
  const match = /(?:^|;)\s*max-age\s*=\s*"?(\d+)"?/i.exec(value);
  return match?.[1] ? Number(match[1]) : null;
}

function hstsCheck(https: boolean, hsts: string | null): Check {
  const id = "security.hsts";
  // Browsers ignore HSTS received over plain HTTP, so it only means something on HTTPS.
  if (!https) return makeCheck(id, "skip", "The site is not served over HTTPS; HSTS only applies to HTTPS sites.");
  if (hsts === null) {
    return makeCheck(
      id,
      "fail",
      "No Strict-Transport-Security header: browsers will keep trying http:// first, where the connection can be hijacked.",
    );
  }
  const evidence = [`strict-transport-security: ${hsts}`];
  const maxAge = hstsMaxAge(hsts);
  if (maxAge === null) {
    return makeCheck(
      id,
      "fail",
      "The Strict-Transport-Security header has no valid max-age, so browsers ignore it.",
      evidence,
    );
  }
  if (maxAge === 0) {
    return makeCheck(
      id,
      "fail",
      "Strict-Transport-Security has max-age=0, which tells browsers to forget HSTS.",
      evidence,
    );
  }
  const days = Math.floor(maxAge / 86_400);
  if (maxAge < HSTS_MIN_SECONDS) {
    return makeCheck(
      id,
      "warn",
      `Strict-Transport-Security is set, but for only ${days} days (180 or more recommended).`,
      evidence,
    );
  }
  return makeCheck(id, "pass", `Strict-Transport-Security is set for ${days} days.`, evidence);
}
