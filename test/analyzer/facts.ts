/** The facts audits receive, computed from artifacts exactly as the pipeline does. */
import { detect } from "../../server/analyzer/analyze.ts";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { extractPerformance } from "../../server/analyzer/extract/performance.ts";
import { extractSecurity } from "../../server/analyzer/extract/security.ts";
import { extractSeo } from "../../server/analyzer/extract/seo.ts";
import type { Facts } from "../../server/analyzer/facts.ts";
import type { Check } from "../../shared/report.ts";

export function factsOf(artifacts: Artifacts): Facts {
  const detected = detect(artifacts);
  return {
    ...detected,
    performance: extractPerformance(detected),
    seo: extractSeo(detected),
    security: extractSecurity(detected),
  };
}

/** The status of check `id` among `checks`, or undefined when it is absent. */
export function statusOf(checks: readonly Check[], id: string): Check["status"] | undefined {
  return checks.find((check) => check.id === id)?.status;
}
