/**
 * The SEO audits on saved artifacts of the real WordPress fixtures, and on minimal variants
 * where the fixtures don't show a situation. Every status a check can produce is shown at
 * least once.
 */
import { describe, expect, test } from "bun:test";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { CHECKS } from "../../server/analyzer/audit/catalogue.ts";
import { auditCrawling } from "../../server/analyzer/audit/seo/crawling.ts";
import { auditHreflang } from "../../server/analyzer/audit/seo/hreflang.ts";
import { SEO_AUDITS } from "../../server/analyzer/audit/seo/index.ts";
import { auditIndexing } from "../../server/analyzer/audit/seo/indexing.ts";
import { hreflangProblem, langProblem } from "../../server/analyzer/audit/seo/language.ts";
import { auditMetaTags } from "../../server/analyzer/audit/seo/meta-tags.ts";
import { auditPageStructure } from "../../server/analyzer/audit/seo/page-structure.ts";
import { auditSeoPlugin } from "../../server/analyzer/audit/seo/seo-plugin.ts";
import { auditSocial } from "../../server/analyzer/audit/seo/social.ts";
import { auditStructuredData } from "../../server/analyzer/audit/seo/structured-data.ts";
import type { Audit } from "../../server/analyzer/audit/types.ts";
import type { Check } from "../../shared/report.ts";
import { answer, homepageOnly, loadArtifacts, variant, WP_FIXTURE, WP_FIXTURE_TT3 } from "./artifacts.ts";
import { factsOf, statusOf } from "./facts.ts";

const tt1 = loadArtifacts(WP_FIXTURE);
const tt3 = loadArtifacts(WP_FIXTURE_TT3);
const HOME = "http://127.0.0.1:8088/";
const ROBOTS = `${HOME}robots.txt`;
const WP_SITEMAP = `sitemap:${HOME}wp-sitemap.xml`;
const YOAST_SITEMAP = `sitemap:${HOME}sitemap_index.xml`;

function check(audit: Audit, artifacts: Artifacts, id: string): Check {
  const found = audit(factsOf(artifacts)).find((item) => item.id === id);
  if (!found) throw new Error(`${id} not reported`);
  return found;
}
const status = (audit: Audit, artifacts: Artifacts, id: string) => statusOf(audit(factsOf(artifacts)), id);

/** The fixture's homepage with `head` added at the end of <head> (and `body` at the end of <body>). */
function withMarkup(base: Artifacts, head: string, body = ""): Artifacts {
  return variant(base, {
    body: base.homepage.body.replace("</head>", `${head}</head>`).replace("</body>", `${body}</body>`),
  });
}

/** The fixture's homepage with `pattern` replaced. */
function edited(base: Artifacts, pattern: RegExp | string, replacement: string): Artifacts {
  const body = base.homepage.body.replace(pattern, replacement);
  expect(body).not.toBe(base.homepage.body);
  return variant(base, { body });
}

/** What Yoast SEO 21 prints in <head> for a blog homepage. */
const YOAST_HEAD = `
<!-- This site is optimized with the Yoast SEO plugin v21.5 - https://yoast.com/wordpress/plugins/seo/ -->
<meta name="description" content="Fixture Blog publishes short posts about WordPress, page speed and search audits, written for the wpreport tests." />
<link rel="canonical" href="${HOME}" />
<meta property="og:locale" content="en_US" />
<meta property="og:type" content="website" />
<meta property="og:title" content="Fixture Blog" />
<meta property="og:url" content="${HOME}" />
<meta property="og:site_name" content="Fixture Blog" />
<meta property="og:image" content="${HOME}wp-content/uploads/2026/11/cover.jpg" />
<meta name="twitter:card" content="summary_large_image" />
<script type="application/ld+json" class="yoast-schema-graph">{"@context":"https://schema.org","@graph":[{"@type":"CollectionPage","@id":"${HOME}","url":"${HOME}","name":"Fixture Blog"},{"@type":"WebSite","@id":"${HOME}#website","url":"${HOME}","name":"Fixture Blog"}]}</script>
<!-- / Yoast SEO plugin. -->
`;
const yoast = withMarkup(tt1, YOAST_HEAD);

