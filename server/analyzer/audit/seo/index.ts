/** SEO audits, in report order. */
import type { Audit } from "../types.ts";
import { auditCrawling } from "./crawling.ts";
import { auditHreflang } from "./hreflang.ts";
import { auditIndexing } from "./indexing.ts";
import { auditMetaTags } from "./meta-tags.ts";
import { auditPageStructure } from "./page-structure.ts";
import { auditSeoPlugin } from "./seo-plugin.ts";
import { auditSocial } from "./social.ts";
import { auditStructuredData } from "./structured-data.ts";

export const SEO_AUDITS: readonly Audit[] = [
  auditIndexing,
  auditCrawling,
  auditMetaTags,
  auditPageStructure,
  auditSocial,
  auditStructuredData,
  auditHreflang,
  auditSeoPlugin,
];
