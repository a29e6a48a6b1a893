/**
 * Plugin readme.txt files readable by anyone. Their "Stable tag" and changelog give the
 * exact version of each plugin, which is how scanners match sites to known vulnerabilities
 * without trying a single exploit. Only plugins whose readme was requested count.
 */
import { probeKey } from "../../probe-keys.ts";
import { makeCheck } from "../catalogue.ts";
import { notCheckedCheck, obstaclesFor } from "../obstacles.ts";
import type { Audit } from "../types.ts";

/** Evidence sources detect/plugins.ts records for a version read from readme.txt. */
const README_VERSION_SOURCES = new Set(["readme_stable_tag", "readme_version", "readme_changelog"]);

export const auditPluginReadmes: Audit = ({ plugins, probes }) => {
  const id = "components.plugin_versions_exposed";
  if (plugins.length === 0) return [makeCheck(id, "skip", "No plugins were detected.")];
  const requested = plugins.filter((plugin) => probes.answers[probeKey("plugin_readme", plugin.slug)] !== undefined);
  // A readme behind a challenge may state its version (audit/obstacles.ts).
  const obstacles = obstaclesFor(id, probes);
  if (requested.length === 0 && obstacles.length > 0) return [notCheckedCheck(id, obstacles)];
  if (requested.length === 0) {
    const failed = plugins.some((plugin) => probes.failed.has(probeKey("plugin_readme", plugin.slug)));
    return failed
      ? [makeCheck(id, "error", "The plugins' readme.txt requests got no answer (see errors).")]
      : [makeCheck(id, "skip", "No plugin readme.txt was requested (no plugin file URLs or known REST namespaces).")];
  }
  const exposing = requested.flatMap((plugin) => {
    const item = plugin.evidence.find((entry) => README_VERSION_SOURCES.has(entry.source));
    return item ? [`${plugin.slug}: ${item.value}${item.url ? ` (${item.url})` : ""}`] : [];
  });
  if (exposing.length > 0) {
    return [
      makeCheck(
        id,
        "fail",
        `The readme.txt of ${exposing.length} of ${requested.length} plugin(s) is public and states the installed version.`,
        exposing,
      ),
    ];
  }
  if (obstacles.length > 0) return [notCheckedCheck(id, obstacles)];
  return [
    makeCheck(id, "pass", `None of the ${requested.length} plugin readme.txt file(s) requested states a version.`),
  ];
};
