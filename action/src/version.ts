/**
 * The version of the Action and the CLI, from action/package.json — the CLI's package, whose
 * `npm pack` tarball carries the same number in its name (wpreport-cli-<version>.tgz). The
 * service has its own versions (package.json, server/platform/version.ts); this one follows the
 * Action's release tags (v1 → 1.x.y).
 */
import manifest from "../package.json" with { type: "json" };

export const VERSION: string = manifest.version;
