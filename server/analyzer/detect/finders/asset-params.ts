/**
 * Version parameters other than `ver=` on a plugin's own files: `?v=1.2.3`, `?version=1.2.3`,
 * `?plugin_version=1.2.3` (`ver=`, which WordPress adds itself, is read in plugins.ts). The
 * file sits in the plugin's folder, so the slug is the folder; the value must be a strict
 * version (a timestamp or a hash is a cache buster) and not this site's WordPress version
 * (what a plugin gets when it enqueues without a version of its own).
 */
import { siteText } from "../../untrusted-text.ts";
import { strictVersion } from "./name-keys.ts";
import type { Observation } from "./observation.ts";

const PARAMETERS = ["v", "version", "plugin_version", "pv"];

export function assetParamObservations(
  fromPage: ReadonlyMap<string, readonly string[]>,
  coreVersion: string | null,
): Observation[] {
  const found: Observation[] = [];
  for (const [slug, urls] of fromPage) {
    const paths = new Set<string>();
    for (const raw of urls) {
      const url = new URL(raw);
      if (paths.has(url.pathname)) continue;
      for (const parameter of PARAMETERS) {
        const version = strictVersion(url.searchParams.get(parameter) ?? undefined);
        if (!version || version === coreVersion) continue;
        paths.add(url.pathname);
        found.push({
          source: "asset_param",
          value: siteText(`${url.pathname}?${parameter}=${url.searchParams.get(parameter)}`, 200),
          url: siteText(raw, 500),
          seen: `asset:${url.pathname}`,
          version,
          subject: { kind: "slug", slug },
        });
        break;
      }
    }
  }
  return found;
}