describe("seo audits: registration", () => {
  test("every SEO check runs once on the fixture, in catalogue order", () => {
    const facts = factsOf(tt1);
    const checks = SEO_AUDITS.flatMap((audit) => audit(facts));
    expect(checks.map((item) => item.id)).toEqual(Object.keys(CHECKS).filter((id) => id.startsWith("seo.")));
    for (const item of checks) {
      expect(item.category).toBe("seo");
      expect(item.evidence.length).toBeLessThanOrEqual(10);
    }
  });

  test("the audits are deterministic", () => {
    const run = () => SEO_AUDITS.flatMap((audit) => audit(factsOf(structuredClone(yoast))));
    expect(run()).toEqual(run());
  });
});

describe("seo.noindex", () => {
  test("the fixture's robots meta only sets max-image-preview → pass", () => {
    const result = check(auditIndexing, tt1, "seo.noindex");
    expect(result.status).toBe("pass");
    expect(result.evidence).toEqual(["meta robots: max-image-preview:large"]);
  });
  test("“Discourage search engines” (WordPress prints noindex, nofollow) → fail", () => {
    const discouraged = edited(
      tt1,
      "<meta name='robots' content='max-image-preview:large' />",
      "<meta name='robots' content='noindex, nofollow' />",
    );
    expect(status(auditIndexing, discouraged, "seo.noindex")).toBe("fail");
  });
  test("an X-Robots-Tag header or the `none` directive → fail", () => {
    const header = variant(tt1, { headers: { ...tt1.homepage.headers, "x-robots-tag": "noindex" } });
    expect(check(auditIndexing, header, "seo.noindex").evidence).toContain("x-robots-tag: noindex");
    expect(status(auditIndexing, header, "seo.noindex")).toBe("fail");
    const none = edited(tt1, "content='max-image-preview:large'", "content='none'");
    expect(status(auditIndexing, none, "seo.noindex")).toBe("fail");
  });
});

describe("seo.canonical and seo.canonical_target", () => {
  test("WordPress core prints no canonical on the blog homepage → warn, target skipped", () => {
    expect(status(auditIndexing, tt1, "seo.canonical")).toBe("warn");
    expect(status(auditIndexing, tt1, "seo.canonical_target")).toBe("skip");
  });
  test("a canonical to the homepage itself → both pass", () => {
    expect(status(auditIndexing, yoast, "seo.canonical")).toBe("pass");
    expect(status(auditIndexing, yoast, "seo.canonical_target")).toBe("pass");
    const noSlash = withMarkup(tt1, `<link rel="canonical" href="http://127.0.0.1:8088" />`);
    expect(status(auditIndexing, noSlash, "seo.canonical_target")).toBe("pass");
  });
  test("a canonical to another site (a staging domain left after a migration) → fail", () => {
    const staging = withMarkup(tt1, `<link rel="canonical" href="https://staging.example.net/" />`);
    const result = check(auditIndexing, staging, "seo.canonical_target");
    expect(result.status).toBe("fail");
    expect(result.message).toContain("staging.example.net");
  });
  test("a canonical to another page → fail; to another scheme of this page → warn", () => {
    const page = withMarkup(tt1, `<link rel="canonical" href="${HOME}home/" />`);
    expect(status(auditIndexing, page, "seo.canonical_target")).toBe("fail");
    const https = withMarkup(tt1, `<link rel="canonical" href="https://127.0.0.1:8088/" />`);
    expect(status(auditIndexing, https, "seo.canonical_target")).toBe("warn");
  });
  test("a canonical that isn't an http(s) URL: the facts drop it (warn); given one anyway → fail", () => {
    const ftp = withMarkup(tt1, `<link rel="canonical" href="ftp://127.0.0.1/" />`);
    expect(status(auditIndexing, ftp, "seo.canonical")).toBe("warn");
    const facts = factsOf(withMarkup(tt1, `<link rel="canonical" href="${HOME}" />`));
    const checks = auditIndexing({ ...facts, seo: { ...facts.seo, canonical: "ftp://127.0.0.1/" } });
    expect(statusOf(checks, "seo.canonical_target")).toBe("fail");
  });
  test("two conflicting canonicals → fail; one only in <body> → warn", () => {
    const conflict = withMarkup(yoast, `<link rel="canonical" href="${HOME}?page_id=2" />`);
    const result = check(auditIndexing, conflict, "seo.canonical_target");
    expect(result.status).toBe("fail");
    expect(result.evidence).toHaveLength(2);
    const inBody = withMarkup(tt1, "", `<link rel="canonical" href="${HOME}" />`);
    expect(status(auditIndexing, inBody, "seo.canonical")).toBe("pass");
    expect(status(auditIndexing, inBody, "seo.canonical_target")).toBe("warn");
  });
});

