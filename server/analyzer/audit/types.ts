import type { Check, CheckCategory, Severity } from "../../../shared/report.ts";
import type { Facts } from "../facts.ts";

/** An audit is a pure, deterministic function from the facts to checks. */
export type Audit = (facts: Facts) => Check[];

/** A catalogue entry: everything about a check that does not depend on the site. */
export interface CheckDefinition {
  category: CheckCategory;
  severity: Severity;
  /** What a pass means, as a short statement ("Site is served over HTTPS"). */
  title: string;
  remediation: string;
}
