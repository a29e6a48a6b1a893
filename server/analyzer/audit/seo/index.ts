/** SEO audits, in report order. */
import type { Audit } from "../types.ts";

export const SEO_AUDITS: readonly Audit[] = [];