describe("seo.robots_txt and seo.robots_txt_blocks_all", () => {
  const robots = (status: number, body: string, type = "text/plain") =>
    variant(tt1, { probes: { robots: answer(ROBOTS, status, body, { "content-type": type }) } });
  test("the fixture serves WordPress's virtual robots.txt → both pass", () => {
    expect(status(auditCrawling, tt1, "seo.robots_txt")).toBe("pass");
    expect(status(auditCrawling, tt1, "seo.robots_txt_blocks_all")).toBe("pass");
  });
  test("Disallow: / (WordPress with “Discourage search engines”) → blocks_all fails", () => {
    const blocked = robots(200, "User-agent: *\nDisallow: /\n");
    expect(status(auditCrawling, blocked, "seo.robots_txt")).toBe("pass");
    expect(status(auditCrawling, blocked, "seo.robots_txt_blocks_all")).toBe("fail");
  });
  test("404 or an HTML page → robots_txt warns, nothing is blocked", () => {
    for (const missing of [robots(404, "Not Found"), robots(200, "<!doctype html><html></html>", "text/html")]) {
      expect(status(auditCrawling, missing, "seo.robots_txt")).toBe("warn");
      expect(status(auditCrawling, missing, "seo.robots_txt_blocks_all")).toBe("pass");
    }
  });
  test("a 503 or 429 robots.txt stops Google crawling → both fail", () => {
    for (const code of [503, 429]) {
      expect(status(auditCrawling, robots(code, "busy"), "seo.robots_txt")).toBe("fail");
      expect(status(auditCrawling, robots(code, "busy"), "seo.robots_txt_blocks_all")).toBe("fail");
    }
  });
  test("robots.txt not fetched at all → error", () => {
    const failed = variant(tt1, { probes: { robots: null } });
    expect(status(auditCrawling, failed, "seo.robots_txt")).toBe("error");
    expect(status(auditCrawling, failed, "seo.robots_txt_blocks_all")).toBe("error");
  });
});

