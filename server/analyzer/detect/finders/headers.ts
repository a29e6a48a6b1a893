/**
 * Response headers named after a plugin (credit headers such as X-Powered-By are read by
 * credits.ts):
 *
 *   X-Foo-Bar-Version: 1.2.3        a version header → foo-bar 1.2.3
 *   X-Foo-Cache: HIT                a cache header → foo-cache or foo, when that is a known plugin
 *
 * Headers of servers, proxies, CDNs and hosts (X-AspNet-Version, X-Varnish-Cache, X-Kinsta-Cache,
 * X-Proxy-Cache…) name no plugin and are never read. A cache header alone never makes up a
 * slug: it counts only when the name is a known plugin's.
 */
import type { HttpArtifact } from "../../artifacts.ts";
import { siteText, siteUrl } from "../../untrusted-text.ts";
import { strictVersion } from "./name-keys.ts";
import type { Observation } from "./observation.ts";

/** Infrastructure that sends "<name>-version" or "<name>-cache" headers of its own. */
const INFRASTRUCTURE = new Set([
  "aspnet",
  "aspnetmvc",
  "runtime",
  "api",
  "app",
  "build",
  "powered",
  "server",
  "content",
  "amz",
  "ms",
  "drupal",
  "joomla",
  "magento",
  "shopify",
  "wp",
  "wordpress",
  "php",
  "proxy",
  "nginx",
  "fastcgi",
  "varnish",
  "srcache",
  "cdn",
  "edge",
  "cloudflare",
  "cf",
  "akamai",
  "fastly",
  "sucuri",
  "kinsta",
  "wpe",
  "wpengine",
  "pantheon",
  "pagely",
  "flywheel",
  "siteground",
  "sg",
  "hostinger",
  "ezoic",
  "bunny",
  "keycdn",
  "stackpath",
  "backend",
  "upstream",
  "page",
  "full-page",
  "ac",
  "hcdn",
  "proxy-cache",
  "nitro",
  "redis",
  "memcached",
  "object",
  "static",
  "micro",
  "apache",
  "litespeed",
  "lsadc",
  "envoy",
  "served",
  "cache",
]);

export function headerObservations(response: HttpArtifact): Observation[] {
  const found: Observation[] = [];
  for (const [name, raw] of Object.entries(response.headers).slice(0, 100)) {
    if (name.length > 80) continue;
    const value = raw.slice(0, 200);
    const seen = `header:${name}`;
    const evidence = siteText(`${name}: ${value}`, 200);
    const versioned = /^x-([a-z0-9][a-z0-9_-]{1,60}?)-(?:version|ver)$/.exec(name)?.[1];
    if (versioned && !INFRASTRUCTURE.has(versioned)) {
      const version = strictVersion(value.trim().split(/[\s;,]/)[0]);
      if (version)
        found.push({
          source: "header",
          value: evidence,
          url: siteUrl(response.url),
          seen,
          version,
          subject: { kind: "identifier", candidates: [versioned], mayInfer: true, stems: false },
        });
      continue;
    }
    const cache = /^(?:x-)?([a-z0-9][a-z0-9_-]{1,60}?)-cache(?:d|-status)?$/.exec(name)?.[1];
    if (cache && !INFRASTRUCTURE.has(cache) && !INFRASTRUCTURE.has(cache.replace(/^x-/, ""))) {
      found.push({
        source: "header",
        value: evidence,
        url: siteUrl(response.url),
        seen,
        subject: { kind: "identifier", candidates: [`${cache}-cache`, cache], mayInfer: false, stems: false },
      });
    }
  }
  return found;
}
