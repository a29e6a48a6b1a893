/**
 * Through the API, against the Bedrock-like WordPress fixture (test/fixtures/bedrock/setup.sh,
 * started by .ci/run): Debian's WordPress 6.1.9 with core in /wp/, content in /app/, every
 * plugin, theme and core file of a page on a second origin (a pull zone), Cache Enabler's
 * page cache, the login moved to /studio-entrance/, the core version only in the RSS feed,
 * user enumeration closed. Every fact asserted here was checked on the site with curl first:
 *
 *  REST index: "url": "http://127.0.0.2:8092/wp", "home": "http://127.0.0.2:8092"; the page's
 *  /app/… and /wp/wp-includes/… URLs on http://127.0.0.3:8093; cnArgs.ajaxUrl
 *  http://127.0.0.2:8092/wp/wp-admin/admin-ajax.php; twentytwentyone style.css?ver=1.7;
 *  contact-form-7 ?ver=5.7.7 (readme Stable tag 5.7.7, namespace contact-form-7/v1);
 *  cookie-notice ?ver=2.4.9 (readme 2.4.9); "<!-- Cache Enabler by KeyCDN @ … -->" and
 *  X-Cache-Handler: cache-enabler-engine on the homepage, /app/plugins/cache-enabler/readme.txt
 *  "Stable tag: 1.8.13"; /feed/ <generator>…?v=6.1.9;
 *  /wp/wp-login.php → 302 /404/; /wp/xmlrpc.php lists 80 methods; /app/uploads/ nginx
 *  autoindex; /app/debug.log with PHP notices; /?author=1 → 403; REST users 404; the users
 *  sitemap gone; oEmbed without author; feed dc:creator "Studio Team", "Alex Morgan"
 *  (logins studio-owner and amorgan).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Check, Report } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { BEDROCK_CDN_URL, BEDROCK_URL, HAS_BEDROCK } from "../helpers/env.ts";
import { expectValidReport } from "../helpers/report-schema.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

const SITE = BEDROCK_URL.replace(/\/$/, "");
const CDN = BEDROCK_CDN_URL.replace(/\/$/, "");
const hostPort = (url: string) => new URL(url).host;
const check = (report: Report, id: string): Check | undefined => report.checks.find((item) => item.id === id);

async function reportOf(service: TestService): Promise<Report> {
  const { token } = await service.token();
  const created = await service.call<Report>("POST", "/api/generate-report", { token, body: { url: BEDROCK_URL } });
  expect(created.status).toBe(201);
  return created.body;
}

describe.skipIf(!HAS_BEDROCK).each(BACKENDS)("the Bedrock-like fixture through the API on %s", (backend) => {
  let service: TestService;
  let report: Report;
  beforeAll(async () => {
    service = await startTestService({
      backend,
      env: { TARGET_ALLOWLIST: `${hostPort(BEDROCK_URL)},${hostPort(BEDROCK_CDN_URL)}` },
    });
    report = await reportOf(service);
  });
  afterAll(() => service.stop());

  test("the report validates and has no errors", () => {
    expectValidReport(report);
    expect(report.errors).toEqual([]);
  });

  test("the install's shape: home /, core /wp/, content /app/, the pull zone as asset origin", () => {
    expect(report.wordpress?.layout).toMatchObject({
      home_url: `${SITE}/`,
      core_path: "/wp/",
      content_path: "/app/",
      asset_origins: [CDN],
    });
    const sources = report.wordpress?.layout?.evidence.map((item) => item.source);
    expect(sources).toEqual(
      expect.arrayContaining(["home_rest_index", "core_rest_index", "content_asset_origin", "asset_origin"]),
    );
    expect(report.wordpress).toMatchObject({
      install_path: "/",
      content_path: "/app/",
      rest_api_url: `${SITE}/wp-json/`,
    });
  });

  test("WordPress 6.1.9 from the RSS feed, the only place that shows it", () => {
    expect(report.wordpress).toMatchObject({ detected: true, version: "6.1.9" });
    const versions = report.wordpress?.evidence.filter((item) => /6\.1\.9/.test(item.value));
    expect(versions).toEqual([
      { source: "rss_generator", value: "<generator>https://wordpress.org/?v=6.1.9</generator>", url: `${SITE}/feed/` },
    ]);
    expect(check(report, "security.wp_version_disclosed")?.status).toBe("fail");
  });

  test("theme twentytwentyone 1.7, its style.css read on the pull zone", () => {
    expect(report.theme).toMatchObject({ slug: "twentytwentyone", name: "Twenty Twenty-One", version: "1.7" });
    expect(report.theme?.evidence).toContainEqual({
      source: "style_css_version",
      value: "Version: 1.7",
      url: `${CDN}/app/themes/twentytwentyone/style.css`,
    });
  });

  test("exactly the plugins the site runs, versions from the pull zone's assets and readmes", () => {
    expect(report.plugins.map((plugin) => plugin.slug).sort()).toEqual([
      "cache-enabler",
      "contact-form-7",
      "cookie-notice",
    ]);
    const plugin = (slug: string) => report.plugins.find((item) => item.slug === slug);
    expect(plugin("contact-form-7")).toMatchObject({ name: "Contact Form 7", version: "5.7.7" });
    expect(plugin("contact-form-7")?.evidence).toContainEqual({
      source: "readme_stable_tag",
      value: "Stable tag: 5.7.7",
      url: `${CDN}/app/plugins/contact-form-7/readme.txt`,
    });
    expect(plugin("cookie-notice")).toMatchObject({ version: "2.4.9" });
    expect(plugin("cookie-notice")?.evidence).toContainEqual({
      source: "asset_url",
      value: "/app/plugins/cookie-notice/css/front.min.css",
      url: `${CDN}/app/plugins/cookie-notice/css/front.min.css?ver=2.4.9`,
    });
    // Known by its comment and header; its version from its readme, in the site's content directory found at /app/.
    expect(plugin("cache-enabler")).toMatchObject({ name: "Cache Enabler", version: "1.8.13" });
    expect(plugin("cache-enabler")?.evidence).toContainEqual({
      source: "readme_stable_tag",
      value: "Stable tag: 1.8.13",
      url: `${SITE}/app/plugins/cache-enabler/readme.txt`,
    });
  });

  test("the page cache: Cache Enabler served the homepage from its cache", () => {
    expect(report.hosting).toMatchObject({ page_cache: "Cache Enabler", page_cache_hit: true });
    expect(check(report, "performance.page_cache")).toMatchObject({ status: "pass" });
  });

  test("probes went to the install's places, never to a standard layout's", () => {
    const asked = (report.performance?.requests ?? []).map((row) => `${row.method} ${row.url}`);
    for (const row of [
      `POST ${SITE}/wp/xmlrpc.php`,
      `GET ${SITE}/wp/wp-login.php`,
      `GET ${SITE}/wp/readme.html`,
      `GET ${SITE}/wp/wp-admin/install.php`,
      `GET ${SITE}/app/uploads/`,
      `GET ${SITE}/app/plugins/`,
      `GET ${SITE}/app/themes/`,
      `GET ${SITE}/app/debug.log`,
      `GET ${CDN}/app/plugins/contact-form-7/readme.txt`,
      `GET ${CDN}/app/themes/twentytwentyone/style.css`,
      `GET ${SITE}/app/plugins/cache-enabler/readme.txt`,
      // wp-config.php backups beside home and beside core (HEAD first, as exposed files are).
      `HEAD ${SITE}/wp-config.php.bak`,
      `HEAD ${SITE}/wp/wp-config.php.bak`,
    ])
      expect(asked).toContain(row);
    for (const path of ["/xmlrpc.php", "/wp-login.php", "/readme.html", "/wp-admin/install.php"])
      expect(asked.filter((row) => row.endsWith(`${SITE}${path}`))).toEqual([]);
    expect(asked.filter((row) => row.includes("/wp-content/"))).toEqual([]);
  });

  test("what is there is found there: XML-RPC at /wp/xmlrpc.php, the uploads listing, debug.log", () => {
    expect(report.security?.xmlrpc).toEqual({ enabled: true, methods: 80, multicall: true, pingback: true });
    expect(check(report, "security.xmlrpc_enabled")?.status).toBe("fail");
    expect(report.security?.directory_listing).toEqual([`${SITE}/app/uploads/`]);
    expect(report.security?.exposed_files).toEqual([
      expect.objectContaining({ path: "/app/debug.log", kind: "debug_log", url: `${SITE}/app/debug.log` }),
    ]);
    expect(check(report, "security.installer_exposed")?.status).toBe("pass");
    expect(check(report, "security.readme_exposed")?.status).toBe("pass");
  });

  test("the login moved away: none at /wp/wp-login.php, and nothing claimed about its transport", () => {
    expect(report.security?.login).toEqual({ url: null, reachable: false, over_https: false });
    expect(check(report, "security.login_over_https")).toMatchObject({
      status: "skip",
      message:
        "No login form was found at /wp/wp-login.php (it may be moved, renamed or protected), so its transport could not be checked.",
    });
  });

  test("authors' display names in the feed are not logins: user enumeration passes", () => {
    const users = report.security?.users ?? [];
    expect(users.map((user) => user.display_name).sort()).toEqual(["Alex Morgan", "Studio Team"]);
    expect(users.every((user) => user.username === null)).toBe(true);
    expect(report.security?.user_enumeration).toEqual({
      rest_api: false,
      author_archives: false,
      oembed: false,
      sitemap: false,
      feed: true,
    });
    for (const id of [
      "security.user_enumeration",
      "security.rest_user_enumeration",
      "security.author_enumeration",
      "security.admin_username",
    ])
      expect([id, check(report, id)?.status]).toEqual([id, "pass"]);
  });

  test("no false positive: every failing check is true of the site", () => {
    const failing = report.checks.filter((item) => item.status === "fail").map((item) => item.id);
    expect(failing.sort()).toEqual(
      [
        // Plain HTTP and no security headers (the fixture's nginx sends none).
        "security.https",
        "security.csp",
        "security.clickjacking",
        "security.x_content_type_options",
        "security.permissions_policy",
        // The RSS feed's generator, the readmes on the pull zone, XML-RPC, the listing, the log.
        "security.wp_version_disclosed",
        "components.plugin_versions_exposed",
        "security.xmlrpc_enabled",
        "security.xmlrpc_multicall",
        "security.xmlrpc_pingback",
        "security.directory_listing",
        "security.debug_log_exposed",
        // Twenty Twenty-One prints no meta description or Open Graph tags.
        "seo.meta_description",
        "seo.open_graph",
      ].sort(),
    );
  });
});

describe.skipIf(!HAS_BEDROCK)("the pull zone outside the target policy", () => {
  let service: TestService;
  let report: Report;
  beforeAll(async () => {
    service = await startTestService({ env: { TARGET_ALLOWLIST: hostPort(BEDROCK_URL) } });
    report = await reportOf(service);
  });
  afterAll(() => service.stop());

  test("its files are not fetched (blocked, in errors[]); components and versions still come from its URLs", () => {
    expectValidReport(report);
    const blocked = report.errors.filter((error) => error.kind === "blocked").map((error) => error.url);
    expect(blocked).toEqual(
      expect.arrayContaining([
        `${CDN}/app/plugins/contact-form-7/readme.txt`,
        `${CDN}/app/themes/twentytwentyone/style.css`,
      ]),
    );
    expect(report.errors.every((error) => error.kind !== "blocked" || error.url?.startsWith(`${CDN}/`))).toBe(true);
    expect(report.wordpress?.layout?.asset_origins).toEqual([CDN]);
    expect(report.theme).toMatchObject({ slug: "twentytwentyone", version: "1.7" });
    expect(report.plugins.find((plugin) => plugin.slug === "cookie-notice")).toMatchObject({ version: "2.4.9" });
  });
});
