/**
 * The general rules the detection corpus (test/analyzer/corpus/, `npm run eval:detection`)
 * led to, one at a time, on markup written after what real plugins print — with a names
 * index answering from a small directory (memoryNameLookup: the keys the service stores),
 * some entries without install counts, as an index imported from a list of names has them.
 */
import { describe, expect, test } from "bun:test";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { parseChangelog } from "../../server/analyzer/detect/changelog.ts";
import { compareReleases, pickVersion } from "../../server/analyzer/detect/evidence.ts";
import { pluginFileVersions } from "../../server/analyzer/detect/finders/files.ts";
import { nameKeysOf, strictVersion } from "../../server/analyzer/detect/finders/name-keys.ts";
import { nameQuery } from "../../server/analyzer/detect/finders/observations.ts";
import { detectPlugins } from "../../server/analyzer/detect/plugins.ts";
import { detectSitePaths } from "../../server/analyzer/detect/site-paths.ts";
import { isBundledLibrary } from "../../server/analyzer/detect/version-sanity.ts";
import { detectWordPress } from "../../server/analyzer/detect/wordpress.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { SafeClient } from "../../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { gather } from "../../server/analyzer/gather/gather.ts";
import { VERSION_FILE_ORDER } from "../../server/analyzer/gather/version-files.ts";
import { probeKey } from "../../server/analyzer/probe-keys.ts";
import type { PluginInfo } from "../../shared/report.ts";
import { startSite } from "../helpers/sites.ts";
import { type DirectoryEntryFixture, memoryNameLookup } from "../helpers/wporg-directory.ts";
import { answer, homepageOnly } from "./artifacts.ts";

const ORIGIN = "http://127.0.0.1:8299";
const updated = new Date("2026-01-01T00:00:00Z");
/** Entries without installs: the index was imported from a list of names. */
const listed = (slug: string, name: string): DirectoryEntryFixture => ({ slug, name, updated });
const lookup = memoryNameLookup({
  plugins: [
    listed("powerpress", "PowerPress Podcasting plugin by Blubrry"),
    listed("optinmonster", "Popup Builder by OptinMonster &#8211; WordPress Popups for Optins"),
    listed("click-to-chat-for-whatsapp", "Click to Chat &#8211; HoliThemes"),
    listed("wp-hide-post", "WordPress Hide Posts"),
    listed("wpsso", "WPSSO Core &#8211; Complete SEO Meta Tags &amp; Schema Markup"),
    listed("beaver-builder-lite-version", "Beaver Builder Page Builder &#8211; Drag and Drop Website Builder"),
    listed("mailchimp-for-wp", "MC4WP: Mailchimp for WordPress"),
    listed("wp-cloudflare-page-cache", "Super Page Cache"),
    listed("download-monitor", "Download Monitor"),
    listed("shareaholic", "Shareaholic &#8211; Grow and Engage Your Audience"),
    listed("wp-travel", "WP Travel &#8211; Ultimate Travel Booking System"),
    listed("cookie-law-info", "CookieYes &#8211; Cookie Banner for Cookie Consent"),
    listed("popup-maker", "Popup Maker &#8211; Boost Sales, Conversions, Optins"),
    listed("wp-smushit", "Smush Image Optimization &#8211; Optimize Images, Compress &amp; Lazy Load"),
    listed("pixelyoursite", "PixelYourSite &#8211; Your smart PIXEL (TAG) &amp; API Manager"),
    listed("swift-performance-lite", "Swift Performance Lite"),
    listed("performance-lab", "Performance Lab"),
    listed("bj-lazy-load", "BJ Lazy Load"),
    listed("lazy-load-for-videos", "Lazy Load for Videos"),
    listed("studio-pixel", "Studio Pixel"),
    listed("team-rocket", "Team Rocket"),
    listed(
      "coming-soon",
      "Coming Soon Page, Maintenance Mode, Landing Pages &amp; WordPress Website Builder by SeedProd",
    ),
  ],
  themes: [],
});

