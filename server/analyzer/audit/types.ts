import type { Check } from "../../../shared/report.ts";
import type { Facts } from "../facts.ts";

/** An audit is a pure, deterministic function from the facts to checks. */
export type Audit = (facts: Facts) => Check[];