describe("seo.sitemap and seo.sitemap_in_robots", () => {
  const notFound = answer(`${HOME}wp-sitemap.xml`, 404, "<!doctype html><html><title>Page not found</title></html>");
  test("the fixture's wp-sitemap.xml (4 sub-sitemaps), named in robots.txt → both pass", () => {
    const result = check(auditCrawling, tt1, "seo.sitemap");
    expect(result.status).toBe("pass");
    expect(result.evidence).toEqual(["http://127.0.0.1:8088/wp-sitemap.xml (4 entries)"]);
    expect(status(auditCrawling, tt1, "seo.sitemap_in_robots")).toBe("pass");
  });
  test("no sitemap anywhere → sitemap warns, and robots.txt names a broken one → fail", () => {
    const none = variant(tt1, { probes: { [WP_SITEMAP]: notFound } });
    expect(status(auditCrawling, none, "seo.sitemap")).toBe("warn");
    const result = check(auditCrawling, none, "seo.sitemap_in_robots");
    expect(result.status).toBe("fail");
    expect(result.evidence).toEqual(["http://127.0.0.1:8088/wp-sitemap.xml (status 404)"]);
  });
  test("an empty sitemap → warn", () => {
    const empty = variant(tt1, {
      probes: {
        [WP_SITEMAP]: answer(
          `${HOME}wp-sitemap.xml`,
          200,
          `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></sitemapindex>`,
        ),
      },
    });
    expect(status(auditCrawling, empty, "seo.sitemap")).toBe("warn");
  });
  test("no sitemap location could be fetched → error", () => {
    const unfetched = variant(tt1, { probes: { [WP_SITEMAP]: null, [YOAST_SITEMAP]: null } });
    expect(status(auditCrawling, unfetched, "seo.sitemap")).toBe("error");
  });
  test("robots.txt without a Sitemap line → warn; without robots.txt → skip", () => {
    const bare = variant(tt1, {
      probes: {
        robots: answer(ROBOTS, 200, "User-agent: *\nDisallow: /wp-admin/\n", { "content-type": "text/plain" }),
      },
    });
    expect(status(auditCrawling, bare, "seo.sitemap_in_robots")).toBe("warn");
    const missing = variant(tt1, { probes: { robots: answer(ROBOTS, 404, "Not Found") } });
    expect(status(auditCrawling, missing, "seo.sitemap_in_robots")).toBe("skip");
  });
  test("a sitemap on another host can't be verified, but is named → pass", () => {
    const elsewhere = variant(tt1, {
      probes: {
        robots: answer(ROBOTS, 200, "User-agent: *\nDisallow:\n\nSitemap: https://cdn.example.net/sitemap.xml\n", {
          "content-type": "text/plain",
        }),
      },
    });
    const result = check(auditCrawling, elsewhere, "seo.sitemap_in_robots");
    expect(result.status).toBe("pass");
    expect(result.message).toContain("not fetched");
  });
});

describe("seo.title, title_length, meta_description, meta_description_length", () => {
  test("the fixture: a 46-character title and no meta description", () => {
    expect(status(auditMetaTags, tt1, "seo.title")).toBe("pass");
    expect(status(auditMetaTags, tt1, "seo.title_length")).toBe("pass");
    expect(status(auditMetaTags, tt1, "seo.meta_description")).toBe("fail");
    expect(status(auditMetaTags, tt1, "seo.meta_description_length")).toBe("skip");
  });
  test("no title → fail, length skipped", () => {
    const untitled = edited(tt1, /<title>[^<]*<\/title>/, "");
    expect(status(auditMetaTags, untitled, "seo.title")).toBe("fail");
    expect(status(auditMetaTags, untitled, "seo.title_length")).toBe("skip");
    expect(status(auditMetaTags, edited(tt1, /<title>[^<]*<\/title>/, "<title> </title>"), "seo.title")).toBe("fail");
  });
  test("a title over 60 or under 10 characters → warn", () => {
    const long = edited(tt1, /<title>[^<]*<\/title>/, `<title>${"Fixture Blog — ".repeat(5)}</title>`);
    expect(status(auditMetaTags, long, "seo.title_length")).toBe("warn");
    const short = edited(tt1, /<title>[^<]*<\/title>/, "<title>Home</title>");
    expect(status(auditMetaTags, short, "seo.title_length")).toBe("warn");
  });
  test("Yoast's description → pass; empty → fail", () => {
    expect(status(auditMetaTags, yoast, "seo.meta_description")).toBe("pass");
    expect(status(auditMetaTags, yoast, "seo.meta_description_length")).toBe("pass");
    const empty = withMarkup(tt1, `<meta name="description" content="  " />`);
    expect(check(auditMetaTags, empty, "seo.meta_description").message).toContain("an empty meta description");
    expect(status(auditMetaTags, empty, "seo.meta_description")).toBe("fail");
  });
  test("a description over 160 or under 50 characters → warn", () => {
    const long = withMarkup(tt1, `<meta name="description" content="${"A blog about WordPress. ".repeat(8)}" />`);
    expect(status(auditMetaTags, long, "seo.meta_description_length")).toBe("warn");
    const short = withMarkup(tt1, `<meta name="description" content="Just a blog." />`);
    expect(status(auditMetaTags, short, "seo.meta_description_length")).toBe("warn");
  });
});

