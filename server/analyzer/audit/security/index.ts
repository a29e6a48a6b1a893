/** Security audits, in report order. */
import type { Audit } from "../types.ts";
import { auditTransport } from "./transport.ts";
import { auditVersionDisclosure } from "./version-disclosure.ts";

export const SECURITY_AUDITS: readonly Audit[] = [auditTransport, auditVersionDisclosure];
