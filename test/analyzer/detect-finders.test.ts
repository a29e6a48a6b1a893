/**
 * The general finders (server/analyzer/detect/finders/) on markup written after what real
 * plugins print — Yoast SEO, MonsterInsights, Elementor, WooCommerce, Site Kit, WPML,
 * LiteSpeed Cache, W3 Total Cache, Contact Form 7, Cookie Notice, Simple Share Buttons
 * Adder, AdRotate, WP Meteor… — with the WordPress.org names index answering from the
 * directory fixture (test/helpers/wporg-directory.ts: marketing names, entities, look-alike
 * names), on artifacts captured from test/analyzer/sites/self-naming and no-signal, then on
 * snippets, one finder and one rule at a time.
 */
import { describe, expect, test } from "bun:test";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { Directory, MAX_QUERY_NAMES, MAX_QUERY_SLUGS } from "../../server/analyzer/detect/finders/directory.ts";
import { nameQuery } from "../../server/analyzer/detect/finders/observations.ts";
import { detectPlugins } from "../../server/analyzer/detect/plugins.ts";
import { detectSitePaths } from "../../server/analyzer/detect/site-paths.ts";
import { detectWordPress } from "../../server/analyzer/detect/wordpress.ts";
import type { PluginInfo } from "../../shared/report.ts";
import { type DirectoryEntryFixture, directoryFixture, memoryNameLookup } from "../helpers/wporg-directory.ts";
import { homepageOnly, loadArtifacts, variant } from "./artifacts.ts";

const ORIGIN = "http://127.0.0.1:8299";
const fixture = directoryFixture();
const lookup = memoryNameLookup(fixture);

/** Artifacts with the names index's answer, as analyze() leaves them after gather. */
async function indexed(artifacts: Artifacts, names = lookup): Promise<Artifacts> {
  const copy = structuredClone(artifacts);
  copy.directory = await names(nameQuery(copy));
  return copy;
}
function pluginsOf(artifacts: Artifacts): PluginInfo[] {
  const paths = detectSitePaths(artifacts);
  return detectPlugins(artifacts, paths, detectWordPress(artifacts, paths).version);
}
const bySlug = (plugins: PluginInfo[]) => new Map(plugins.map((plugin) => [plugin.slug, plugin]));
const versions = (plugins: PluginInfo[]) =>
  Object.fromEntries(
    plugins.map((plugin) => [plugin.slug, plugin.version]).sort(([a], [b]) => String(a).localeCompare(String(b))),
  );
const sources = (plugin: PluginInfo | undefined) => plugin?.evidence.map((item) => item.source) ?? [];
/** A WordPress homepage (a generator tag and a REST link) with this markup in its <head> and <body>. */
function page(head: string, body = "", headers: Record<string, string> = {}): Artifacts {
  return homepageOnly(
    `${ORIGIN}/`,
    `<!doctype html><html><head><meta name="generator" content="WordPress 6.5.3" /><link rel="https://api.w.org/" href="${ORIGIN}/wp-json/" />${head}</head><body class="home">${body}</body></html>`,
    { "content-type": "text/html; charset=UTF-8", ...headers },
  );
}