describe("seo.h1, lang, viewport, image_alt", () => {
  test("both fixtures: one H1, lang en-US, a mobile viewport, no images", () => {
    for (const fixture of [tt1, tt3]) {
      expect(status(auditPageStructure, fixture, "seo.h1")).toBe("pass");
      expect(status(auditPageStructure, fixture, "seo.lang")).toBe("pass");
      expect(status(auditPageStructure, fixture, "seo.viewport")).toBe("pass");
      expect(status(auditPageStructure, fixture, "seo.image_alt")).toBe("skip");
    }
    expect(check(auditPageStructure, tt3, "seo.h1").evidence).toEqual(["h1: Mindblown: a blog about philosophy."]);
  });
  test("no H1 → fail; two → warn; an empty one → warn", () => {
    const none = edited(tt1, /<h1 class="site-title">[^<]*<\/h1>/, "<p>Fixture Blog</p>");
    expect(status(auditPageStructure, none, "seo.h1")).toBe("fail");
    expect(status(auditPageStructure, withMarkup(tt1, "", "<h1>Archives</h1>"), "seo.h1")).toBe("warn");
    const logo = edited(tt1, /<h1 class="site-title">[^<]*<\/h1>/, `<h1><img src="${HOME}logo.png"></h1>`);
    expect(status(auditPageStructure, logo, "seo.h1")).toBe("warn");
  });
  test("lang missing, with an underscore, or not a language → fail", () => {
    const attribute = `<html lang="en-US" >`;
    expect(status(auditPageStructure, edited(tt1, attribute, "<html>"), "seo.lang")).toBe("fail");
    expect(status(auditPageStructure, edited(tt1, attribute, `<html lang="en_US">`), "seo.lang")).toBe("fail");
    expect(status(auditPageStructure, edited(tt1, attribute, `<html lang="jp">`), "seo.lang")).toBe("fail");
    expect(status(auditPageStructure, edited(tt1, attribute, `<html lang="zh-Hant-TW">`), "seo.lang")).toBe("pass");
  });
  test("viewport missing or without width/initial-scale → fail", () => {
    const tag = `<meta name="viewport" content="width=device-width, initial-scale=1" />`;
    expect(status(auditPageStructure, edited(tt1, tag, ""), "seo.viewport")).toBe("fail");
    const useless = edited(tt1, tag, `<meta name="viewport" content="user-scalable=yes" />`);
    expect(status(auditPageStructure, useless, "seo.viewport")).toBe("fail");
  });
  test("images with alt (empty alt counts) → pass; one without → warn, naming it", () => {
    const withAlt = withMarkup(tt1, "", `<img src="${HOME}a.jpg" alt="A cat"><img src="${HOME}b.jpg" alt="">`);
    expect(status(auditPageStructure, withAlt, "seo.image_alt")).toBe("pass");
    const without = withMarkup(withAlt, "", `<img src="${HOME}c.jpg">`);
    const result = check(auditPageStructure, without, "seo.image_alt");
    expect(result.status).toBe("warn");
    expect(result.evidence).toEqual(["http://127.0.0.1:8088/c.jpg"]);
  });
});

describe("seo.open_graph and seo.twitter_card", () => {
  test("WordPress core prints neither → open_graph fails, twitter_card warns", () => {
    expect(status(auditSocial, tt1, "seo.open_graph")).toBe("fail");
    expect(status(auditSocial, tt1, "seo.twitter_card")).toBe("warn");
  });
  test("Yoast's tags → both pass", () => {
    expect(status(auditSocial, yoast, "seo.open_graph")).toBe("pass");
    expect(check(auditSocial, yoast, "seo.twitter_card").evidence).toEqual(["twitter:card: summary_large_image"]);
  });
  test("og:title alone → warn, naming what is missing", () => {
    const partial = withMarkup(tt1, `<meta property="og:title" content="Fixture Blog" />`);
    const result = check(auditSocial, partial, "seo.open_graph");
    expect(result.status).toBe("warn");
    expect(result.message).toContain("og:type, og:image, og:url");
  });
});

