/** SEO checks (ids `seo.*`). See ../catalogue.ts for the rules on ids. */
import type { CheckDefinition } from "../types.ts";

export const SEO_CHECKS = {} as const satisfies Record<string, CheckDefinition>;
