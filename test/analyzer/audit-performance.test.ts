/**
 * The performance audits on saved artifacts of the real WordPress fixtures, and on minimal
 * variants where the fixtures don't show a situation. Every status a check can produce is
 * shown at least once.
 */
import { describe, expect, test } from "bun:test";
import type { Artifacts, AssetArtifact, HomepageArtifact } from "../../server/analyzer/artifacts.ts";
import { CHECKS } from "../../server/analyzer/audit/catalogue.ts";
import { auditAssets } from "../../server/analyzer/audit/performance/assets.ts";
import { auditImages } from "../../server/analyzer/audit/performance/images.ts";
import { PERFORMANCE_AUDITS } from "../../server/analyzer/audit/performance/index.ts";
import { auditPageCache } from "../../server/analyzer/audit/performance/page-cache.ts";
import { auditPageSize } from "../../server/analyzer/audit/performance/page-size.ts";
import { auditRedirects } from "../../server/analyzer/audit/performance/redirects.ts";
import { auditRequests } from "../../server/analyzer/audit/performance/requests.ts";
import { auditWordPressExtras } from "../../server/analyzer/audit/performance/wordpress-extras.ts";
import type { Audit } from "../../server/analyzer/audit/types.ts";
import type { Check } from "../../shared/report.ts";
import { homepageOnly, loadArtifacts, variant, WP_FIXTURE, WP_FIXTURE_TT3 } from "./artifacts.ts";
import { factsOf, statusOf } from "./facts.ts";

const tt1 = loadArtifacts(WP_FIXTURE);
const tt3 = loadArtifacts(WP_FIXTURE_TT3);

/** The check `id` that `audit` reports for `artifacts` (fails the test when absent). */
function check(audit: Audit, artifacts: Artifacts, id: string): Check {
  const found = audit(factsOf(artifacts)).find((item) => item.id === id);
  if (!found) throw new Error(`${id} not reported`);
  return found;
}
const status = (audit: Audit, artifacts: Artifacts, id: string) => statusOf(audit(factsOf(artifacts)), id);

/** A deep copy with homepage fields replaced. */
function withHomepage(base: Artifacts, patch: Partial<HomepageArtifact>): Artifacts {
  const copy = structuredClone(base);
  Object.assign(copy.homepage, patch);
  return copy;
}

/** A deep copy with every sampled asset changed by `change`. */
function withAssets(base: Artifacts, change: (asset: AssetArtifact) => void): Artifacts {
  const copy = structuredClone(base);
  for (const asset of copy.assets) change(asset);
  return copy;
}

/** The fixture's homepage with `html` added at the end of <head> / <body>. */
function withMarkup(base: Artifacts, head: string, body = ""): Artifacts {
  return variant(base, {
    body: base.homepage.body.replace("</head>", `${head}</head>`).replace("</body>", `${body}</body>`),
  });
}

/** A minimal non-WordPress page. */
const plainPage = (head: string, body: string) =>
  homepageOnly(
    "https://example.com/",
    `<!doctype html><html lang="en"><head><title>Example site home</title>${head}</head><body>${body}</body></html>`,
  );

describe("performance audits: registration", () => {
  test("every performance check runs once on the fixture, in catalogue order, with catalogue severity", () => {
    const facts = factsOf(tt1);
    const checks = PERFORMANCE_AUDITS.flatMap((audit) => audit(facts));
    const ids = Object.keys(CHECKS).filter((id) => id.startsWith("performance."));
    expect(checks.map((item) => item.id)).toEqual(ids);
    for (const item of checks) {
      expect(item.category).toBe("performance");
      expect(item.evidence.length).toBeLessThanOrEqual(10);
      expect(item.message.length).toBeGreaterThan(10);
    }
  });

  test("the audits are deterministic", () => {
    const run = () => PERFORMANCE_AUDITS.flatMap((audit) => audit(factsOf(structuredClone(tt3))));
    expect(run()).toEqual(run());
  });
});

