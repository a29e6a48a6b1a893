/**
 * The install's shape (detect/site-paths.ts) and the checks that depend on it reaching the
 * right place (audit/placement.ts), on the saved artifacts of the Bedrock-like fixture
 * (test/fixtures/bedrock/setup.sh: home /, core /wp/, content /app/, plugin, theme and core
 * files on a pull zone) and of the standard fixture, and on variants of them.
 */
import { describe, expect, test } from "bun:test";
import { buildResult } from "../../server/analyzer/analyze.ts";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { componentBase, detectSitePaths } from "../../server/analyzer/detect/site-paths.ts";
import type { Check } from "../../shared/report.ts";
import { answer, homepageOnly, loadArtifacts, variant, WP_FIXTURE } from "./artifacts.ts";

const bedrock = loadArtifacts("wp-6.1.9-bedrock");
const standard = loadArtifacts(WP_FIXTURE);
const SITE = "http://127.0.0.2:8092";
const CDN = "http://127.0.0.3:8093";
const ORIGIN = "http://127.0.0.1:8088";

const checkOf = (artifacts: Artifacts, id: string): Check => {
  const found = buildResult(artifacts).checks.find((item) => item.id === id);
  if (!found) throw new Error(`${id} not produced`);
  return found;
};
const statusOf = (artifacts: Artifacts, id: string) => checkOf(artifacts, id).status;

