import type { Check, WordPressInfo } from "../../../shared/report.ts";
import type { Artifacts } from "../artifacts.ts";

/** What every audit gets: the gathered artifacts and the detection results. */
export interface AuditInput {
  artifacts: Artifacts;
  wordpress: WordPressInfo;
}

/** An audit is a pure, deterministic function from its input to checks. */
export type Audit = (input: AuditInput) => Check[];
