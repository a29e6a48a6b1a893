/**
 * Web application firewalls and bot challenges on the homepage. A challenge page instead of
 * the site means nothing else can be analyzed; the report then says "blocked by a WAF" rather
 * than auditing the challenge page as if it were the site. The marks themselves are in
 * detect/block-pages.ts, the one recogniser of challenge and block pages.
 */
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { pageOf } from "../parse/page.ts";
import { isControlKey, type ProbeKey } from "../probe-keys.ts";
import { blockPageOf, presentVendor } from "./block-pages.ts";

/**
 * A challenge or block page whose marks leave no doubt. One that only reads like a block is
 * the site's own until a control says otherwise; the homepage has none, and a homepage that
 * answers 403 is an incomplete report anyway.
 */
const certainBlock = (artifact: HttpArtifact) => {
  const page = blockPageOf(artifact);
  return page?.certain ? page : undefined;
};

/** The WAF whose challenge or block page this is, when its vendor is known. */
export function challengeOf(artifact: HttpArtifact): string | undefined {
  return certainBlock(artifact)?.vendor ?? undefined;
}

export function isChallengePage(artifact: HttpArtifact): boolean {
  // A real WordPress page that merely mentions a WAF is not a challenge.
  if (artifact.status === 200 && /\/wp-(content|includes)\//.test(artifact.body) && pageOf(artifact).elementCount > 50)
    return false;
  return certainBlock(artifact) !== undefined;
}

/** A WAF in front of the site, seen in headers (even when it let us through). */
export function wafInFront(artifact: HttpArtifact): string | undefined {
  return presentVendor(artifact) ?? undefined;
}

/** The vendor of the first firewall page a probe met, in key order (hosting.waf when the homepage names none). */
export function probeFirewall(artifacts: Artifacts): string | null {
  const keys = (Object.keys(artifacts.probes) as ProbeKey[]).filter((key) => !isControlKey(key)).sort();
  for (const key of keys) {
    const answer = artifacts.probes[key];
    const page = answer ? blockPageOf(answer) : null;
    if (page?.vendor && page.certain) return page.vendor;
  }
  return null;
}
