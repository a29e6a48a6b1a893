/** Performance audits, in report order. */
import type { Audit } from "../types.ts";
import { auditHtmlDelivery } from "./html-delivery.ts";

export const PERFORMANCE_AUDITS: readonly Audit[] = [auditHtmlDelivery];