async function indexed(artifacts: Artifacts): Promise<Artifacts> {
  const copy = structuredClone(artifacts);
  copy.directory = await lookup(nameQuery(copy));
  return copy;
}
function pluginsOf(artifacts: Artifacts): PluginInfo[] {
  const paths = detectSitePaths(artifacts);
  return detectPlugins(artifacts, paths, detectWordPress(artifacts, paths).version);
}
const found = async (artifacts: Artifacts) =>
  Object.fromEntries(pluginsOf(await indexed(artifacts)).map((plugin) => [plugin.slug, plugin.version]));
/** A WordPress homepage (a generator tag and a REST link) with this markup in its <head> and <body>. */
function page(head: string, body = "", headers: Record<string, string> = {}): Artifacts {
  return homepageOnly(
    `${ORIGIN}/`,
    `<!doctype html><html><head><meta name="generator" content="WordPress 6.5.3" /><link rel="https://api.w.org/" href="${ORIGIN}/wp-json/" /><link rel='stylesheet' id='theme-css' href='${ORIGIN}/wp-content/themes/twentytwentyfour/style.css?ver=1.1' media='all' />${head}</head><body class="home">${body}</body></html>`,
    { "content-type": "text/html; charset=UTF-8", ...headers },
  );
}

describe("versions as plugins write them", () => {
  test("after a bracket or a quote, before a closing one, before a /qualifier", () => {
    expect(strictVersion("[ver.")).toBeUndefined();
    expect(strictVersion("2.0.10]")).toBe("2.0.10");
    expect(strictVersion('11.7.1"')).toBe("11.7.1");
    expect(strictVersion("(0.8.7)")).toBe("0.8.7");
    expect(strictVersion("17.17.0/L*")).toBe("17.17.0");
    expect(strictVersion("PowerPress/11.7.1")).toBeUndefined();
  });

  test("a pre-release comes before its release: a tie between 1.16.3-beta and 1.16.3 goes to the release", () => {
    expect(compareReleases("1.16.3", "1.16.3-beta")).toBe(1);
    expect(compareReleases("2.0-beta2", "2.0")).toBe(-1);
    expect(compareReleases("2.1-beta", "2.0")).toBe(1);
    for (const order of [
      ["1.16.3-beta", "1.16.3"],
      ["1.16.3", "1.16.3-beta"],
    ]) {
      const signals = order.map((version) => ({ source: "x", value: version, weight: 0.5, version }));
      expect(pickVersion(signals).version).toBe("1.16.3");
    }
  });

  test("a changelog heading [3.2.10] is a release, not the 3rd of February 2010", () => {
    const changelog = "# Change Log\n\n## [3.2.10] - 2024-03-18\n\n### Fixed\n\n- Blocks.\n\n## [3.2.9] - 2023-11-20\n";
    expect(parseChangelog(changelog, true).newest?.version).toBe("3.2.10");
    // A day-first date with a four-digit year still is one.
    expect(
      parseChangelog("= 14.05.2024 - version 2.1 =\n* a\n= 01.02.2024 - version 2.0 =\n* b", true).newest?.version,
    ).toBe("2.1");
  });
});

describe("credits in comments", () => {
  test("Name/1.2.3 inside a comment, as headers write it: Blubrry PowerPress/11.7.1", async () => {
    expect(await found(page('<!-- podcast_generator="Blubrry PowerPress/11.7.1" -->'))).toEqual({
      powerpress: "11.7.1",
    });
  });

  test("'WordPress plugin v2.16.2' between the name and its version", async () => {
    const comment =
      "<!-- This site is converting visitors into subscribers and customers with the OptinMonster WordPress plugin v2.16.2 - https://optinmonster.com/ -->";
    expect(await found(page(comment))).toEqual({ optinmonster: "2.16.2" });
  });

  test("a URL between the name and its version: 'Click to Chat - https://… v4.3'", async () => {
    const comment = "<!-- Click to Chat - https://holithemes.com/plugins/whatsapp-chat/  v4.3 -->";
    expect(await found(page("", comment))).toEqual({ "click-to-chat-for-whatsapp": "4.3" });
  });

  test("a version in brackets: 'WordPress Hide Posts [ver. 2.0.10]'", async () => {
    expect(await found(page("<!-- WordPress Hide Posts [ver. 2.0.10] -->"))).toEqual({ "wp-hide-post": "2.0.10" });
  });

  test("the exact words before a version name a plugin, never only the first words of another's name", async () => {
    // "Lite" is the directory's own edition; "Performance" alone is only the start of "Performance Lab".
    expect(await found(page("", "<!-- Cached by Swift Performance Lite 2.3.6.21 -->"))).toEqual({
      "swift-performance-lite": "2.3.6.21",
    });
    expect(await found(page("", "<!-- BJ Lazy Load 1.0.9 by Bjørn Johansen -->"))).toEqual({ "bj-lazy-load": "1.0.9" });
  });

  test("a credit to people, agencies and hosts names no plugin, whatever the index holds", async () => {
    const comments = "<!-- Designed by Studio Pixel 2.0 --><!-- Made with love by Team Rocket 2.1 -->";
    expect(await found(page("", comments))).toEqual({});
  });
});