describe("a site whose plugins name themselves (test/analyzer/sites/self-naming)", async () => {
  const site = loadArtifacts("site-self-naming");
  const plugins = pluginsOf(await indexed(site));
  const found = bySlug(plugins);

  test("every plugin it shows, each at its version, and nothing else", () => {
    expect(versions(plugins)).toEqual({
      "acme-toolkit": "2.4.1",
      adrotate: "5.12.4",
      "breeze-forms": "1.2.0",
      "contact-form-7": "5.8.5",
      "cookie-notice": "2.4.12",
      elementor: "3.18.3",
      "flavor-slider": "3.1.4",
      "google-analytics-for-wordpress": "8.23.1",
      "google-site-kit": "1.118.0",
      "litespeed-cache": "6.0.0.1",
      "quick-faq": null,
      "reading-time-wp": "2.0.16",
      "redis-cache": null,
      // <meta name="framework" content="Redux 4.4.11">: the first word of "Redux Framework", with a version.
      "redux-framework": "4.4.11",
      "simple-share-buttons-adder": "8.4.11",
      "sitepress-multilingual-cms": "4.6.8",
      "tidy-tables": "1.7.2",
      "w3-total-cache": "2.7.0",
      woocommerce: "8.4.0",
      "wordpress-seo": "22.4",
      "wp-meteor": "3.4.0",
    });
  });

  test("comments: a credit phrase, 'Name (X)' and 'Name plugin vX' openings, 'using Name vX', a directory link", () => {
    expect(found.get("redis-cache")).toMatchObject({ name: "Redis Object Cache", confidence: 76 });
    expect(found.get("redis-cache")?.evidence).toEqual([
      {
        source: "html_comment",
        value: "Performance optimized by Redis Object Cache. Learn more: https://wprediscache.com",
      },
    ]);
    expect(sources(found.get("simple-share-buttons-adder"))).toEqual(["html_comment"]);
    expect(found.get("cookie-notice")?.evidence[0]?.value).toBe(
      "Cookie Notice plugin v2.4.12 by Hu-manity.co https://hu-manity.co/",
    );
    // "AdRotate" is not the directory's name ("AdRotate Banner Manager – …") but is its slug.
    expect(found.get("adrotate")).toMatchObject({
      name: "AdRotate Banner Manager \u2013 The only ad manager you\u2019ll need",
    });
    expect(found.get("wp-meteor")?.evidence[0]?.value).toContain("https://wordpress.org/plugins/wp-meteor/");
  });

  test("metas: generator tags through the signature table, a version meta named after the plugin", () => {
    expect(sources(found.get("google-site-kit"))).toEqual(["meta_generator"]);
    expect(found.get("tidy-tables")?.evidence).toEqual([
      { source: "meta_tag", value: '<meta name="tidy-tables-version" content="1.7.2">' },
    ]);
  });

  test("inline scripts: the version in the object printed beside Elementor's handle; a slug_version variable", () => {
    expect(found.get("elementor")?.evidence).toContainEqual({
      source: "inline_script",
      value: 'elementorFrontendConfig = {…"version":"3.18.3"…}',
    });
    expect(found.get("acme-toolkit")?.evidence).toContainEqual({
      source: "inline_script",
      value: 'acme_toolkit_version = "2.4.1"',
    });
  });

  test("markup: Contact Form 7's hidden _wpcf7_version (wpcf7 is the object beside its handle), data-* versions", () => {
    expect(found.get("contact-form-7")?.evidence).toContainEqual({
      source: "hidden_input",
      value: '<input type="hidden" name="_wpcf7_version" value="5.8.5">',
    });
    expect(found.get("flavor-slider")?.evidence).toEqual([
      { source: "data_attribute", value: 'data-flavor-slider-version="3.1.4"' },
    ]);
    expect(found.get("breeze-forms")?.evidence).toEqual([
      { source: "data_attribute", value: 'breeze-forms-app data-version="1.2.0"' },
    ]);
  });

  test("headers and parameters: a credit header, a version header, ?v= on the plugin's own file, a REST namespace", () => {
    expect(found.get("w3-total-cache")?.evidence).toEqual([
      { source: "header", value: "x-powered-by: PHP/8.2.20, W3 Total Cache/2.7.0" },
    ]);
    expect(found.get("reading-time-wp")?.evidence).toContainEqual({
      source: "asset_param",
      value: "/wp-content/plugins/reading-time-wp/css/rtwp.css?v=2.0.16",
      url: `${ORIGIN}/wp-content/plugins/reading-time-wp/css/rtwp.css?v=2.0.16`,
    });
    expect(found.get("quick-faq")).toMatchObject({ name: "Quick FAQ", confidence: 60 });
    expect(found.get("quick-faq")?.evidence).toEqual([
      { source: "rest_namespace", value: "quick-faq/v1", url: `${ORIGIN}/wp-json/` },
    ]);
  });

  test("a name in no index counts only because two independent classes name it, weighs less and says why", () => {
    const acme = found.get("acme-toolkit");
    expect(sources(acme)).toEqual(["header", "inline_script", "inferred_slug"]);
    expect(acme?.confidence).toBe(63);
    expect(acme?.evidence.at(-1)?.value).toBe(
      '"acme-toolkit" is in no names index; slug acme-toolkit taken from it because header and inline_script evidence name it independently',
    );
    // One of the two alone names nothing.
    const headerOnly = variant(site, { body: site.homepage.body.replace('var acme_toolkit_version = "2.4.1";', "") });
    return indexed(headerOnly).then((artifacts) =>
      expect(bySlug(pluginsOf(artifacts)).has("acme-toolkit")).toBe(false),
    );
  });

  test("the theme's own comment and data, WordPress core, GTM, a one-class name and a namespace no index knows are no plugins", () => {
    for (const slug of [
      "flavorite",
      "redux",
      "mystery-tool",
      "google-tag-manager",
      "gtm-basic",
      "jquery",
      "wordpress",
    ]) {
      expect(found.has(slug), slug).toBe(false);
    }
  });

  test("without the names index: the signature table, the page's own files and handles, and links still name theirs", () => {
    const without = versions(pluginsOf(site));
    for (const slug of [
      "contact-form-7",
      "elementor",
      "wordpress-seo",
      "reading-time-wp",
      "acme-toolkit",
      "wp-meteor",
    ]) {
      expect(without[slug], slug).toBe(versions(plugins)[slug] as string);
    }
    for (const slug of [
      "tidy-tables",
      "adrotate",
      "cookie-notice",
      "flavor-slider",
      "breeze-forms",
      "quick-faq",
      "redis-cache",
    ]) {
      expect(Object.hasOwn(without, slug), slug).toBe(false);
    }
  });

  test("one names query per report, bounded", () => {
    const query = nameQuery(site);
    expect(query.names).toContain("redis object cache");
    expect(query.names).toContain("simple share buttons adder");
    expect(query.slugs).toEqual(expect.arrayContaining(["tidy-tables", "flavor-slider", "quick-faq", "adrotate"]));
    expect(query.names.length).toBeLessThanOrEqual(MAX_QUERY_NAMES);
    expect(query.slugs.length).toBeLessThanOrEqual(MAX_QUERY_SLUGS);
  });
});