describe("performance.redirects", () => {
  const hop = (url: string) => ({ url, status: 301 });
  test("the fixture answers directly → pass", () => {
    expect(status(auditRedirects, tt1, "performance.redirects")).toBe("pass");
  });
  test("one redirect from the URL as given → pass", () => {
    const once = withHomepage(tt1, { redirects: [hop("http://127.0.0.1:8088")] });
    expect(status(auditRedirects, once, "performance.redirects")).toBe("pass");
  });
  test("a chain of two → fail, listing each hop and the final page", () => {
    const chain = withHomepage(tt1, {
      redirects: [hop("http://127.0.0.1:8088"), hop("https://127.0.0.1:8088/")],
    });
    const result = check(auditRedirects, chain, "performance.redirects");
    expect(result.status).toBe("fail");
    expect(result.evidence).toEqual([
      "301 http://127.0.0.1:8088",
      "301 https://127.0.0.1:8088/",
      "200 http://127.0.0.1:8088/",
    ]);
  });
});

describe("performance.page_cache", () => {
  const id = "performance.page_cache";
  test("the fixture has no cache and a fast (local) TTFB → warn", () => {
    expect(status(auditPageCache, tt1, id)).toBe("warn");
  });
  test("no cache and a slow TTFB → fail", () => {
    expect(status(auditPageCache, variant(tt1, { ttfb: 2500 }), id)).toBe("fail");
  });
  test("a cache hit → pass, with the header as evidence", () => {
    const hit = variant(tt1, { headers: { ...tt1.homepage.headers, "x-litespeed-cache": "hit" } });
    const result = check(auditPageCache, hit, id);
    expect(result.status).toBe("pass");
    expect(result.evidence).toContain("x-litespeed-cache: hit");
  });
  test("a cache that doesn't tell hit or miss → pass", () => {
    const wpe = variant(tt1, { headers: { ...tt1.homepage.headers, "wpe-backend": "apache" } });
    expect(status(auditPageCache, wpe, id)).toBe("pass");
  });
  test("a cache plugin's comment → pass", () => {
    const cached = variant(tt1, {
      body: `${tt1.homepage.body}<!-- Cached page generated by WP-Super-Cache on 2026-11-22 00:01:59 -->`,
    });
    expect(check(auditPageCache, cached, id).message).toContain("WP Super Cache");
    expect(status(auditPageCache, cached, id)).toBe("pass");
  });
  test("a cache that missed → warn", () => {
    const miss = variant(tt1, {
      headers: { ...tt1.homepage.headers, "cf-ray": "8a1b2c3d4e5f-AMS", "cf-cache-status": "MISS" },
    });
    expect(status(auditPageCache, miss, id)).toBe("warn");
    const dynamic = variant(tt1, {
      headers: { ...tt1.homepage.headers, "cf-ray": "8a1b2c3d4e5f-AMS", "cf-cache-status": "DYNAMIC" },
    });
    const result = check(auditPageCache, dynamic, id);
    expect(result.status).toBe("warn");
    expect(result.message).toContain("not set up to keep HTML");
    expect(result.evidence).toContain("cf-cache-status: DYNAMIC");
  });
  test("the Bedrock-like fixture: Cache Enabler's closing comment and X-Cache-Handler prove it, a hit → pass", () => {
    const bedrock = loadArtifacts("wp-6.1.9-bedrock");
    const result = check(auditPageCache, bedrock, id);
    expect(result.status).toBe("pass");
    expect(result.message).toBe("The homepage is served by Cache Enabler and this request was a cache hit.");
    expect(result.evidence[0]).toBe("x-cache-handler: cache-enabler-engine");
    expect(result.evidence[1]).toMatch(/^Cache Enabler by KeyCDN @ .+ GMT \(http-index\.html\)$/);
  });
  test("any X-…-Cache or X-Cache-Status header with a cache status proves a cache; BYPASS or DYNAMIC does not", () => {
    const withHeader = (name: string, value: string) =>
      variant(tt1, { headers: { ...tt1.homepage.headers, [name]: value } });
    expect(check(auditPageCache, withHeader("x-nitro-cache", "HIT"), id)).toMatchObject({
      status: "pass",
      message: "The homepage is served by HTTP cache (x-nitro-cache) and this request was a cache hit.",
      evidence: ["x-nitro-cache: HIT"],
    });
    expect(status(auditPageCache, withHeader("x-hcdn-cache-status", "HIT"), id)).toBe("pass");
    expect(status(auditPageCache, withHeader("x-cache-status", "STALE"), id)).toBe("pass");
    expect(check(auditPageCache, withHeader("x-cache-status", "MISS"), id).message).toContain("the request was a miss");
    for (const value of ["BYPASS", "DYNAMIC", "none"]) {
      expect(check(auditPageCache, withHeader("x-cache-status", value), id).message).toContain(
        "No page cache was detected",
      );
    }
    // Not a cache's status header.
    expect(status(auditPageCache, withHeader("x-cache-tags", "HIT"), id)).toBe("warn");
  });
  test("cache comments in a cache's own words, by any plugin: the name is what follows", () => {
    const signed = (comment: string) => variant(tt1, { body: `${tt1.homepage.body}\n<!-- ${comment} -->` });
    for (const [comment, name] of [
      [
        "Cached by WP-Optimize (gzip) - https://getwpo.com - Last modified: Mon, 02 Jun 2025 10:00:00 GMT",
        "WP-Optimize",
      ],
      ["Page cached by LiteSpeed Cache 5.7 on 2024-01-01 10:00:00", "LiteSpeed Cache"],
      ["Performance optimized by Swift Performance. Learn more: https://swiftperformance.io", "Swift Performance"],
      ["Cache served by Powered Cache - Last modified: Mon, 02 Jun 2025", "Powered Cache"],
      ["Cached page generated by Simple Cache on 2025-06-02", "Simple Cache"],
      ["Breeze cache file was created in 0.1 seconds", "Breeze"],
      ["Cache Enabler by KeyCDN @ Mon, 02 Jun 2025 10:00:00 GMT (https-index.html)", "Cache Enabler"],
    ] as const) {
      const result = check(auditPageCache, signed(comment), id);
      expect([comment, result.status, result.message]).toEqual([
        comment,
        "pass",
        `The homepage is served by ${name} (whether this request was a hit is not disclosed).`,
      ]);
    }
    for (const comment of [
      "Page not cached by WP Super Cache. No closing HTML tag.",
      " #main ",
      "Powered by WordPress",
    ]) {
      expect([comment, status(auditPageCache, signed(comment), id)]).toEqual([comment, "warn"]);
    }
  });
  test("a cache plugin installed but not serving the page is named", () => {
    const installed = withMarkup(
      tt1,
      `<link rel="stylesheet" href="http://127.0.0.1:8088/wp-content/plugins/wp-super-cache/inc/x.css" />`,
    );
    const result = check(auditPageCache, variant(installed, { ttfb: 2500 }), id);
    expect(result.status).toBe("fail");
    expect(result.message).toContain("WP Super Cache is installed");
    expect(result.evidence).toContain("cache plugin: WP Super Cache");
  });
});

