/**
 * Security response headers of the homepage: Content-Security-Policy, framing protection,
 * X-Content-Type-Options, Referrer-Policy, Permissions-Policy. Header values are as the
 * security facts hold them (repeated headers joined with ", ").
 */
import type { Check } from "../../../../shared/report.ts";
import type { Facts } from "../../facts.ts";
import { siteText } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

type Directives = Map<string, string[]>;

/** Policies of a CSP value (several headers arrive joined with ", "), each as directive → sources. */
export function parseCsp(value: string): Directives[] {
  return value.split(",").map((policy) => {
    const directives: Directives = new Map();
    for (const part of policy.split(";")) {
      const [name, ...sources] = part.trim().split(/\s+/);
      // The first occurrence of a directive wins; later ones are ignored by browsers.
      if (name && !directives.has(name.toLowerCase())) directives.set(name.toLowerCase(), sources);
    }
    return directives;
  });
}

function header(facts: Facts, name: string): string | null {
  return facts.security.headers.find((entry) => entry.name === name)?.value ?? null;
}

/** A CSP given in <meta http-equiv> also applies (except frame-ancestors, which browsers ignore there). */
function metaCsp(facts: Facts): string | null {
  const meta = facts.homepage.page.metas.find(
    (tag) => tag.inHead && (tag.attrs["http-equiv"] ?? "").toLowerCase() === "content-security-policy",
  );
  return meta?.attrs.content ? siteText(meta.attrs.content, 500) : null;
}

/** Sources that let any host's script run. */
const WIDE_OPEN = new Set(["*", "http:", "https:", "data:"]);

function cspCheck(facts: Facts): Check {
  const id = "security.csp";
  const fromHeader = header(facts, "content-security-policy");
  const fromMeta = metaCsp(facts);
  const value = fromHeader ?? fromMeta;
  if (value === null) {
    return makeCheck(id, "fail", "No Content-Security-Policy: nothing limits the damage an injected script can do.");
  }
  const evidence = [fromHeader ? `content-security-policy: ${fromHeader}` : `<meta http-equiv> CSP: ${fromMeta}`];
  const scriptPolicy = parseCsp(value)
    .map((policy) => policy.get("script-src") ?? policy.get("default-src"))
    .find((sources) => sources !== undefined);
  if (!scriptPolicy) {
    return makeCheck(
      id,
      "warn",
      "A Content-Security-Policy is set but has neither script-src nor default-src, so it does not restrict scripts.",
      evidence,
    );
  }
  const sources = scriptPolicy.map((source) => source.toLowerCase());
  // A nonce, hash or 'strict-dynamic' makes browsers ignore 'unsafe-inline'.
  const pinned = sources.some(
    (source) => /^'(nonce|sha256|sha384|sha512)-/.test(source) || source === "'strict-dynamic'",
  );
  const weaknesses: string[] = [];
  if (sources.includes("'unsafe-inline'") && !pinned) weaknesses.push("allows inline scripts ('unsafe-inline')");
  const open = sources.filter((source) => WIDE_OPEN.has(source));
  if (open.length > 0) weaknesses.push(`allows scripts from any host (${open.join(" ")})`);
  if (weaknesses.length > 0) {
    return makeCheck(
      id,
      "warn",
      `A Content-Security-Policy is set, but it ${weaknesses.join(" and ")}, so it does little against cross-site scripting.`,
      evidence,
    );
  }
  return makeCheck(id, "pass", "A Content-Security-Policy restricts where scripts may come from.", evidence);
}

