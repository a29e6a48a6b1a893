/** The facts audits receive, computed from artifacts exactly as the pipeline does. */
import { detect, extract } from "../../server/analyzer/analyze.ts";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import type { Facts } from "../../server/analyzer/facts.ts";
import type { Check } from "../../shared/report.ts";

export function factsOf(artifacts: Artifacts): Facts {
  return extract(detect(artifacts));
}

/** The status of check `id` among `checks`, or undefined when it is absent. */
export function statusOf(checks: readonly Check[], id: string): Check["status"] | undefined {
  return checks.find((check) => check.id === id)?.status;
}