describe("performance.html_size and performance.dom_size", () => {
  const padded = (bytes: number) => plainPage("", `<p>${"a".repeat(bytes)}</p>`);
  test("the fixtures' homepages are small → pass", () => {
    expect(status(auditPageSize, tt1, "performance.html_size")).toBe("pass");
    expect(status(auditPageSize, tt3, "performance.html_size")).toBe("pass");
    expect(status(auditPageSize, tt1, "performance.dom_size")).toBe("pass");
    expect(check(auditPageSize, tt1, "performance.dom_size").evidence).toEqual(["elements: 187"]);
  });
  test("HTML over 150 KB warns, over 500 KB fails", () => {
    expect(status(auditPageSize, padded(200 * 1024), "performance.html_size")).toBe("warn");
    expect(status(auditPageSize, padded(600 * 1024), "performance.html_size")).toBe("fail");
  });
  test("an unknown size → skip", () => {
    const facts = factsOf(tt1);
    const checks = auditPageSize({ ...facts, performance: { ...facts.performance, html_bytes: null } });
    expect(statusOf(checks, "performance.html_size")).toBe("skip");
  });
  test("over 818 elements warns, over 1,400 fails (Lighthouse dom-size)", () => {
    expect(status(auditPageSize, plainPage("", "<p>x</p>".repeat(900)), "performance.dom_size")).toBe("warn");
    expect(status(auditPageSize, plainPage("", "<p>x</p>".repeat(1500)), "performance.dom_size")).toBe("fail");
  });
});

