/** Is there a full-page cache in front of WordPress, and did this request hit it? */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/**
 * Above this TTFB (ms) an undetected cache is not given the benefit of the doubt: the
 * server is slow and a page cache is the usual cure. Same "good" bound as performance.ttfb
 * (web.dev: TTFB ≤ 0.8 s).
 */
const SLOW_TTFB_MS = 800;

export const auditPageCache: Audit = ({ hosting, plugins, performance, homepage }) => {
  const { page_cache: cache, page_cache_hit: hit } = hosting;
  // What revealed the cache and CDN (detect/hosting.ts); server software is beside the point.
  const evidence = hosting.evidence
    .filter((item) => !/^(server|x-powered-by):/i.test(item.value))
    .map((item) => item.value);
  if (cache && hit !== false) {
    const how = hit ? "and this request was a cache hit" : "(whether this request was a hit is not disclosed)";
    return [makeCheck("performance.page_cache", "pass", `The homepage is served by ${cache} ${how}.`, evidence)];
  }
  if (cache) {
    return [
      makeCheck(
        "performance.page_cache",
        "warn",
        `${cache} is in front of the site, but the homepage was not served from it: the request was a miss. A one-off miss is normal after the cache expired; if it repeats, the homepage is excluded or something (a cookie, a query string) bypasses the cache.`,
        evidence,
      ),
    ];
  }
  // A CDN that answered DYNAMIC/BYPASS passes HTML through uncached: not a page cache, but
  // worth saying, because the fix is a setting there rather than a plugin.
  const cdnStatus = homepage.headers["cf-cache-status"];
  if (cdnStatus && /^(dynamic|bypass)/i.test(cdnStatus.trim())) {
    return [
      makeCheck(
        "performance.page_cache",
        "warn",
        "Cloudflare is in front of the site but answered that the homepage is not cacheable (DYNAMIC/BYPASS): it is not set up to keep HTML (that takes APO or a Cache Rule), so WordPress builds the page for every visitor.",
        [`cf-cache-status: ${cdnStatus}`],
      ),
    ];
  }
  // No cache signal: a cache plugin may be installed without serving this page, or a
  // server-level cache may hide its headers — so the TTFB decides between warn and fail.
  const cachePlugins = plugins
    .filter((plugin) => plugin.category === "cache")
    .map((plugin) => plugin.name ?? plugin.slug);
  const installed =
    cachePlugins.length > 0
      ? ` ${cachePlugins.join(", ")} is installed, but this page did not come from its cache.`
      : "";
  const ttfb = performance.ttfb_ms;
  const pluginEvidence = cachePlugins.map((name) => `cache plugin: ${name}`);
  if (ttfb !== null && ttfb > SLOW_TTFB_MS) {
    return [
      makeCheck(
        "performance.page_cache",
        "fail",
        `No page cache was detected and the first byte took ${ttfb} ms: WordPress seems to build the homepage for every request.${installed}`,
        [...pluginEvidence, `ttfb_ms: ${ttfb}`],
      ),
    ];
  }
  return [
    makeCheck(
      "performance.page_cache",
      "warn",
      `No page cache was detected (no cache header or cache-plugin comment)${ttfb === null ? "" : `; the first byte took ${ttfb} ms`}. A server-level cache that hides its headers would not be seen.${installed}`,
      [...pluginEvidence, ...(ttfb === null ? [] : [`ttfb_ms: ${ttfb}`])],
    ),
  ];
};
