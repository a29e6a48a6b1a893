/**
 * Every audit, in report order. Adding an audit = one module in its category folder, its
 * checks in that folder's catalogue.ts, and one line in that folder's index.ts.
 */
import type { Check } from "../../../shared/report.ts";
import type { Facts } from "../facts.ts";
import { COMPONENT_AUDITS } from "./components/index.ts";
import { guardPasses } from "./obstacles.ts";
import { PERFORMANCE_AUDITS } from "./performance/index.ts";
import { SECURITY_AUDITS } from "./security/index.ts";
import { SEO_AUDITS } from "./seo/index.ts";
import type { Audit } from "./types.ts";
import { skipWordPressOnly } from "./wordpress-only.ts";

export const AUDITS: readonly Audit[] = [...COMPONENT_AUDITS, ...SECURITY_AUDITS, ...PERFORMANCE_AUDITS, ...SEO_AUDITS];

/**
 * Every check; none that passes on a miss passes while one of its probes met a challenge, a
 * persistent 429, a server error or a timeout (obstacles.ts); on a site that is not WordPress,
 * the WordPress-only ones skip (wordpress-only.ts).
 */
export function runAudits(facts: Facts): Check[] {
  return skipWordPressOnly(
    guardPasses(
      AUDITS.flatMap((audit) => audit(facts)),
      facts,
    ),
    facts.wordpress.detected,
  );
}