describe("performance.render_blocking_scripts", () => {
  const id = "performance.render_blocking_scripts";
  test("twentytwentyone blocks only with stylesheets → pass", () => {
    const result = check(auditRequests, tt1, id);
    expect(result.status).toBe("pass");
    expect(result.message).toContain("3 render-blocking stylesheets");
  });
  test("twentytwentythree's two navigation scripts in <head> → warn", () => {
    const result = check(auditRequests, tt3, id);
    expect(result.status).toBe("warn");
    expect(result.evidence).toEqual([
      "http://localhost:8090/wp-includes/blocks/navigation/view.min.js?ver=c24330f635f5cb9d5e0e",
      "http://localhost:8090/wp-includes/blocks/navigation/view-modal.min.js?ver=45f05135277abf0b0408",
    ]);
  });
  test("three blocking scripts → fail", () => {
    const three = withMarkup(tt3, `<script src='http://localhost:8090/wp-includes/js/jquery/jquery.min.js'></script>`);
    expect(status(auditRequests, three, id)).toBe("fail");
  });
  test("nothing blocking at all → pass", () => {
    expect(check(auditRequests, plainPage("", ""), id).message).toBe("Nothing in <head> blocks rendering.");
  });
  test("deferred, async, module and delayed (WP Rocket, LiteSpeed) scripts don't block", () => {
    const page = plainPage(
      [
        `<script src="/a.js" defer></script>`,
        `<script src="/b.js" async></script>`,
        `<script src="/c.js" type="module"></script>`,
        `<script src="/d.js" type="rocketlazyloadscript"></script>`,
        `<script src="/e.js" type="litespeed/javascript"></script>`,
        `<script src="http://["></script>`,
      ].join(""),
      "",
    );
    expect(factsOf(page).performance.render_blocking).toEqual([]);
    expect(status(auditRequests, page, id)).toBe("pass");
    const blocking = plainPage(`<script src="/f.js" type="text/javascript; charset=utf-8"></script>`, "");
    expect(status(auditRequests, blocking, id)).toBe("warn");
  });
});

describe("performance.script_count, stylesheet_count, third_party_hosts", () => {
  const scripts = (n: number) =>
    Array.from({ length: n }, (_, i) => `<script src="/wp-content/plugins/plugin-${i % 3}/s${i}.js" defer></script>`);
  const styles = (n: number) =>
    Array.from({ length: n }, (_, i) => `<link rel="stylesheet" href="/wp-content/plugins/p/s${i}.css" media="all">`);
  const hosts = (n: number) =>
    Array.from({ length: n }, (_, i) => `<script src="https://cdn${i}.example.net/w.js" async></script>`);

  test("the fixtures load few scripts and stylesheets from their own host → pass", () => {
    for (const fixture of [tt1, tt3]) {
      expect(status(auditRequests, fixture, "performance.script_count")).toBe("pass");
      expect(status(auditRequests, fixture, "performance.stylesheet_count")).toBe("pass");
      expect(status(auditRequests, fixture, "performance.third_party_hosts")).toBe("pass");
    }
    expect(check(auditRequests, tt1, "performance.stylesheet_count").evidence).toEqual([
      "theme twentytwentyone: 2",
      "WordPress core: 2",
    ]);
  });
  test("scripts: over 20 warns, over 40 fails; evidence counts them by plugin", () => {
    expect(status(auditRequests, withMarkup(tt1, scripts(21).join("")), "performance.script_count")).toBe("warn");
    const many = check(auditRequests, withMarkup(tt1, scripts(41).join("")), "performance.script_count");
    expect(many.status).toBe("fail");
    expect(many.evidence.slice(0, 3)).toEqual(["plugin plugin-0: 14", "plugin plugin-1: 14", "plugin plugin-2: 13"]);
  });
  test("stylesheets: over 10 warns, over 20 fails", () => {
    expect(status(auditRequests, withMarkup(tt1, styles(8).join("")), "performance.stylesheet_count")).toBe("warn");
    expect(status(auditRequests, withMarkup(tt1, styles(18).join("")), "performance.stylesheet_count")).toBe("fail");
  });
  test("third-party hosts: over 10 warns, over 20 fails", () => {
    expect(status(auditRequests, plainPage(hosts(11).join(""), ""), "performance.third_party_hosts")).toBe("warn");
    const many = check(auditRequests, plainPage(hosts(21).join(""), ""), "performance.third_party_hosts");
    expect(many.status).toBe("fail");
    expect(many.evidence).toHaveLength(10);
  });
});

