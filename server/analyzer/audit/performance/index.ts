/** Performance audits, in report order. */
import type { Audit } from "../types.ts";
import { auditAssets } from "./assets.ts";
import { auditHtmlDelivery } from "./html-delivery.ts";
import { auditImages } from "./images.ts";
import { auditLab } from "./lab.ts";
import { auditPageCache } from "./page-cache.ts";
import { auditPageSize } from "./page-size.ts";
import { auditRedirects } from "./redirects.ts";
import { auditRequests } from "./requests.ts";
import { auditWordPressExtras } from "./wordpress-extras.ts";

export const PERFORMANCE_AUDITS: readonly Audit[] = [
  auditHtmlDelivery,
  auditRedirects,
  auditPageCache,
  auditPageSize,
  auditRequests,
  auditAssets,
  auditImages,
  auditWordPressExtras,
  auditLab,
];