describe("names in generators and metas", () => {
  test("a generator's version with a build qualifier: 'WPSSO Core 17.17.0/L*'", async () => {
    expect(await found(page('<meta name="generator" content="WPSSO Core 17.17.0/L*"/>'))).toEqual({ wpsso: "17.17.0" });
  });

  test("the first words of a name with a version, when one plugin alone has them and installs are unknown", async () => {
    expect(await found(page('<meta name="built-with" content="Beaver Builder 2.8.1.2">'))).toEqual({
      "beaver-builder-lite-version": "2.8.1.2",
    });
  });

  test("a version meta in the plugin's namespace: shareaholic:wp_version, wp-travel:version", async () => {
    const metas =
      "<meta name='shareaholic:site_name' content='Corpus' /><meta name='shareaholic:wp_version' content='9.7.12' /><meta property=\"wp-travel:version\" content=\"8.9.0\" />";
    expect(await found(page(metas))).toEqual({ shareaholic: "9.7.12", "wp-travel": "8.9.0" });
  });

  test("a namespaced version equal to WordPress's is WordPress's", async () => {
    expect(await found(page("<meta name='shareaholic:wp_version' content='6.5.3' />"))).toEqual({ shareaholic: null });
  });
});

describe("identifiers", () => {
  test("spelt like the plugin's name in the index: _mc4wp_version, X-Super-Page-Cache-Version", async () => {
    const input = '<form><input type="hidden" name="_mc4wp_version" value="4.9.13" /></form>';
    expect(await found(page("", input, { "x-super-page-cache-version": "4.7.8" }))).toEqual({
      "mailchimp-for-wp": "4.9.13",
      "wp-cloudflare-page-cache": "4.7.8",
    });
  });

  test("the first word all of a plugin's handles share: dlm-version beside the dlm-xhr script of download-monitor", async () => {
    const site = page(
      '<meta name="dlm-version" content="4.9.4">',
      `<script src="${ORIGIN}/wp-content/plugins/download-monitor/assets/js/dlm-xhr.min.js?ver=6.5.3" id="dlm-xhr-js"></script>`,
    );
    expect(await found(site)).toEqual({ "download-monitor": "4.9.4" });
    // Without the plugin's script, the abbreviation names nothing.
    expect(await found(page('<meta name="dlm-version" content="4.9.4">'))).toEqual({});
  });
});

