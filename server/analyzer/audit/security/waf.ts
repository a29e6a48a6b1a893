/**
 * Is a web application firewall in front of WordPress? Informational: edge WAFs show in
 * headers, firewall plugins only when detected as plugins — a plugin firewall we cannot
 * see is possible, so absence is a warning, never a failure.
 */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/** Plugins that filter requests before WordPress handles them. */
const FIREWALL_PLUGINS = new Set([
  "wordfence",
  "better-wp-security",
  "all-in-one-wp-security-and-firewall",
  "ninjafirewall",
  "sucuri-scanner",
  "bulletproof-security",
  "shield-security",
  "wp-cerber",
  "defender-security",
  "malcare-security",
]);

export const auditWaf: Audit = ({ hosting, plugins, probes }) => {
  const id = "security.waf";
  const evidence: string[] = [];
  if (hosting.waf) evidence.push(`edge: ${hosting.waf}`);
  for (const plugin of plugins) {
    if (FIREWALL_PLUGINS.has(plugin.slug)) evidence.push(`plugin: ${plugin.name ?? plugin.slug}`);
  }
  // A firewall that challenged or blocked the analyzer's probes was seen at work, named or not.
  const pages = Object.values(probes.obstacles).filter(
    (obstacle) => obstacle?.kind === "challenge" || obstacle?.kind === "block",
  );
  evidence.push(...pages.slice(0, 3).map((obstacle) => obstacle?.reason ?? ""));
  if (evidence.length > 0) {
    const named = hosting.waf ? ` (${hosting.waf})` : "";
    return [makeCheck(id, "pass", `A firewall${named} protects the site.`, evidence)];
  }
  return [
    makeCheck(
      id,
      "warn",
      "No web application firewall was seen in front of the site (a firewall plugin may still be active without showing itself).",
    ),
  ];
};
