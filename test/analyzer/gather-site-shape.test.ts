/**
 * Gather follows the install's shape, seen from two real local HTTP servers: a site whose
 * homepage shows nothing of where core is (its core files and its plugin and theme files are
 * on a second origin, a pull zone), whose REST index says core is in /wp/. Core's probes wait
 * for the REST index and go to /wp/; the content directory's go to /app/; the components' own
 * files are asked on the pull zone; nothing is asked at a standard layout's places.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AnalysisResult, analyze } from "../../server/analyzer/analyze.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { startSite, type TestSite } from "../helpers/sites.ts";

const html = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=UTF-8" } });
const METHODS = `<?xml version="1.0"?><methodResponse><params><param><value><array><data><value><string>system.multicall</string></value><value><string>wp.getUsersBlogs</string></value></data></array></value></param></params></methodResponse>`;

describe("gather on a site that hides its shape from the homepage", () => {
  let site: TestSite;
  let cdn: TestSite;
  let report: AnalysisResult;
  beforeAll(async () => {
    let origin = "";
    let pullZone = "";
    cdn = startSite({
      "/app/plugins/foo-forms/readme.txt": () =>
        new Response("=== Foo Forms ===\nStable tag: 1.2.3\n\n== Description ==\nForms.\n"),
      "/app/themes/studio/style.css": () =>
        new Response("/*\nTheme Name: Studio\nVersion: 2.0.1\nAuthor: Northwind\n*/\nbody{}", {
          headers: { "content-type": "text/css" },
        }),
    });
    pullZone = cdn.url.replace(/\/$/, "");
    site = startSite({
      "/": () =>
        html(`<!doctype html><html><head><title>Studio</title>
<link rel="https://api.w.org/" href="${origin}/wp-json/">
<link rel="stylesheet" href="${pullZone}/wp/wp-includes/css/dist/block-library/style.min.css">
<link rel="stylesheet" href="${pullZone}/app/themes/studio/style.css?ver=2.0.1">
<script src="${pullZone}/app/plugins/foo-forms/js/forms.js?ver=1.2.3"></script>
</head><body class="home"><p>Hello.</p></body></html>`),
      "/wp-json/": () =>
        Response.json({
          name: "Studio",
          description: "",
          url: `${origin}/wp`,
          home: origin,
          namespaces: ["oembed/1.0", "wp/v2"],
          routes: {},
        }),
      "/wp/xmlrpc.php": (request) =>
        request.method === "POST"
          ? new Response(METHODS, { headers: { "content-type": "text/xml" } })
          : new Response("XML-RPC server accepts POST requests only.", { status: 405 }),
      "/app/plugins/": () => html(""),
    });
    origin = site.url.replace(/\/$/, "");
    const policy = new TargetPolicy([`127.0.0.1:${new URL(site.url).port}`, `127.0.0.1:${new URL(cdn.url).port}`]);
    const agent = createSafeAgent(policy);
    try {
      report = await analyze(site.url, { agent, policy, userAgent: "wpreport-test" }, AbortSignal.timeout(20_000));
    } finally {
      await agent.close();
    }
  });
  afterAll(() => {
    site.stop();
    cdn.stop();
  });

  test("core's probes waited for the REST index and went to /wp/", () => {
    const rest = site.hits.indexOf("GET /wp-json/");
    expect(rest).toBeGreaterThan(0);
    for (const hit of [
      "POST /wp/xmlrpc.php",
      "GET /wp/wp-login.php",
      "GET /wp/readme.html",
      "GET /wp/wp-admin/install.php",
    ]) {
      expect([hit, site.hits.indexOf(hit) > rest]).toEqual([hit, true]);
    }
    // wp-config.php backups: beside home and beside core (HEAD first, as every exposed file but a PHP script).
    expect(site.hits).toContain("HEAD /wp-config.php.bak");
    expect(site.hits.indexOf("HEAD /wp/wp-config.php.bak")).toBeGreaterThan(rest);
    for (const path of ["/xmlrpc.php", "/wp-login.php", "/readme.html", "/wp-admin/install.php"])
      expect(site.hits.filter((hit) => hit.endsWith(` ${path}`))).toEqual([]);
  });

  test("the content directory's probes went to /app/, never to /wp-content/", () => {
    for (const hit of ["GET /app/uploads/", "GET /app/plugins/", "GET /app/themes/", "HEAD /app/debug.log"])
      expect(site.hits).toContain(hit);
    expect(site.hits.filter((hit) => hit.includes("/wp-content/"))).toEqual([]);
  });

  test("the components' own files were asked on the pull zone, and nothing else of the site's", () => {
    expect(cdn.hits).toContain("GET /app/plugins/foo-forms/readme.txt");
    expect(cdn.hits).toContain("GET /app/themes/studio/style.css");
    expect(cdn.hits.filter((hit) => /xmlrpc|wp-login|wp-json|debug\.log|uploads/.test(hit))).toEqual([]);
  });

  test("the report: the shape, the components from the pull zone, XML-RPC found where it is", () => {
    expect(report.wordpress?.layout).toMatchObject({
      home_url: `${site.url}`,
      core_path: "/wp/",
      content_path: "/app/",
      asset_origins: [cdn.url.replace(/\/$/, "")],
    });
    expect(report.wordpress?.layout?.evidence.map((item) => item.source)).toContain("core_rest_index");
    expect(report.theme).toMatchObject({ slug: "studio", name: "Studio", version: "2.0.1" });
    expect(report.plugins.map((plugin) => [plugin.slug, plugin.version])).toEqual([["foo-forms", "1.2.3"]]);
    expect(report.security?.xmlrpc).toMatchObject({ enabled: true, multicall: true });
    // No listing and no log where the content directory answered (its empty plugins/ index): passes, at the right place.
    expect(report.checks.find((check) => check.id === "security.debug_log_exposed")?.status).toBe("pass");
    expect(report.checks.find((check) => check.id === "security.directory_listing")?.status).toBe("pass");
  });
});
