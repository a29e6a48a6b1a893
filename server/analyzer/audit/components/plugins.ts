/** Plugins: behind their latest release? Versions with known vulnerabilities? */
import type { Audit } from "../types.ts";
import { assessComponents } from "./assess.ts";

export const auditPlugins: Audit = ({ plugins, intel }) =>
  assessComponents(
    {
      outdated: "components.plugins_outdated",
      vulnerable: "components.plugins_vulnerable",
      plural: "plugins",
      type: "plugin",
    },
    plugins.map((plugin) => ({ ...plugin, name: plugin.slug })),
    "No plugins were detected.",
    intel,
  );