describe("inline scripts", () => {
  test("a `_version` key of the object printed beside a plugin's handle (CookieYes' _ckyConfig)", async () => {
    const script =
      '<script id="cookie-law-info-js-extra">var _ckyConfig = {"_ipData":[],"_activeLaw":"gdpr","_version":"3.2.2","_logConsent":"1"};</script>';
    expect(await found(page(script))).toEqual({ "cookie-law-info": "3.2.2" });
  });

  test("a handle that is the plugin's slug and one word more: popup-maker-site", async () => {
    const script = `<script id="popup-maker-site-js-extra">var pum_vars = {"version":"1.19.0","ajaxurl":"\\/wp-admin\\/admin-ajax.php"};</script><script src="${ORIGIN}/wp-content/uploads/pum/pum-site-scripts.js?ver=1.19.0" id="popup-maker-site-js"></script>`;
    expect(await found(page("", script))).toEqual({ "popup-maker": "1.19.0" });
  });

  test("`<abbreviation>_version` beside a plugin's own script is that plugin's; a library's version key never", async () => {
    const smush = `<script id="smush-lazy-load-js-before">var wp_smush_version = '3.16.2';</script><script src="${ORIGIN}/wp-content/plugins/wp-smushit/app/assets/js/smush-lazy-load.min.js" id="smush-lazy-load-js"></script>`;
    expect(await found(page("", smush))).toEqual({ "wp-smushit": "3.16.2" });
    const jquery = `<script id="acme-slider-js-before">var jquery_version = '3.7.1';</script><script src="${ORIGIN}/wp-content/plugins/acme-slider/slider.js" id="acme-slider-js"></script>`;
    expect(await found(page("", jquery))).toEqual({ "acme-slider": null });
  });

  test("a console banner with a name the index knows: console.log('PixelYourSite Free version 9.5.5')", async () => {
    const script = `<script type="text/javascript" id="pys-version-script">console.log('PixelYourSite Free version 9.5.5');</script>`;
    expect(await found(page(script))).toEqual({ pixelyoursite: "9.5.5" });
    // Other strings with versions are not banners.
    expect(await found(page("<script>var notice = 'PixelYourSite Free version 9.5.5 is required';</script>"))).toEqual(
      {},
    );
  });
});

describe("asset versions", () => {
  test("a bundled library's file states the library's release", () => {
    for (const path of [
      "/wp-content/plugins/elementor/assets/lib/swiper/v8/css/swiper.min.css",
      "/wp-content/plugins/easy-table-of-contents/vendor/js-cookie/js.cookie.min.js",
      "/wp-content/plugins/photo-gallery/js/jquery.sumoselect.min.js",
      "/wp-content/plugins/wp-search-with-algolia/js/algoliasearch/dist/algoliasearch-lite.umd.js",
      "/wp-content/plugins/responsive-lightbox/assets/infinitescroll/infinite-scroll.pkgd.min.js",
      "/wp-content/plugins/the-events-calendar/common/src/resources/js/tribe-common.min.js",
    ])
      expect(isBundledLibrary(path), path).toBe(true);
    for (const path of [
      "/wp-content/plugins/elementor/assets/css/frontend-lite.min.css",
      "/wp-content/plugins/acme/includes/common/js/acme.js",
      "/wp-content/plugins/library-manager/js/front.js",
    ])
      expect(isBundledLibrary(path), path).toBe(false);
  });

  test("the plugin's own files win over the libraries it bundles, however many", async () => {
    const tec = `${ORIGIN}/wp-content/plugins/the-events-calendar`;
    const links = [
      `${tec}/src/resources/css/tribe-events-single-skeleton.min.css?ver=6.5.0`,
      `${tec}/common/src/resources/css/common-skeleton.min.css?ver=5.3.0`,
      `${tec}/common/src/resources/css/tooltip.min.css?ver=5.3.0`,
      `${tec}/common/src/resources/js/tribe-common.min.js?ver=5.3.0`,
    ]
      .map((href) => `<link rel='stylesheet' href='${href}' media='all' />`)
      .join("");
    const plugin = pluginsOf(await indexed(page(links)))[0];
    expect(plugin).toMatchObject({ slug: "the-events-calendar", version: "6.5.0" });
    expect(plugin?.evidence.map((item) => item.value)).toContain(
      "/wp-content/plugins/the-events-calendar/common/src/resources/css/common-skeleton.min.css?ver=5.3.0 (not the plugin's version: a file of a library the plugin bundles)",
    );
  });
});

describe("where the site's files are", () => {
  test("a link to another WordPress site's plugin file is not an asset of this site", async () => {
    const body = '<p><a href="https://otherbakery.example/wp-content/plugins/bakery-menu/menu.pdf">their menu</a></p>';
    expect(await found(page("", body))).toEqual({});
    expect(detectSitePaths(page("", body)).assetBases).toEqual([]);
  });

  test("wp-content/languages/plugins/ holds translations: it is not the content directory", () => {
    const head = `<script src="${ORIGIN}/wp-content/languages/plugins/js/en_GB-hash.json?ver=2.1"></script>`;
    const paths = detectSitePaths(page(head));
    expect(paths.contentBase).toBe(`${ORIGIN}/wp-content/`);
  });
});

