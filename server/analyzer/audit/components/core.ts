/** WordPress core: behind the latest release? A version with known vulnerabilities? */
import type { Audit } from "../types.ts";
import { assessComponents } from "./assess.ts";

export const auditCore: Audit = ({ wordpress, intel }) =>
  assessComponents(
    {
      outdated: "components.core_outdated",
      vulnerable: "components.core_vulnerable",
      plural: "WordPress installs",
      type: "core",
    },
    wordpress.detected ? [{ ...wordpress, name: "WordPress", slug: "WordPress" }] : [],
    "The site does not look like WordPress.",
    intel,
  );