describe("a site with none of these signals (test/analyzer/sites/no-signal)", () => {
  test("no plugin, with the names index or without: theme comments, core scripts, analytics, jQuery", async () => {
    const site = loadArtifacts("site-no-signal");
    expect(detectWordPress(site, detectSitePaths(site)).detected).toBe(true);
    expect(pluginsOf(site)).toEqual([]);
    expect(pluginsOf(await indexed(site))).toEqual([]);
  });
});

describe("one rule at a time", () => {
  test("versions are strict: no bare numbers, dates, timestamps, hashes, WordPress's or jQuery's version", async () => {
    const artifacts = await indexed(
      page(
        `<meta name="tidy-tables-version" content="2024.05.14" /><script>var flavor_slider_version = "1716912345"; var reading_time_wp_version = "a3f9c1e"; var jquery_version = "3.7.1"; var wp_version = "6.5.3";</script>`,
        "<!-- Simple Share Buttons Adder v8 --><!-- Cookie Notice 2024-06-05 -->",
      ),
    );
    expect(pluginsOf(artifacts).filter((plugin) => plugin.version !== null)).toEqual([]);
  });

  test("a plugin's version equal to this site's WordPress version is not taken (more likely WordPress's)", async () => {
    const artifacts = await indexed(
      page('<meta name="tidy-tables-version" content="6.5.3" /><script>var flavor_slider_version = "3.1.4";</script>'),
    );
    expect(versions(pluginsOf(artifacts))).toEqual({ "flavor-slider": "3.1.4", "tidy-tables": null });
  });

  test("an object's version belongs to whoever ships the script beside it: a theme's and core's are no plugin's", async () => {
    const artifacts = await indexed(
      page(
        `<link rel="stylesheet" id="astra-theme-css-css" href="${ORIGIN}/wp-content/themes/astra/assets/css/main.min.css?ver=4.6.3" />
<script id="astra-theme-js-js-extra">var astra = {"version":"4.6.3","break_point":"921"};</script>
<script src="${ORIGIN}/wp-content/themes/astra/assets/js/frontend.min.js?ver=4.6.3" id="astra-theme-js-js"></script>
<script id="wp-util-js-extra">var tidy_tables_params = {"version":"6.5.3"};</script>
<script src="${ORIGIN}/wp-includes/js/wp-util.min.js?ver=6.5.3" id="wp-util-js"></script>`,
        "<!-- Astra 4.6.3 -->",
      ),
    );
    expect(pluginsOf(artifacts)).toEqual([]);
  });

  test("a localized object named after a plugin of the index: var foo_bar_params = {version}", async () => {
    const artifacts = await indexed(
      page(
        `<script>var flavor_slider_params = {"ajax_url":"\\/wp-admin\\/admin-ajax.php","version":"3.1.4","i18n":{"version":"9.9"}};</script>`,
      ),
    );
    expect(pluginsOf(artifacts).map((plugin) => [plugin.slug, plugin.version])).toEqual([["flavor-slider", "3.1.4"]]);
  });

  test("a name two directory plugins share names neither; the directory's theme names no plugin", async () => {
    const artifacts = await indexed(page("", "<!-- Smart Slider 3.5.1 --><!-- Powered by Astra 4.6.3 -->"));
    expect(pluginsOf(artifacts)).toEqual([]);
  });

  test("a comment and a header naming the same unknown plugin make a slug; a comment and the REST namespace too", async () => {
    const both = await indexed(
      page("", "<!-- Powered by Lemon Press v1.4.2 -->", { "x-powered-by": "Lemon Press/1.4.2" }),
    );
    expect(bySlug(pluginsOf(both)).get("lemon-press")).toMatchObject({ version: "1.4.2", confidence: 64 });
    const rest = page("", "<!-- Powered by Lemon Press v1.4.2 -->");
    rest.probes.rest_root = {
      url: `${ORIGIN}/wp-json/`,
      status: 200,
      headers: { "content-type": "application/json" },
      set_cookies: [],
      body: '{"name":"x","namespaces":["oembed/1.0","lemon-press/v1","wp/v2"],"routes":{}}',
      truncated: false,
    };
    const backed = bySlug(pluginsOf(await indexed(rest))).get("lemon-press");
    expect(backed?.version).toBe("1.4.2");
    expect(backed?.evidence.at(-1)?.value).toContain("the REST API lists a namespace of that name");
  });

  test("comments as plugins write them: a library after 'using' is not the plugin; '… by Name vX'; fillers; '&'", async () => {
    const artifacts = await indexed(
      page(
        "",
        [
          "<!-- Easy FancyBox 1.8.18 using FancyBox 1.3.28 - RavanH (http://status301.net/wordpress-plugins/easy-fancybox/) -->",
          "<!-- Analytics by WP-Statistics v12.6.13 - https://wp-statistics.com/ -->",
          "<!-- WP Google Analytics Events | v 2.5.6 | https://example.org -->",
          "<!-- Schema & Structured Data for WP v1.9.92 - -->",
        ].join(""),
      ),
    );
    expect(versions(pluginsOf(artifacts))).toEqual({
      "easy-fancybox": "1.8.18",
      "schema-and-structured-data-for-wp": "1.9.92",
      "wp-google-analytics-events": "2.5.6",
      "wp-statistics": "12.6.13",
    });
  });

  test("'Name X.Y' anywhere in a comment counts for a name an index knows; libraries a theme credits never", async () => {
    const artifacts = await indexed(
      page(
        "",
        [
          "<!-- This page was served in 0.21 s by Comet Cache 2.1.4 (disk) -->",
          "<!-- icons: Font Awesome 4.7.0, slides: Owl Carousel 2.3.4 -->",
          "<!-- built on Lemon Press 1.4.2 -->",
        ].join(""),
      ),
    );
    expect(versions(pluginsOf(artifacts))).toEqual({ "comet-cache": "2.1.4" });
  });

  test("the first word of a name counts only with a version after it, and one plugin dominating the word", async () => {
    const bare = await indexed(page('<meta name="framework" content="Redux" />', "<!-- Powered by Redux -->"));
    expect(pluginsOf(bare)).toEqual([]);
    const lookalikes = memoryNameLookup({
      plugins: [
        ...fixture.plugins,
        { slug: "redux-toolkit-wp", name: "Redux Toolkit WP", installs: 500_000, updated: new Date() },
      ],
      themes: [],
    });
    const ambiguous = await indexed(page('<meta name="framework" content="Redux 4.4.11" />'), lookalikes);
    expect(pluginsOf(ambiguous)).toEqual([]);
  });

  test("a class whose observations disagree states no version", async () => {
    const artifacts = await indexed(
      page('<meta name="tidy-tables-version" content="1.7.2" /><meta name="tidy_tables_version" content="1.8.0" />'),
    );
    expect(bySlug(pluginsOf(artifacts)).get("tidy-tables")).toMatchObject({ version: null });
  });

  test("cache and version headers of servers, proxies and hosts are never plugins; a known plugin's are", async () => {
    const infrastructure = await indexed(
      page("", "", {
        "x-cache": "HIT",
        "x-proxy-cache": "HIT",
        "x-nginx-cache": "MISS",
        "x-kinsta-cache": "HIT",
        "x-aspnet-version": "4.0.30319",
        "x-varnish-cache": "1",
      }),
    );
    expect(pluginsOf(infrastructure)).toEqual([]);
    const plugin = await indexed(
      page("", "", { "x-comet-cache": "HIT", "x-tidy-tables-version": "1.7.2", "x-redis-cache": "HIT" }),
    );
    // X-Redis-Cache could be the server's own Redis as well as the plugin: not read.
    expect(versions(pluginsOf(plugin))).toEqual({ "comet-cache": null, "tidy-tables": "1.7.2" });
  });

  test("a bare data-version counts only on a known plugin's element", async () => {
    const artifacts = await indexed(
      page(
        "",
        '<div class="wp-block-group" data-version="1.0.2"></div><div class="mystery-box" data-version="2.0.0"></div><div class="tidy-tables-wrapper" data-version="1.7.2"></div>',
      ),
    );
    expect(versions(pluginsOf(artifacts))).toEqual({ "tidy-tables": "1.7.2" });
  });

  test("a hostile page of thousands of names asks a bounded question and names nothing", async () => {
    const comments = Array.from(
      { length: 400 },
      (_, n) => `<!-- Powered by Plugin Number ${n} Extra Words Here v1.${n} -->`,
    ).join("");
    const scripts = `<script>${Array.from({ length: 3000 }, (_, n) => `var thing_${n}_version = "1.${n}";`).join("")}</script>`;
    const artifacts = page(scripts, comments);
    const query = nameQuery(artifacts);
    expect(query.names.length).toBeLessThanOrEqual(MAX_QUERY_NAMES);
    expect(query.slugs.length).toBeLessThanOrEqual(MAX_QUERY_SLUGS);
    // Comments and scripts each name these, but no two classes name the same one.
    expect(pluginsOf(await indexed(artifacts))).toEqual([]);
  });
});