describe("performance.asset_compression, asset_caching, large_assets", () => {
  const none = plainPage("", "<p>no assets</p>");
  test("the fixture's sampled CSS is gzip-compressed → pass (assets under 1400 bytes are not judged)", () => {
    const result = check(auditAssets, tt1, "performance.asset_compression");
    expect(result.status).toBe("pass");
    expect(result.evidence).toHaveLength(3);
  });
  test("an uncompressed stylesheet → fail", () => {
    const plain = withAssets(tt1, (asset) => {
      if (asset.url.endsWith("style.css?ver=1.7")) delete asset.headers["content-encoding"];
    });
    const result = check(auditAssets, plain, "performance.asset_compression");
    expect(result.status).toBe("fail");
    expect(result.evidence).toEqual([
      "http://127.0.0.1:8088/wp-content/themes/twentytwentyone/style.css?ver=1.7 (153 KB)",
    ]);
  });
  test("no asset sample → the three checks skip", () => {
    for (const id of ["performance.asset_compression", "performance.asset_caching", "performance.large_assets"]) {
      expect(status(auditAssets, none, id)).toBe("skip");
    }
  });
  test("the fixture's nginx sends no Cache-Control on static files → fail", () => {
    expect(status(auditAssets, tt1, "performance.asset_caching")).toBe("fail");
    expect(status(auditAssets, tt3, "performance.asset_caching")).toBe("fail");
  });
  test("a year of max-age → pass; some short → warn", () => {
    const year = withAssets(tt1, (asset) => {
      asset.headers["cache-control"] = "public, max-age=31536000";
    });
    expect(status(auditAssets, year, "performance.asset_caching")).toBe("pass");
    const mixed = withAssets(tt1, (asset) => {
      asset.headers["cache-control"] = asset.type === "style" ? "max-age=31536000" : "max-age=3600";
    });
    const result = check(auditAssets, mixed, "performance.asset_caching");
    expect(result.status).toBe("warn");
    expect(result.evidence).toEqual([
      "max-age=3600: http://127.0.0.1:8088/wp-content/themes/twentytwentyone/assets/js/responsive-embeds.js?ver=1.7",
    ]);
  });
  test("s-maxage alone is for shared caches, not browsers; explicit no-cache is left out", () => {
    const shared = withAssets(tt1, (asset) => {
      asset.headers["cache-control"] = "public, s-maxage=31536000";
    });
    expect(status(auditAssets, shared, "performance.asset_caching")).toBe("fail");
    const deliberate = withAssets(tt1, (asset) => {
      asset.headers["cache-control"] = "no-cache";
    });
    expect(status(auditAssets, deliberate, "performance.asset_caching")).toBe("skip");
  });
  test("the fixture's assets are small (theme CSS 153 KB) → pass", () => {
    expect(status(auditAssets, tt1, "performance.large_assets")).toBe("pass");
  });
  test("a stylesheet over 200 KB warns; a script over twice 300 KB fails", () => {
    const big = withAssets(tt1, (asset) => {
      if (asset.url.endsWith("style.css?ver=1.7")) asset.bytes = 250 * 1024;
    });
    expect(status(auditAssets, big, "performance.large_assets")).toBe("warn");
    const huge = withAssets(big, (asset) => {
      if (asset.type === "script") asset.bytes = 700 * 1024;
    });
    const result = check(auditAssets, huge, "performance.large_assets");
    expect(result.status).toBe("fail");
    expect(result.evidence[0]).toBe(
      "script 700 KB (limit 300 KB): http://127.0.0.1:8088/wp-content/themes/twentytwentyone/assets/js/responsive-embeds.js?ver=1.7",
    );
  });
});

