/**
 * The check catalogue: every check the analyzer can report, with its stable id, category,
 * severity, title and remediation — one file per category, merged here. Ids never change
 * meaning once published; the diff engine and users' CI thresholds depend on them.
 * docs/checks.md is generated from this (`npm run docs:checks`) and a test keeps the two
 * in step.
 *
 * Ids: `<category>.<what_is_checked>`, lower snake case. Titles state what a pass means;
 * fail titles state what a failure means (the same fact, negated).
 */
import type { Check, CheckStatus } from "../../../shared/report.ts";
import type { CheckDefinition } from "./check-definition.ts";
import { COMPONENT_CHECKS } from "./components/catalogue.ts";
import { PERFORMANCE_CHECKS } from "./performance/catalogue.ts";
import { SECURITY_CHECKS } from "./security/catalogue.ts";
import { SEO_CHECKS } from "./seo/catalogue.ts";

export type { CheckDefinition } from "./check-definition.ts";

export const CHECKS = {
  ...PERFORMANCE_CHECKS,
  ...SEO_CHECKS,
  ...SECURITY_CHECKS,
  ...COMPONENT_CHECKS,
} as const satisfies Record<string, CheckDefinition>;

export type CheckId = keyof typeof CHECKS;

/** Cap for evidence lines in a check: site text, already cleaned, kept short. */
const MAX_EVIDENCE = 10;

export function makeCheck(id: CheckId, status: CheckStatus, message: string, evidence: string[] = []): Check {
  const definition: CheckDefinition = CHECKS[id];
  return {
    id,
    category: definition.category,
    severity: definition.severity,
    status,
    title: definition.title,
    fail_title: definition.failTitle,
    message,
    evidence: evidence.slice(0, MAX_EVIDENCE),
    remediation: definition.remediation,
  };
}