describe("choosing among directory entries (Directory)", () => {
  const hit = (slug: string, full: boolean, installs: number | null, type: "plugin" | "theme" = "plugin") => ({
    type,
    slug,
    kind: full ? ("full" as const) : ("short" as const),
    installs,
  });
  const directory = new Directory({
    available: true,
    names: {
      "foo gallery": [hit("foo-gallery-lite", false, 50_000), hit("foo-gallery", true, 100)],
      "bar slider": [hit("bar-slider", false, 200_000), hit("bar-slider-pro-addon", false, 9_000)],
      "baz forms": [hit("baz-forms-a", false, 5_000), hit("baz-forms-b", false, 4_000)],
      "qux seo": [hit("qux-seo-one", false, 300), hit("qux-seo-two", false, 10)],
      astra: [hit("astra", true, 1_000_000, "theme")],
    },
    slugs: {},
  });
  test("a whole name wins over short forms; then the slug spelt like the name; then ten times the installs", () => {
    expect(directory.plugin("Foo Gallery")).toEqual({ slug: "foo-gallery", kind: "full" });
    expect(directory.plugin("Bar Slider")).toEqual({ slug: "bar-slider", kind: "short" });
    expect(directory.plugin("Baz Forms")).toBeNull();
    // Dominant, but too little installed to trust the margin.
    expect(directory.plugin("Qux SEO")).toBeNull();
    expect(directory.plugin("Astra")).toBeNull();
    expect(directory.themeOnly("Astra")).toBe(true);
  });

  test("the index of a site nobody asked about knows nothing", () => {
    const empty = new Directory();
    expect(empty.available).toBe(false);
    expect(empty.plugin("Yoast SEO")).toBeNull();
    expect(empty.slug("plugin", "toString")).toBeUndefined();
  });
});

test("directory fixture names decode like the real directory's (a sanity check of the fixture)", () => {
  const entry = fixture.plugins.find((item: DirectoryEntryFixture) => item.slug === "adrotate");
  expect(entry?.name).toContain("&#8211;");
});
