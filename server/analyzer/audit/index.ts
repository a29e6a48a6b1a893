/** Every audit, in report order. Adding an audit = one module + one line here. */
import type { Check } from "../../../shared/report.ts";
import { auditHtmlDelivery } from "./html-delivery.ts";
import { auditTransport } from "./transport.ts";
import type { Audit, AuditInput } from "./types.ts";
import { auditVersionDisclosure } from "./version-disclosure.ts";

export const AUDITS: readonly Audit[] = [auditTransport, auditVersionDisclosure, auditHtmlDelivery];

export function runAudits(input: AuditInput): Check[] {
  return AUDITS.flatMap((audit) => audit(input));
}
