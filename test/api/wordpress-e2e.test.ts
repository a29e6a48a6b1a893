/**
 * Through the API, against the real WordPress fixture sites (README, "Run the tests")
 * (Debian's WordPress 6.1.9 on nginx + php-fpm + MariaDB). Every fact asserted here was
 * checked on those sites with curl first:
 *
 *  default fixture (http://127.0.0.1:8088/): generator "WordPress 6.1.9"; theme
 *  twentytwentyone, style.css "Version: 1.7"; akismet (REST namespace akismet/v1,
 *  readme.txt "Stable tag: 5.0.2"); xrds-simple (X-XRDS-Location and X-Yadis-Location
 *  headers, no readme); REST users admin and editor-jane; /?author=1 → /author/admin/;
 *  xmlrpc.php lists 80 methods; readme.html served; plain HTTP; no security headers;
 *  robots.txt with "Sitemap: …/wp-sitemap.xml"; wp-sitemap.xml is a sitemap index.
 *
 *  variant (WP_PORT=8090 WP_HOST=localhost WP_THEME=twentytwentythree
 *  WP_PLUGINS="xrds-simple/xrds-simple.php shibboleth/shibboleth.php"): theme
 *  twentytwentythree, style.css "Version: 1.0"; no akismet namespace; shibboleth leaves
 *  no trace on public pages (no asset, no readme.txt), so passively it is invisible.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Report } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { HAS_WORDPRESS, HAS_WORDPRESS_VARIANT, WORDPRESS_URL, WORDPRESS_VARIANT_URL } from "../helpers/env.ts";
import { expectValidReport } from "../helpers/report-schema.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

const check = (report: Report, id: string) => report.checks.find((item) => item.id === id);

describe.skipIf(!HAS_WORDPRESS).each(BACKENDS)("the real WordPress fixture through the API on %s", (backend) => {
  let service: TestService;
  let report: Report;
  beforeAll(async () => {
    service = await startTestService({ backend });
    const { token } = await service.token();
    const created = await service.call<Report>("POST", "/api/generate-report", { token, body: { url: WORDPRESS_URL } });
    expect(created.status).toBe(201);
    report = created.body;
    const stored = await service.call<Report>("GET", `/api/report/${report.id}`, { token });
    expect(stored.body).toEqual(report);
  });
  afterAll(() => service.stop());

  test("the report validates against the published schema", () => {
    expectValidReport(report);
    expect(report.errors).toEqual([]);
  });

  test("WordPress 6.1.9, with evidence from several independent sources", () => {
    expect(report.wordpress).toMatchObject({
      detected: true,
      confidence: 100,
      version: "6.1.9",
      rest_api_url: `${WORDPRESS_URL}wp-json/`,
    });
    const sources = new Set(report.wordpress?.evidence.map((item) => item.source));
    for (const source of ["meta_generator", "rss_generator", "core_asset_ver", "rest_api", "login_page"])
      expect(sources.has(source)).toBe(true);
    expect(report.wordpress?.evidence).toContainEqual({ source: "meta_generator", value: "WordPress 6.1.9" });
  });

  test("a standard install: core and content where WordPress puts them, no asset origin, no page cache", () => {
    expect(report.wordpress?.layout).toMatchObject({
      home_url: WORDPRESS_URL,
      core_path: "/",
      content_path: "/wp-content/",
      asset_origins: [],
    });
    expect(report.wordpress).toMatchObject({ install_path: "/", content_path: null });
    expect(report.hosting).toMatchObject({ page_cache: null, page_cache_hit: null, cdn: null });
    // No page cache seen: a warning — or a failure when the homepage's first byte took more
    // than 800 ms, which the fixture's php-fpm does on a busy machine (the audit's rule:
    // audit/performance/page-cache.ts, tested on artifacts in audit-performance.test.ts).
    const ttfb = report.performance?.ttfb_ms ?? 0;
    expect(check(report, "performance.page_cache")?.status).toBe(ttfb > 800 ? "fail" : "warn");
    // Nothing skipped for want of a place: every probe reached a confirmed one.
    const skipped = report.checks.filter((item) => item.status === "skip").map((item) => item.message);
    expect(skipped.filter((message) => /proves nothing|could not be told|is unknown:/.test(message))).toEqual([]);
  });

  test("theme twentytwentyone 1.7 from its style.css, no parent", () => {
    expect(report.theme).toMatchObject({
      slug: "twentytwentyone",
      name: "Twenty Twenty-One",
      version: "1.7",
      author: "the WordPress team",
      parent: null,
    });
    expect(report.theme?.evidence).toContainEqual({
      source: "style_css_version",
      value: "Version: 1.7",
      url: `${WORDPRESS_URL}wp-content/themes/twentytwentyone/style.css`,
    });
  });

  test("exactly the plugins the site has: akismet 5.0.2 and xrds-simple", () => {
    expect(report.plugins.map((plugin) => plugin.slug).sort()).toEqual(["akismet", "xrds-simple"]);
    const akismet = report.plugins.find((plugin) => plugin.slug === "akismet");
    expect(akismet).toMatchObject({ name: "Akismet Anti-spam", version: "5.0.2" });
    expect(akismet?.evidence).toContainEqual({ source: "rest_namespace", value: "akismet/v1" });
    expect(akismet?.evidence).toContainEqual({
      source: "readme_stable_tag",
      value: "Stable tag: 5.0.2",
      url: `${WORDPRESS_URL}wp-content/plugins/akismet/readme.txt`,
    });
    const xrds = report.plugins.find((plugin) => plugin.slug === "xrds-simple");
    expect(xrds?.evidence.map((item) => item.value)).toEqual([
      `x-xrds-location: ${WORDPRESS_URL}?xrds`,
      `x-yadis-location: ${WORDPRESS_URL}?xrds`,
    ]);
  });

  test("users admin and editor-jane are enumerable through the REST API and author archives", () => {
    const users = report.security?.users ?? [];
    expect(users.map((user) => user.username).sort()).toEqual(["admin", "editor-jane"]);
    expect(users.find((user) => user.username === "admin")?.sources).toEqual(
      expect.arrayContaining(["rest_api", "author_archive"]),
    );
    expect(report.security?.user_enumeration).toMatchObject({ rest_api: true, author_archives: true });
  });

  test("the users sitemap lists both, and user_enumeration fails naming every route that gives logins", () => {
    const users = report.security?.users ?? [];
    for (const user of users) expect(user.sources).toContain("sitemap");
    expect(report.security?.user_enumeration).toMatchObject({ sitemap: true, feed: true });
    const found = check(report, "security.user_enumeration");
    expect(found?.status).toBe("fail");
    expect(found?.message).toContain(
      "the REST API (/wp-json/wp/v2/users), author archives (/?author=N), the users sitemap",
    );
    expect(found?.message).toContain("Feeds show authors' display names, which are not logins.");
  });

  test("XML-RPC enabled, readme.html exposed, no HTTPS, security headers missing", () => {
    expect(report.security?.xmlrpc).toEqual({ enabled: true, methods: 80, multicall: true, pingback: true });
    expect(report.security?.exposed_files).toContainEqual(
      expect.objectContaining({ path: "/readme.html", kind: "readme" }),
    );
    expect(report.security?.https).toBe(false);
    expect(check(report, "security.https")?.status).toBe("fail");
    for (const header of report.security?.headers ?? []) expect(header.value).toBeNull();
    expect(report.security?.headers.map((header) => header.name)).toEqual(
      expect.arrayContaining([
        "content-security-policy",
        "x-frame-options",
        "x-content-type-options",
        "referrer-policy",
      ]),
    );
  });

  test("robots.txt and the sitemap are present", () => {
    expect(report.seo?.robots_txt).toEqual({
      present: true,
      disallows_all: false,
      sitemaps: [`${WORDPRESS_URL}wp-sitemap.xml`],
    });
    expect(report.seo?.sitemaps).toContainEqual({
      url: `${WORDPRESS_URL}wp-sitemap.xml`,
      status: 200,
      valid: true,
      entries: 4,
    });
  });

  test("a timing row for every request, homepage first", () => {
    const rows = report.performance?.requests ?? [];
    expect(rows[0]).toMatchObject({ url: WORDPRESS_URL, method: "GET", status: 200 });
    expect(rows.length).toBeGreaterThan(25);
    // The homepage request's own first byte, one sample (test/analyzer/ttfb.test.ts).
    expect(report.performance?.ttfb_samples_ms).toHaveLength(1);
  });
});

describe.skipIf(!HAS_WORDPRESS_VARIANT)("the fixture re-run with twentytwentythree and other plugins", () => {
  let service: TestService;
  let report: Report;
  beforeAll(async () => {
    service = await startTestService();
    const { token } = await service.token();
    const created = await service.call<Report>("POST", "/api/generate-report", {
      token,
      body: { url: WORDPRESS_VARIANT_URL },
    });
    expect(created.status).toBe(201);
    report = created.body;
  });
  afterAll(() => service.stop());

  test("the report follows the site: new theme, akismet gone, nothing invented", () => {
    expectValidReport(report);
    expect(report.wordpress).toMatchObject({ detected: true, version: "6.1.9" });
    expect(report.theme).toMatchObject({
      slug: "twentytwentythree",
      name: "Twenty Twenty-Three",
      version: "1.0",
      parent: null,
    });
    expect(report.plugins.map((plugin) => plugin.slug)).toEqual(["xrds-simple"]);
    expect(report.wordpress?.rest_namespaces).not.toContain("akismet/v1");
  });
});