describe("seo.structured_data", () => {
  test("the fixture has none → warn; Yoast's schema graph → pass", () => {
    expect(status(auditStructuredData, tt1, "seo.structured_data")).toBe("warn");
    const result = check(auditStructuredData, yoast, "seo.structured_data");
    expect(result.status).toBe("pass");
    expect(result.evidence).toEqual(["@type: CollectionPage", "@type: WebSite"]);
  });
  test("microdata counts too", () => {
    const microdata = withMarkup(tt1, "", `<div itemscope itemtype="https://schema.org/Organization"></div>`);
    expect(status(auditStructuredData, microdata, "seo.structured_data")).toBe("pass");
  });
  test("a JSON-LD block that doesn't parse → fail", () => {
    const broken = withMarkup(yoast, `<script type="application/ld+json">{"@type": "Organization",}</script>`);
    const result = check(auditStructuredData, broken, "seo.structured_data");
    expect(result.status).toBe("fail");
    expect(result.evidence[0]).toBe(`JSON-LD block 2: {"@type": "Organization",}`);
  });
});

describe("seo.hreflang", () => {
  const alternates = (pairs: [string, string][]) =>
    withMarkup(tt1, pairs.map(([lang, href]) => `<link rel="alternate" hreflang="${lang}" href="${href}" />`).join(""));
  test("the fixture uses none → skip", () => {
    expect(status(auditHreflang, tt1, "seo.hreflang")).toBe("skip");
  });
  test("valid codes including the page itself → pass", () => {
    const ok = alternates([
      ["en-GB", HOME],
      ["de", `${HOME}de/`],
      ["x-default", HOME],
    ]);
    expect(status(auditHreflang, ok, "seo.hreflang")).toBe("pass");
  });
  test("en-UK, jp or en_US → fail", () => {
    const bad = alternates([
      ["en-UK", HOME],
      ["jp", `${HOME}ja/`],
      ["en_US", `${HOME}us/`],
    ]);
    const result = check(auditHreflang, bad, "seo.hreflang");
    expect(result.status).toBe("fail");
    expect(result.evidence).toHaveLength(3);
    expect(result.evidence[0]).toContain("GB");
  });
  test("the page itself not listed → warn", () => {
    expect(status(auditHreflang, alternates([["de", `${HOME}de/`]]), "seo.hreflang")).toBe("warn");
  });
  test("language-tag validation", () => {
    expect(langProblem("en-US")).toBeNull();
    expect(langProblem("de-DE-1996")).toBeNull();
    expect(langProblem("en_US")).not.toBeNull();
    expect(langProblem("xx")).not.toBeNull();
    expect(hreflangProblem("x-default")).toBeNull();
    expect(hreflangProblem("es-419")).toBeNull();
    expect(hreflangProblem("en-uk")).toContain("GB");
  });
});

describe("seo.seo_plugin", () => {
  test("the fixture has no SEO plugin → warn (info)", () => {
    const result = check(auditSeoPlugin, tt1, "seo.seo_plugin");
    expect(result.status).toBe("warn");
    expect(result.severity).toBe("info");
  });
  test("Yoast SEO's comment → pass", () => {
    expect(check(auditSeoPlugin, yoast, "seo.seo_plugin").evidence).toEqual(["plugin: Yoast SEO"]);
  });
  test("not WordPress → skip", () => {
    const page = homepageOnly("https://example.com/", "<html><head><title>Example</title></head><body></body></html>");
    expect(status(auditSeoPlugin, page, "seo.seo_plugin")).toBe("skip");
  });
});