function clickjackingCheck(facts: Facts): Check {
  const id = "security.clickjacking";
  const xfo = header(facts, "x-frame-options");
  const csp = header(facts, "content-security-policy");
  const evidence: string[] = [];
  if (xfo !== null) evidence.push(`x-frame-options: ${xfo}`);
  // frame-ancestors wins over X-Frame-Options in every current browser.
  const ancestors = csp === null ? undefined : parseCsp(csp).find((policy) => policy.has("frame-ancestors"));
  const frameAncestors = ancestors?.get("frame-ancestors");
  if (frameAncestors) {
    evidence.push(`frame-ancestors ${frameAncestors.join(" ")}`);
    const open = frameAncestors.some((source) => WIDE_OPEN.has(source.toLowerCase()));
    if (!open) return makeCheck(id, "pass", "CSP frame-ancestors limits which sites may frame the pages.", evidence);
    return makeCheck(id, "fail", "CSP frame-ancestors allows any site to frame the pages.", evidence);
  }
  if (xfo !== null) {
    const values = xfo.split(",").map((part) => part.trim().toLowerCase());
    if (values.every((part) => part === "deny" || part === "sameorigin")) {
      return makeCheck(id, "pass", "X-Frame-Options stops other sites from framing the pages.", evidence);
    }
    // ALLOW-FROM is obsolete: current browsers ignore the whole header.
    return makeCheck(
      id,
      "fail",
      "X-Frame-Options has a value browsers ignore (only DENY and SAMEORIGIN work), so other sites can frame the pages.",
      evidence,
    );
  }
  return makeCheck(
    id,
    "fail",
    "Neither X-Frame-Options nor CSP frame-ancestors is set: another site can show these pages in a hidden frame and trick visitors into clicking (clickjacking).",
  );
}

function contentTypeOptionsCheck(facts: Facts): Check {
  const id = "security.x_content_type_options";
  const value = header(facts, "x-content-type-options");
  if (value === null) {
    return makeCheck(
      id,
      "fail",
      "X-Content-Type-Options is missing: browsers may guess a file's type (MIME sniffing).",
    );
  }
  const evidence = [`x-content-type-options: ${value}`];
  if (value.split(",").every((part) => part.trim().toLowerCase() === "nosniff")) {
    return makeCheck(id, "pass", "X-Content-Type-Options: nosniff is set.", evidence);
  }
  return makeCheck(
    id,
    "fail",
    'X-Content-Type-Options has a value other than "nosniff", which browsers ignore.',
    evidence,
  );
}

const REFERRER_POLICIES = new Set([
  "no-referrer",
  "no-referrer-when-downgrade",
  "origin",
  "origin-when-cross-origin",
  "same-origin",
  "strict-origin",
  "strict-origin-when-cross-origin",
  "unsafe-url",
]);

function referrerPolicyCheck(facts: Facts): Check {
  const id = "security.referrer_policy";
  const value = header(facts, "referrer-policy");
  // Browsers use the last policy they understand (a list allows fallbacks).
  const policy =
    value
      ?.split(",")
      .map((part) => part.trim().toLowerCase())
      .filter((part) => REFERRER_POLICIES.has(part))
      .at(-1) ?? null;
  const evidence = value === null ? [] : [`referrer-policy: ${value}`];
  if (policy === null) {
    // Current browsers then default to strict-origin-when-cross-origin, which is reasonable.
    return makeCheck(
      id,
      "warn",
      value === null
        ? "No Referrer-Policy: current browsers default to strict-origin-when-cross-origin, older ones send full URLs to other sites."
        : "The Referrer-Policy value is not one browsers understand, so they use their default.",
      evidence,
    );
  }
  if (policy === "unsafe-url") {
    return makeCheck(
      id,
      "fail",
      "Referrer-Policy: unsafe-url sends the full URL (path and query) to every site, even over plain HTTP.",
      evidence,
    );
  }
  if (policy === "no-referrer-when-downgrade") {
    return makeCheck(
      id,
      "warn",
      "Referrer-Policy: no-referrer-when-downgrade sends the full URL (path and query) to other HTTPS sites.",
      evidence,
    );
  }
  return makeCheck(id, "pass", `Referrer-Policy is ${policy}.`, evidence);
}

function permissionsPolicyCheck(facts: Facts): Check {
  const id = "security.permissions_policy";
  const value = header(facts, "permissions-policy");
  if (value === null) {
    return makeCheck(
      id,
      "fail",
      "No Permissions-Policy: embedded third-party content may ask for camera, microphone or location.",
    );
  }
  return makeCheck(id, "pass", "A Permissions-Policy is set.", [`permissions-policy: ${value}`]);
}

export const auditHeaders: Audit = (facts) => [
  cspCheck(facts),
  clickjackingCheck(facts),
  contentTypeOptionsCheck(facts),
  referrerPolicyCheck(facts),
  permissionsPolicyCheck(facts),
];
