/** Security audits, in report order. */
import type { Audit } from "../types.ts";
import { auditCookies } from "./cookies.ts";
import { auditDirectoryListing } from "./directory-listing.ts";
import { auditHeaderDisclosure } from "./disclosure.ts";
import { auditExposedFiles } from "./exposed-files.ts";
import { auditHeaders } from "./headers.ts";
import { auditLogin } from "./login.ts";
import { auditMixedContent } from "./mixed-content.ts";
import { auditTransport } from "./transport.ts";
import { auditUserEnumeration } from "./user-enumeration.ts";
import { auditVersionDisclosure } from "./version-disclosure.ts";
import { auditWaf } from "./waf.ts";
import { auditXmlRpc } from "./xmlrpc.ts";

export const SECURITY_AUDITS: readonly Audit[] = [
  auditTransport,
  auditMixedContent,
  auditLogin,
  auditExposedFiles,
  auditDirectoryListing,
  auditXmlRpc,
  auditUserEnumeration,
  auditHeaders,
  auditCookies,
  auditVersionDisclosure,
  auditHeaderDisclosure,
  auditWaf,
];