describe("performance.image_lazy_loading and image_dimensions", () => {
  const img = (attrs: string) => `<img src="/wp-content/uploads/p.jpg" ${attrs}>`;
  test("the fixtures' homepages have no images → skip", () => {
    expect(status(auditImages, tt1, "performance.image_lazy_loading")).toBe("skip");
    expect(status(auditImages, tt1, "performance.image_dimensions")).toBe("skip");
  });
  test("four images, none lazy → warn; some lazy → pass; three → skip", () => {
    const eager = plainPage("", img(`width="10" height="10"`).repeat(4));
    expect(status(auditImages, eager, "performance.image_lazy_loading")).toBe("warn");
    const lazy = plainPage("", img(`width="10" height="10"`) + img(`loading="lazy" width="10" height="10"`).repeat(3));
    expect(status(auditImages, lazy, "performance.image_lazy_loading")).toBe("pass");
    expect(status(auditImages, plainPage("", img("").repeat(3)), "performance.image_lazy_loading")).toBe("skip");
  });
  test("all sized → pass; an unsized image → warn, naming it", () => {
    expect(status(auditImages, plainPage("", img(`width="10" height="10"`)), "performance.image_dimensions")).toBe(
      "pass",
    );
    const unsized = plainPage(
      "",
      `${img(`width="10" height="10"`)}<img src="data:image/gif;base64,R0lGOD" data-src="/wp-content/uploads/lazy.jpg">`,
    );
    const result = check(auditImages, unsized, "performance.image_dimensions");
    expect(result.status).toBe("warn");
    expect(result.evidence).toEqual(["https://example.com/wp-content/uploads/lazy.jpg"]);
  });
});

describe("performance.emoji_script and jquery_migrate", () => {
  test("both fixtures print WordPress 6.1's emoji loader → warn, naming the script", () => {
    const result = check(auditWordPressExtras, tt1, "performance.emoji_script");
    expect(result.status).toBe("warn");
    expect(result.evidence).toEqual([
      "emoji loader for http://127.0.0.1:8088/wp-includes/js/wp-emoji-release.min.js?ver=6.1.9",
    ]);
    expect(status(auditWordPressExtras, tt3, "performance.emoji_script")).toBe("warn");
  });
  test("the loader removed → pass; WordPress 6.9's JSON settings are recognised too", () => {
    const removed = variant(tt1, {
      body: tt1.homepage.body.replace(/<script>\s*window\._wpemojiSettings[\s\S]*?<\/script>/, ""),
    });
    expect(status(auditWordPressExtras, removed, "performance.emoji_script")).toBe("pass");
    const modern = withMarkup(
      removed,
      "",
      `<script id="wp-emoji-settings" type="application/json">{"baseUrl":"https://s.w.org/images/core/emoji/17.0.2/72x72/","source":{"concatemoji":"http://127.0.0.1:8088/wp-includes/js/wp-emoji-release.min.js?ver=6.9"}}</script>`,
    );
    expect(status(auditWordPressExtras, modern, "performance.emoji_script")).toBe("warn");
  });
  test("the fixtures load no jQuery → skip", () => {
    expect(status(auditWordPressExtras, tt1, "performance.jquery_migrate")).toBe("skip");
  });
  test("WordPress's real jquery + jquery-migrate tags (from the fixture's login page) → warn; without migrate → pass", () => {
    const login = tt1.probes.login?.body ?? "";
    const tags =
      /<script src='[^']*jquery\.min\.js[^']*' id='jquery-core-js'><\/script>\s*<script src='[^']*jquery-migrate\.min\.js[^']*' id='jquery-migrate-js'><\/script>/.exec(
        login,
      )?.[0];
    expect(tags).toBeDefined();
    const withMigrate = withMarkup(tt1, "", tags ?? "");
    const result = check(auditWordPressExtras, withMigrate, "performance.jquery_migrate");
    expect(result.status).toBe("warn");
    expect(result.evidence).toEqual(["http://127.0.0.1:8088/wp-includes/js/jquery/jquery-migrate.min.js?ver=3.3.2"]);
    const jqueryOnly = withMarkup(tt1, "", (tags ?? "").replace(/<script[^>]*jquery-migrate[^>]*><\/script>/, ""));
    expect(status(auditWordPressExtras, jqueryOnly, "performance.jquery_migrate")).toBe("pass");
  });
  test("not WordPress → both skip", () => {
    const page = plainPage("<script>window._wpemojiSettings = {};</script>", "");
    expect(status(auditWordPressExtras, page, "performance.emoji_script")).toBe("skip");
    expect(status(auditWordPressExtras, page, "performance.jquery_migrate")).toBe("skip");
  });
});