describe("the Bedrock-like fixture's shape", () => {
  const paths = detectSitePaths(bedrock);

  test("home /, core /wp/ (REST index, admin-ajax.php), content /app/ (the pull zone's paths, confirmed by plugins/)", () => {
    expect(paths).toMatchObject({
      origin: SITE,
      homeBase: `${SITE}/`,
      coreBase: `${SITE}/wp/`,
      contentBase: `${SITE}/app/`,
      customContent: true,
      restRoot: `${SITE}/wp-json/`,
      assetBases: [`${CDN}/app/`],
    });
    expect(paths.found.core.map((item) => item.source)).toEqual(["core_rest_index", "core_admin_ajax"]);
    expect(paths.found.content.map((item) => item.source)).toEqual(["content_asset_origin", "content_probe"]);
    expect(paths.found.content[1]).toEqual({
      source: "content_probe",
      value: "plugins/ answers with WordPress's empty index.php",
      url: `${SITE}/app/plugins/`,
    });
  });

  test("the homepage alone (gather's first plan) already shows core and the pull zone", () => {
    const first = detectSitePaths({ homepage: bedrock.homepage });
    expect(first).toMatchObject({ coreBase: `${SITE}/wp/`, contentBase: `${SITE}/app/`, assetBases: [`${CDN}/app/`] });
    expect(first.found.core.map((item) => item.source)).toEqual(["core_admin_ajax"]);
  });

  test("every probe went to its place: core's files under /wp/, the content directory's under /app/, components' files on the pull zone", () => {
    const asked = Object.fromEntries(
      Object.entries(bedrock.probes).map(([key, value]) => [key, value?.redirects?.[0]?.url ?? value?.url]),
    );
    expect(asked).toMatchObject({
      login: `${SITE}/wp/wp-login.php`,
      xmlrpc_methods: `${SITE}/wp/xmlrpc.php`,
      readme_html: `${SITE}/wp/readme.html`,
      "exposed:/wp/wp-admin/install.php": `${SITE}/wp/wp-admin/install.php`,
      uploads: `${SITE}/app/uploads/`,
      plugins_listing: `${SITE}/app/plugins/`,
      themes_listing: `${SITE}/app/themes/`,
      "exposed:/app/debug.log": `${SITE}/app/debug.log`,
      "exposed:/app/backup-db/": `${SITE}/app/backup-db/`,
      author_1: `${SITE}/?author=1`,
      users_sitemap: `${SITE}/wp-sitemap-users-1.xml`,
      "plugin_readme:contact-form-7": `${CDN}/app/plugins/contact-form-7/readme.txt`,
      "plugin_readme:cookie-notice": `${CDN}/app/plugins/cookie-notice/readme.txt`,
      "theme_style:twentytwentyone": `${CDN}/app/themes/twentytwentyone/style.css`,
    });
    for (const key of Object.keys(asked)) expect(key).not.toMatch(/^exposed:\/(wp-admin|wp-content)\//);
  });

  test("a component's files are asked where its own files came from", () => {
    expect(componentBase(paths, [`${CDN}/app/plugins/x/a.js`])).toBe(`${CDN}/app/`);
    expect(componentBase(paths, [`${SITE}/app/plugins/x/a.js`])).toBe(`${SITE}/app/`);
    expect(componentBase(paths, [])).toBe(`${SITE}/app/`);
  });

  test("the report says what was found: home, core path, content path, asset origins, and how", () => {
    const report = buildResult(bedrock);
    expect(report.wordpress?.layout).toEqual({
      home_url: `${SITE}/`,
      core_path: "/wp/",
      content_path: "/app/",
      asset_origins: [CDN],
      evidence: [
        { source: "home_rest_index", value: `home: ${SITE}`, url: `${SITE}/wp-json/` },
        { source: "home_rest_link", value: `${SITE}/wp-json/` },
        { source: "core_rest_index", value: `url: ${SITE}/wp`, url: `${SITE}/wp-json/` },
        { source: "core_admin_ajax", value: "/wp/wp-admin/admin-ajax.php" },
        { source: "content_asset_origin", value: `${CDN}/app/` },
        {
          source: "content_probe",
          value: "plugins/ answers with WordPress's empty index.php",
          url: `${SITE}/app/plugins/`,
        },
        { source: "asset_origin", value: `${CDN}/app/` },
      ],
    });
    expect(report.wordpress).toMatchObject({ install_path: "/", content_path: "/app/" });
  });
});

describe("core, when the homepage does not show it", () => {
  // The pull zone serves wp-includes/ too; without admin-ajax.php in the page only the REST index says where core is.
  const body = bedrock.homepage.body.replaceAll("wp-admin\\/admin-ajax.php", "x.php");
  const noHint = variant(bedrock, { body });

  test("the REST index's url (siteurl) gives it", () => {
    expect(detectSitePaths({ homepage: noHint.homepage }).found.core).toEqual([]);
    const paths = detectSitePaths(noHint);
    expect(paths.coreBase).toBe(`${SITE}/wp/`);
    expect(paths.found.core.map((item) => item.source)).toEqual(["core_rest_index"]);
  });

  test("a siteurl written with another scheme (a site behind a TLS proxy) still gives the path", () => {
    const rest = bedrock.probes.rest_root;
    if (!rest) throw new Error("no REST index saved");
    const https = variant(noHint, {
      probes: { rest_root: { ...rest, body: rest.body.replace('"url":"http:', '"url":"https:') } },
    });
    expect(detectSitePaths(https).coreBase).toBe(`${SITE}/wp/`);
    const otherHost = variant(noHint, {
      probes: {
        rest_root: {
          ...rest,
          body: rest.body.replace('"url":"http:\\/\\/127.0.0.2:8092', '"url":"http:\\/\\/elsewhere.example'),
        },
      },
    });
    expect(detectSitePaths(otherHost).found.core.map((item) => item.source)).not.toContain("core_rest_index");
  });

  test("without the REST index either, core is assumed at home and its misses skip rather than pass", () => {
    const blind = variant(noHint, {
      probes: {
        rest_root: null,
        xmlrpc_methods: answer(`${SITE}/xmlrpc.php`, 404, "Not Found"),
        xmlrpc_get: answer(`${SITE}/xmlrpc.php`, 404, "Not Found"),
        readme_html: answer(`${SITE}/readme.html`, 404, "Not Found"),
        login: answer(`${SITE}/wp-login.php`, 404, "Not Found"),
        "exposed:/wp/wp-admin/install.php": null,
        "exposed:/wp-admin/install.php": answer(`${SITE}/wp-admin/install.php`, 404, "Not Found"),
      },
    });
    const paths = detectSitePaths(blind);
    expect(paths.coreBase).toBe(`${SITE}/`);
    expect(paths.found.core).toEqual([]);
    for (const id of ["security.xmlrpc_enabled", "security.xmlrpc_multicall", "security.xmlrpc_pingback"]) {
      expect(checkOf(blind, id)).toMatchObject({ status: "skip" });
    }
    expect(checkOf(blind, "security.xmlrpc_enabled").message).toBe(
      "Whether XML-RPC is on could not be told: nothing on the site showed where WordPress's core directory (wp-includes/, wp-admin/, xmlrpc.php) is, so it was looked for at WordPress's default, /.",
    );
    expect(statusOf(blind, "security.installer_exposed")).toBe("skip");
    expect(statusOf(blind, "security.readme_exposed")).toBe("skip");
    expect(statusOf(blind, "security.login_over_https")).toBe("skip");
    expect(buildResult(blind).wordpress?.layout?.core_path).toBeNull();
  });

  test("an answer only core gives confirms the assumed place: XML-RPC answering at /xmlrpc.php", () => {
    // No core URL left in the page (wp-includes/ and the RSD link renamed away), no REST API.
    const confirmed = variant(standard, {
      body: standard.homepage.body.replaceAll("wp-includes", "x-includes").replaceAll("xmlrpc.php", "x.php"),
      headers: {},
      probes: { rest_root: null },
    });
    const paths = detectSitePaths(confirmed);
    expect(paths.found.core).toEqual([
      {
        source: "core_probe",
        value: "xmlrpc.php answers as XML-RPC",
        url: `${ORIGIN}/xmlrpc.php`,
      },
    ]);
    expect(statusOf(confirmed, "security.xmlrpc_enabled")).toBe("fail");
  });
});

describe("probes that went to the wrong place skip (what gather did before the shape was followed)", () => {
  // The Bedrock site probed as if it were a standard install: xmlrpc.php, readme.html,
  // wp-login.php and install.php at the root, the content directory at /wp-content/.
  const rootAnswer = (path: string) => answer(`${SITE}${path}`, 404, "<html><title>Not Found</title></html>");
  const wrong = variant(bedrock, {
    probes: {
      xmlrpc_methods: rootAnswer("/xmlrpc.php"),
      xmlrpc_get: rootAnswer("/xmlrpc.php"),
      readme_html: rootAnswer("/readme.html"),
      login: rootAnswer("/wp-login.php"),
      uploads: rootAnswer("/wp-content/uploads/"),
      plugins_listing: rootAnswer("/wp-content/plugins/"),
      themes_listing: rootAnswer("/wp-content/themes/"),
      "exposed:/wp/wp-admin/install.php": null,
      "exposed:/wp-admin/install.php": rootAnswer("/wp-admin/install.php"),
      "exposed:/app/debug.log": null,
      "exposed:/wp-content/debug.log": rootAnswer("/wp-content/debug.log"),
      "exposed:/app/backup-db/": null,
      "exposed:/wp-content/backup-db/": rootAnswer("/wp-content/backup-db/"),
    },
  });

  test("no check passes on an answer from the wrong place", () => {
    const checks = buildResult(wrong).checks;
    const status = (id: string) => checks.find((item) => item.id === id)?.status;
    for (const id of [
      "security.xmlrpc_enabled",
      "security.xmlrpc_multicall",
      "security.xmlrpc_pingback",
      "security.readme_exposed",
      "security.installer_exposed",
      "security.debug_log_exposed",
      "security.backup_dir_exposed",
      "security.directory_listing",
      "security.login_over_https",
    ]) {
      expect([id, status(id)]).toEqual([id, "skip"]);
    }
    expect(checks.find((item) => item.id === "security.debug_log_exposed")?.message).toBe(
      `The debug log was not found, but that proves nothing: it was asked at ${SITE}/wp-content/debug.log, outside the content directory (plugins/, themes/, uploads/), which is ${SITE}/app/.`,
    );
    expect(checks.find((item) => item.id === "security.xmlrpc_enabled")?.message).toContain(
      `it was asked at ${SITE}/xmlrpc.php, outside WordPress's core directory`,
    );
  });

  test("at the right place, the same misses pass", () => {
    const right = variant(bedrock, {
      probes: {
        xmlrpc_methods: answer(`${SITE}/wp/xmlrpc.php`, 404, "Not Found"),
        xmlrpc_get: answer(`${SITE}/wp/xmlrpc.php`, 404, "Not Found"),
        uploads: answer(`${SITE}/app/uploads/`, 403, "Forbidden"),
        "exposed:/app/debug.log": answer(`${SITE}/app/debug.log`, 404, "Not Found"),
      },
    });
    expect(statusOf(right, "security.xmlrpc_enabled")).toBe("pass");
    expect(statusOf(right, "security.debug_log_exposed")).toBe("pass");
    expect(statusOf(right, "security.directory_listing")).toBe("pass");
    expect(statusOf(right, "security.installer_exposed")).toBe("pass");
    expect(statusOf(right, "security.readme_exposed")).toBe("pass");
  });
});

describe("the content directory", () => {
  test("inferred from a pull zone and never confirmed: misses there skip", () => {
    const unconfirmed = variant(bedrock, {
      probes: {
        plugins_listing: answer(`${SITE}/app/plugins/`, 404, "Not Found"),
        themes_listing: answer(`${SITE}/app/themes/`, 404, "Not Found"),
        uploads: answer(`${SITE}/app/uploads/`, 404, "Not Found"),
        // Cache Enabler shows no file of its own: its readme was asked on the site, and answered.
        "plugin_readme:cache-enabler": null,
        "exposed:/app/debug.log": answer(`${SITE}/app/debug.log`, 404, "Not Found"),
      },
    });
    const paths = detectSitePaths(unconfirmed);
    expect(paths.found.content.map((item) => item.source)).toEqual(["content_asset_origin"]);
    expect(checkOf(unconfirmed, "security.debug_log_exposed")).toMatchObject({
      status: "skip",
      message:
        "The debug log was not found, but that proves nothing: the content directory (plugins/, themes/, uploads/) was only inferred, as /app/, from the paths of the asset origin serving the site's files, and nothing answered there to confirm it.",
    });
    expect(statusOf(unconfirmed, "security.directory_listing")).toBe("skip");
  });

  test("from the site's own uploads when no plugin or theme file is on its origin", () => {
    const page = homepageOnly(
      `${SITE}/`,
      `<html><body class="home"><img src="${SITE}/assets/uploads/2024/05/a.jpg"><link rel="stylesheet" href="https://cdn.example/assets/themes/t/style.css"></body></html>`,
    );
    const paths = detectSitePaths(page);
    expect(paths.contentBase).toBe(`${SITE}/assets/`);
    expect(paths.found.content).toEqual([{ source: "content_uploads", value: "/assets/uploads/2024/05/a.jpg" }]);
    // The CDN's /assets/ is the site's content path: its theme belongs to the site.
    expect(paths.assetBases).toEqual(["https://cdn.example/assets/"]);
  });

  test("assumed under core when nothing shows it; plugins/' empty index.php confirms it", () => {
    const bare = variant(standard, {
      body: standard.homepage.body.replaceAll(`${ORIGIN}/wp-content/`, "https://static.example/x/"),
    });
    const paths = detectSitePaths({ homepage: bare.homepage });
    expect(paths.contentBase).toBe(`${ORIGIN}/wp-content/`);
    expect(paths.found.content).toEqual([]);
    const unanswered = variant(bare, {
      probes: {
        "plugin_readme:akismet": answer(`${ORIGIN}/wp-content/plugins/akismet/readme.txt`, 404, "Not Found"),
        "theme_style:twentytwentyone": null,
        plugins_listing: answer(`${ORIGIN}/wp-content/plugins/`, 404, "Not Found"),
        themes_listing: answer(`${ORIGIN}/wp-content/themes/`, 404, "Not Found"),
      },
    });
    expect(detectSitePaths(unanswered).found.content).toEqual([]);
    expect(statusOf(unanswered, "security.debug_log_exposed")).toBe("skip");
    const silent = variant(unanswered, {
      probes: { plugins_listing: answer(`${ORIGIN}/wp-content/plugins/`, 200, "") },
    });
    expect(detectSitePaths(silent).found.content).toEqual([
      {
        source: "content_probe",
        value: "plugins/ answers with WordPress's empty index.php",
        url: `${ORIGIN}/wp-content/plugins/`,
      },
    ]);
    expect(statusOf(silent, "security.debug_log_exposed")).toBe("pass");
    // A site that answers every path with an empty 200 proves nothing by it.
    const everything = variant(silent, { probes: { not_found: answer(`${ORIGIN}/wpreport-x-not-found/`, 200, "") } });
    expect(statusOf(everything, "security.debug_log_exposed")).toBe("skip");
  });
});

describe("asset origins: another origin's plugins/ and themes/ belong to the site only when something ties them to it", () => {
  const pageWith = (links: string[], bodyClass = "home", origin = SITE) =>
    homepageOnly(
      `${origin}/`,
      `<html><head>${links.map((href) => `<link rel="stylesheet" href="${href}">`).join("")}</head><body class="${bodyClass}"></body></html>`,
    );

  test("a library's themes/ folder on its CDN is not a WordPress theme", () => {
    const page = pageWith(["https://code.jquery.com/ui/1.12.1/themes/base/jquery-ui.css"]);
    expect(detectSitePaths(page).assetBases).toEqual([]);
    expect(buildResult(page).theme).toBeNull();
  });

  test("…/wp-content/ on any host is WordPress's content directory (a CDN keeping the default layout)", () => {
    const page = pageWith(["https://cdn.example/site-a/wp-content/plugins/foo/foo.css?ver=1.2"]);
    expect(detectSitePaths(page).assetBases).toEqual(["https://cdn.example/site-a/wp-content/"]);
  });

  test("a renamed content directory on a pull zone: plugins/ and themes/ side by side", () => {
    const page = pageWith([
      "https://cdn.example/app/plugins/foo/foo.css",
      "https://cdn.example/app/themes/bar/style.css",
    ]);
    expect(detectSitePaths(page)).toMatchObject({
      assetBases: ["https://cdn.example/app/"],
      contentBase: `${SITE}/app/`,
    });
    const alone = pageWith(["https://cdn.example/app/themes/bar/style.css"]);
    expect(detectSitePaths(alone).assetBases).toEqual([]);
  });

  test("a theme the <body> names, or an origin serving this site's core files, ties it too", () => {
    const named = pageWith(["https://cdn.example/static/themes/bar/style.css"], "home wp-theme-bar");
    expect(detectSitePaths(named).assetBases).toEqual(["https://cdn.example/static/"]);
    const withCore = homepageOnly(
      `${SITE}/`,
      `<html><head><link rel="EditURI" type="application/rsd+xml" href="${SITE}/wp/xmlrpc.php?rsd"><link rel="stylesheet" href="https://cdn.example/wp/wp-includes/css/x.css"><link rel="stylesheet" href="https://cdn.example/static/themes/bar/style.css"></head><body></body></html>`,
    );
    const paths = detectSitePaths(withCore);
    expect(paths.coreBase).toBe(`${SITE}/wp/`);
    expect(paths.found.core.map((item) => item.source)).toEqual(["core_xmlrpc_link"]);
    expect(paths.assetBases).toEqual(["https://cdn.example/static/"]);
  });

  test("core files on another origin never tell where core is on the site (Jetpack's c0.wp.com/c/<version>/)", () => {
    const page = pageWith(["https://c0.wp.com/c/6.4.2/wp-includes/css/dist/block-library/style.min.css"]);
    const paths = detectSitePaths(page);
    expect(paths.found.core).toEqual([]);
    expect(paths.coreBase).toBe(`${SITE}/`);
  });
});