describe("versions from files", () => {
  const site = (files: Record<string, string>) => {
    const artifacts = page("");
    for (const [key, body] of Object.entries(files))
      artifacts.probes[key as keyof Artifacts["probes"]] = answer(`${ORIGIN}/${key}`, 200, body, {
        "content-type": "text/plain",
      });
    return artifacts;
  };
  const versionOf = (slug: string, files: Record<string, string>, directoryName: string | null = null) =>
    pickVersion(
      pluginFileVersions(site(files), slug, { paths: null, displayName: null, pageVotes: [], directoryName }).signals,
    ).version;

  test("changelogs and templates under the other names and places plugins use", () => {
    const changelog = "= 2.4.1 =\n* Fix.\n\n= 2.4.0 =\n* New.";
    for (const kind of [
      "plugin_changelog_lower_md",
      "plugin_changelog_upper_txt",
      "plugin_changes_md",
      "plugin_changes_txt",
    ] as const) {
      expect(versionOf("acme", { [probeKey(kind, "acme")]: changelog }), kind).toBe("2.4.1");
      expect(VERSION_FILE_ORDER.aggressive).toContain(kind);
    }
    const template = 'msgid ""\nmsgstr ""\n"Project-Id-Version: Acme 3.0.2\\n"\n';
    for (const kind of ["plugin_pot_i18n", "plugin_po_en_us"] as const) {
      expect(versionOf("acme", { [probeKey(kind, "acme")]: template }), kind).toBe("3.0.2");
      expect(VERSION_FILE_ORDER.aggressive).toContain(kind);
    }
    // Passive reports read no more files than before.
    expect(VERSION_FILE_ORDER.passive).toEqual(["plugin_pot", "plugin_changelog", "plugin_changelog_md"]);
  });

  test("a template named after the brand in the directory's name counts: SeedProd Lite for coming-soon", () => {
    const template = 'msgid ""\nmsgstr ""\n"Project-Id-Version: SeedProd Lite 6.17.2\\n"\n';
    const files = { [probeKey("plugin_pot", "coming-soon")]: template };
    expect(versionOf("coming-soon", files)).toBeNull();
    expect(
      versionOf(
        "coming-soon",
        files,
        "Coming Soon Page, Maintenance Mode, Landing Pages & WordPress Website Builder by SeedProd",
      ),
    ).toBe("6.17.2");
  });
});

describe("a plugin only the REST API names, passively", () => {
  test("the names index is asked about the namespaces once the REST index is in, then the plugin's files are read", async () => {
    let origin = "";
    const site = startSite({
      "/": () =>
        new Response(
          `<!doctype html><html><head><meta name="generator" content="WordPress 6.5.3" /><link rel="https://api.w.org/" href="${origin}/wp-json/" /></head><body class="home"></body></html>`,
          { headers: { "content-type": "text/html" } },
        ),
      "/wp-json/": () =>
        Response.json({ name: "x", namespaces: ["oembed/1.0", "wp/v2", "two-factor/1.0"], routes: {} }),
      "/wp-content/plugins/two-factor/CHANGELOG.md": () =>
        new Response(
          "# Changelog\n\n## [0.9.1](https://github.com/WordPress/two-factor/compare/0.9.0...0.9.1) (2024-04-03)\n\n## [0.9.0] (2024-03-20)\n",
          {
            headers: { "content-type": "text/markdown" },
          },
        ),
    });
    origin = site.url.replace(/\/$/, "");
    const policy = new TargetPolicy(["127.0.0.1"]);
    const agent = createSafeAgent(policy);
    const names = memoryNameLookup({ plugins: [listed("two-factor", "Two Factor")], themes: [] });
    try {
      const client = new SafeClient(agent, policy, AbortSignal.timeout(20_000), "wpreport-test");
      const artifacts = await gather(site.url, client, { names });
      expect(pluginsOf(artifacts).map((plugin) => [plugin.slug, plugin.version])).toEqual([["two-factor", "0.9.1"]]);
      expect(site.hits).toContain("GET /wp-content/plugins/two-factor/readme.txt");
      expect(site.hits).toContain("GET /wp-content/plugins/two-factor/CHANGELOG.md");
      // Without the names index the namespace names no plugin, and nothing is read.
      const before = site.hits.length;
      const without = await gather(
        site.url,
        new SafeClient(agent, policy, AbortSignal.timeout(20_000), "wpreport-test"),
      );
      expect(pluginsOf(without)).toEqual([]);
      expect(site.hits.slice(before).filter((hit) => hit.includes("two-factor"))).toEqual([]);
    } finally {
      site.stop();
      await agent.close();
    }
  });
});

