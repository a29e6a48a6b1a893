/**
 * Validation of the URL a caller asks us to analyze, before any credit is reserved.
 * Returns the normalised URL or the problem code and a plain-words reason.
 */
import ipaddr from "ipaddr.js";
import { portOf, type TargetPolicy } from "./fetch/target-policy.ts";

export const MAX_URL_LENGTH = 2048;

export type TargetUrlVerdict =
  | { ok: true; url: URL }
  | {
      ok: false;
      code: "invalid_url" | "url_not_allowed";
      detail: string;
      /**
       * The address policy refused the host (loopback, private, single-label…): a refusal that
       * an operator's TARGET_ALLOWLIST could lift. Said to operators in the log, never to callers.
       */
      byAddressPolicy?: true;
    };

/** RFC 6761: `localhost` and every name under `.localhost` are this machine. */
const isLocalhostName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/** The host exactly as typed, so odd numeric spellings can be told from canonical ones. */
function rawHost(input: string): string | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(input);
  if (!match?.[1]) return undefined;
  const authority = match[1].slice(match[1].lastIndexOf("@") + 1);
  if (authority.startsWith("[")) return authority.slice(0, authority.indexOf("]") + 1);
  return authority.replace(/:\d*$/, "");
}

export function validateTargetUrl(input: string, policy: TargetPolicy): TargetUrlVerdict {
  const text = input.trim();
  if (text.length === 0) return { ok: false, code: "invalid_url", detail: "The url is empty." };
  if (text.length > MAX_URL_LENGTH) {
    return { ok: false, code: "invalid_url", detail: `The url is longer than ${MAX_URL_LENGTH} characters.` };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      ok: false,
      code: "invalid_url",
      detail: "The url is not a valid absolute URL. Use the form https://example.com/.",
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      code: "url_not_allowed",
      detail: `Only http and https URLs can be analyzed, not ${url.protocol.replace(":", "")}.`,
    };
  }
  if (url.username || url.password) {
    return {
      ok: false,
      code: "url_not_allowed",
      detail: "The url must not contain a user name or password.",
    };
  }
  if (!url.hostname) return { ok: false, code: "invalid_url", detail: "The url has no host." };

  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const typed = rawHost(text)
    ?.toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  // Hosts written as one number, hex, octal or with fewer dots are IPv4 in disguise.
  if (typed !== undefined && /^[0-9a-fx.]+$/i.test(typed) && /^[\d.]+$/.test(host) && typed !== host) {
    return {
      ok: false,
      code: "url_not_allowed",
      detail: "The url's host is an IP address written in an unusual numeric form; write it as a.b.c.d.",
    };
  }
  if (ipaddr.isValid(host)) {
    const refusal = policy.refusal(host, portOf(url));
    if (refusal?.kind === "address") {
      const detail = `The url points to a ${refusal.reason}, which cannot be analyzed.`;
      return { ok: false, code: "url_not_allowed", detail, byAddressPolicy: true };
    }
    if (refusal)
      return {
        ok: false,
        code: "url_not_allowed",
        detail: `The url cannot be analyzed: ${refusal.reason}.`,
        byAddressPolicy: true,
      };
  } else if (isLocalhostName(host) && !policy.isHostAllowlisted(host)) {
    return {
      ok: false,
      code: "url_not_allowed",
      detail: `The url's host is ${host}: a name for the analyzing server itself (a loopback address), which cannot be analyzed.`,
      byAddressPolicy: true,
    };
  } else if (!host.replace(/\.$/, "").includes(".") && !policy.isHostAllowlisted(host)) {
    // The trailing dot of an absolute name ("http://intranet./") does not make it public.
    return {
      ok: false,
      code: "url_not_allowed",
      detail: "The url's host is not a public domain name (it has no dot).",
      byAddressPolicy: true,
    };
  }
  url.hash = "";
  return { ok: true, url };
}

/**
 * The "same site" key: host without `www.`, non-default port, path without trailing
 * slash; scheme, query and fragment ignored (an http→https move is the same site).
 */
export function siteKey(url: URL): string {
  const host = url.hostname.toLowerCase().replace(/^www\./, "");
  const port = url.port ? `:${url.port}` : "";
  const path = url.pathname.replace(/\/+$/, "");
  return `${host}${port}${path}`;
}