test("the first words of another plugin's name without a version leave the shorter name free: 'Cache served by breeze CACHE'", async () => {
  const names = memoryNameLookup({
    plugins: [
      listed("breeze", "Breeze &#8211; WordPress Cache Plugin"),
      listed("breeze-cache-purger", "Breeze Cache Purger"),
    ],
    themes: [],
  });
  const artifacts = page(
    "",
    "<!-- Cache served by breeze CACHE (Desktop) - Last modified: Tue, 14 May 2024 10:22:11 GMT -->",
  );
  artifacts.directory = await names(nameQuery(artifacts));
  expect(pluginsOf(artifacts).map((plugin) => plugin.slug)).toEqual(["breeze"]);
});

test("the brand after a directory name's dash is a name of it, when spelt like one: 'Comments – wpDiscuz'", async () => {
  expect(nameKeysOf("Comments \u2013 wpDiscuz")).toContainEqual({ key: "wpdiscuz", kind: "short" });
  expect(nameKeysOf("Paid Membership, User Profile & Restrict Content \u2013 ProfilePress")).toContainEqual({
    key: "profilepress",
    kind: "short",
  });
  // A tagline is not a brand.
  expect(nameKeysOf("Easy FancyBox \u2013 WordPress Lightbox Plugin").map((key) => key.key)).not.toContain(
    "wordpress lightbox plugin",
  );
  expect(nameKeysOf("Akismet Anti-spam: Spam Protection").map((key) => key.key)).not.toContain("spam protection");
  const names = memoryNameLookup({
    plugins: [listed("wp-user-avatar", "Paid Membership, User Profile &amp; Restrict Content &#8211; ProfilePress")],
    themes: [],
  });
  const artifacts = page('<meta name="profilepress-version" content="4.15.8">');
  artifacts.directory = await names(nameQuery(artifacts));
  expect(pluginsOf(artifacts).map((plugin) => [plugin.slug, plugin.version])).toEqual([["wp-user-avatar", "4.15.8"]]);
});

test("the author between a name and its marked version: 'Foo Gallery by FooPlugins v2.1.0', '… by ExpressTech - version 2.1.1'", async () => {
  const names = memoryNameLookup({
    plugins: [listed("foogallery", "FooGallery"), listed("foo-gallery", "Foo Gallery")],
    themes: [],
  });
  const artifacts = page("", "<!-- Foo Gallery by FooPlugins v2.1.0 --><!-- Foo Gallery by the 2024 team -->");
  artifacts.directory = await names(nameQuery(artifacts));
  expect(pluginsOf(artifacts).map((plugin) => [plugin.slug, plugin.version])).toEqual([["foo-gallery", "2.1.0"]]);
  const marked = page("", "<!-- Foo Gallery by ExpressTech - version 2.1.1 -->");
  marked.directory = await names(nameQuery(marked));
  expect(pluginsOf(marked).map((plugin) => [plugin.slug, plugin.version])).toEqual([["foo-gallery", "2.1.1"]]);
  // A bare number after the author is not the plugin's version.
  const bare = page("", "<!-- Foo Gallery by Team 2024.1 -->");
  bare.directory = await names(nameQuery(bare));
  expect(pluginsOf(bare)).toEqual([]);
});
