/**
 * A credit names the plugin it names (docs/detection.md, "Whose name a credit is"), on saved
 * artifacts with a names index answering from a small directory: only a whole name counts,
 * "X for Y" / "requires Y" / "compatible with Y" credit X, a directory link is no proof of
 * installation, a credit beside a plugin's own files is that plugin's, and a folder spelt
 * with capitals is one plugin with the directory's slug that names it.
 */
import { describe, expect, test } from "bun:test";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { commentsBesideAssets } from "../../server/analyzer/detect/finders/beside.ts";
import { hostMarked, longerNameAfter, longerNameBefore } from "../../server/analyzer/detect/finders/credit-grammar.ts";
import { nameQuery } from "../../server/analyzer/detect/finders/observations.ts";
import { detectPlugins } from "../../server/analyzer/detect/plugins.ts";
import { detectSitePaths } from "../../server/analyzer/detect/site-paths.ts";
import { detectWordPress } from "../../server/analyzer/detect/wordpress.ts";
import { type DirectoryEntryFixture, memoryNameLookup } from "../helpers/wporg-directory.ts";
import { homepageOnly } from "./artifacts.ts";

const ORIGIN = "http://127.0.0.1:8298";
const updated = new Date("2026-01-01T00:00:00Z");
const listed = (slug: string, name: string, installs?: number): DirectoryEntryFixture => ({
  slug,
  name,
  updated,
  ...(installs ? { installs } : {}),
});
const lookup = memoryNameLookup({
  plugins: [
    listed("woocommerce", "WooCommerce", 5_000_000),
    listed("elementor", "Elementor Website Builder &#8211; More Than Just a Page Builder", 5_000_000),
    listed("contact-form-7", "Contact Form 7", 5_000_000),
    listed("advanced-custom-fields", "Advanced Custom Fields (ACF&#174;)", 2_000_000),
    listed("the-events-calendar", "The Events Calendar", 700_000),
    listed("simple-events-calendar", "Simple Events Calendar", 300),
    listed("shopfront-payments-for-woocommerce", "Shopfront Payments for WooCommerce", 2_000),
    listed("quick-gallery-grid", "Quick Gallery Grid", 900),
    listed("gallery-grid", "Gallery Grid", 4_000),
    listed("social-warfare", "Social Warfare", 60_000),
    listed("wp-meteor", "WP Meteor Website Speed Optimization Addon", 20_000),
    listed("mailchimp-for-wp", "MC4WP: Mailchimp for WordPress", 2_000_000),
    listed("acme-forms", "Acme Forms", 1_000),
    listed("wp-statistics", "WP Statistics &#8211; Simple, privacy-friendly Google Analytics alternative", 600_000),
    listed("custom-facebook-feed", "Smash Balloon Social Post Feed &#8211; Simple Social Feeds for WordPress", 200_000),
  ],
  themes: [],
});

/** A WordPress homepage with this markup in its <head> and <body>. */
function page(head: string, body = ""): Artifacts {
  return homepageOnly(
    `${ORIGIN}/`,
    `<!doctype html><html><head><meta name="generator" content="WordPress 6.5.3" /><link rel='stylesheet' id='theme-css' href='${ORIGIN}/wp-content/themes/twentytwentyfour/style.css?ver=1.1' media='all' />${head}</head><body class="home">${body}</body></html>`,
  );
}
const asset = (slug: string, ver: string, file = "assets/front.js") =>
  `<script src="${ORIGIN}/wp-content/plugins/${slug}/${file}?ver=${ver}" id="${slug}-js"></script>`;

async function found(artifacts: Artifacts): Promise<Record<string, string | null>> {
  const copy = structuredClone(artifacts);
  copy.directory = await lookup(nameQuery(copy));
  const paths = detectSitePaths(copy);
  const plugins = detectPlugins(copy, paths, detectWordPress(copy, paths).version);
  return Object.fromEntries(plugins.map((plugin) => [plugin.slug, plugin.version]));
}

describe("the failures seen on real sites", () => {
  test('"Shopfront Payments Plugin for WooCommerce 2.3.1" is Shopfront Payments, not WooCommerce', async () => {
    expect(
      await found(
        page(
          asset("shopfront-payments-for-woocommerce", "2.3.1"),
          "<!-- Shopfront Payments Plugin for WooCommerce 2.3.1 -->",
        ),
      ),
    ).toEqual({ "shopfront-payments-for-woocommerce": "2.3.1" });
  });

  test('"Simple Events Calendar 1.3.5 by …" in folder simple-events-cal is not The Events Calendar', async () => {
    expect(
      await found(
        page(
          asset("simple-events-cal", "1.3.5"),
          "<div>calendar</div><!-- Simple Events Calendar 1.3.5 by Eventful Studio -->",
        ),
      ),
    ).toEqual({ "simple-events-cal": "1.3.5" });
  });
});

describe("only a whole name names a plugin", () => {
  test("the end of a longer name is not a name: 'Pro Events Calendar 3.1.0', 'Quick Gallery Grid 1.8.0'", async () => {
    expect(await found(page("", "<!-- Pro Events Calendar 3.1.0 -->"))).toEqual({});
    expect(await found(page("", "<!-- Quick Gallery Grid 1.8.0 by Team Rocket -->"))).toEqual({
      "quick-gallery-grid": "1.8.0",
    });
  });

  test("…unless its words before are the plugin's own vendor: 'Smash Balloon Custom Facebook Feed v4.2.5'", async () => {
    expect(await found(page("", "<div><!-- Smash Balloon Custom Facebook Feed v4.2.5 --></div>"))).toEqual({
      "custom-facebook-feed": "4.2.5",
    });
  });

  test("the start of a longer name is not a name: a generator 'WooCommerce Stripe Express 7.0.2'", async () => {
    expect(await found(page('<meta name="generator" content="WooCommerce Stripe Express 7.0.2" />'))).toEqual({});
    // WooCommerce's own generator still names it.
    expect(await found(page('<meta name="generator" content="WooCommerce 8.9.1" />'))).toEqual({
      woocommerce: "8.9.1",
    });
  });

  test("'Analytics by WP Statistics v14.6.4' credits WP Statistics: a version belongs to the name it follows", async () => {
    expect(await found(page("<!-- Analytics by WP Statistics v14.6.4 - https://wp-statistics.com -->"))).toEqual({
      "wp-statistics": "14.6.4",
    });
  });

  test("grammar: words before and after a name", () => {
    const words = "Simple Events Calendar 1.3.5".split(" ");
    expect(longerNameBefore(words, 1)).toBe(true);
    expect(longerNameBefore("Powered by Events Calendar".split(" "), 2)).toBe(false);
    expect(longerNameBefore("Foo Gallery. Events Calendar".split(" "), 2)).toBe(false);
    const isVersion = (word?: string) => /^\d+\.\d/.test(word ?? "");
    const isFiller = (word?: string) => word === "plugin";
    expect(longerNameAfter(["WooCommerce", "Stripe"], 1, isVersion, isFiller)).toBe(true);
    expect(longerNameAfter(["Foo", "for", "Elementor"], 1, isVersion, isFiller)).toBe(true);
    expect(longerNameAfter(["Foo", "add-on"], 1, isVersion, isFiller)).toBe(true);
    expect(longerNameAfter(["WooCommerce", "8.9.1"], 1, isVersion, isFiller)).toBe(false);
    expect(longerNameAfter(["Yoast", "SEO", "plugin"], 2, isVersion, isFiller)).toBe(false);
    expect(longerNameAfter(["breeze", "CACHE"], 1, isVersion, isFiller)).toBe(false);
    expect(longerNameAfter(["PixelYourSite", "Free", "version"], 1, isVersion, isFiller)).toBe(false);
    expect(longerNameAfter(["Foo", "on", "Bar"], 1, isVersion, isFiller)).toBe(false);
  });
});

describe("'X for Y', 'requires Y', 'compatible with Y' credit X, never Y", () => {
  test.each([
    ["<!-- Quick Reorder add-on for WooCommerce v1.4.0 -->", "wc-quick-reorder", "1.4.0"],
    ["<!-- Ultimate Widgets Add-on for Elementor 2.4.0 -->", "ultimate-widgets-elementor", "2.4.0"],
    ["<!-- Powered by Form Styler for Contact Form 7 v3.1.2 -->", "cf7-form-styler", "3.1.2"],
    ["<!-- Acme Translate Sync 1.4.2 - requires WPML 4.6.9 -->", "acme-translate-sync", "1.4.2"],
    ["<!-- Map Field add-on for Advanced Custom Fields v1.1.3 -->", "acf-map-field", "1.1.3"],
    ["<!-- Extra Schema for Yoast SEO v1.2.3 -->", "yoast-extra-schema", "1.2.3"],
    ["<!-- Product Feed Lite 4.1.0 (compatible with WooCommerce 8.9.1) -->", "product-feed-lite", "4.1.0"],
    ["<!-- Breadcrumb Tweaks 0.4.1 (integrates with Yoast SEO 22.4) -->", "breadcrumb-tweaks", "0.4.1"],
    ["<!-- WPML Multilingual Forms 2.1.0 -->", "wpml-multilingual-forms", "2.1.0"],
  ])("%s", async (comment, slug, version) => {
    // Alone, the host is never found; beside the add-on's own files, only the add-on is.
    expect(await found(page("", comment))).toEqual({});
    expect(await found(page(asset(slug, version), comment))).toEqual({ [slug]: version });
  });

  test("grammar: what marks the plugin a name is made for", () => {
    expect(hostMarked("Foo add-on for WooCommerce".split(" "), 3)).toBe(true);
    expect(hostMarked("Foo - requires WPML".split(" "), 3)).toBe(true);
    expect(hostMarked("Foo (compatible with WooCommerce".split(" "), 3)).toBe(true);
    expect(hostMarked("Optimized with WP Meteor".split(" "), 2)).toBe(false);
    expect(hostMarked("served in 0.2 s by Comet Cache".split(" "), 5)).toBe(false);
  });
});

describe("a link to a plugin's directory page is not proof it is installed", () => {
  test("a bare link, or one beside another plugin's credit, names nothing", async () => {
    expect(await found(page("", "<!-- Caching tip: https://wordpress.org/plugins/social-warfare/ -->"))).toEqual({});
    expect(
      await found(
        page(
          asset("share-links-lite", "1.3.0"),
          "<!-- Share Links Lite 1.3.0 - like it? try https://wordpress.org/plugins/social-warfare/ too -->",
        ),
      ),
    ).toEqual({ "share-links-lite": "1.3.0" });
  });

  test("a link from the plugin's own credit still names it, with or without the names index", async () => {
    const meteor = page("<!-- Optimized with WP Meteor v3.4.0 - https://wordpress.org/plugins/wp-meteor/ -->");
    expect(await found(meteor)).toEqual({ "wp-meteor": "3.4.0" });
    const mc4wp = page(
      "",
      "<!-- Mailchimp for WordPress v4.9.13 - https://wordpress.org/plugins/mailchimp-for-wp/ -->",
    );
    const paths = detectSitePaths(mc4wp);
    expect(detectPlugins(mc4wp, paths, "6.5.3").map((plugin) => [plugin.slug, plugin.version])).toEqual([
      ["mailchimp-for-wp", "4.9.13"],
    ]);
  });
});

describe("a credit printed beside a plugin's own files is that plugin's", () => {
  test("a name another plugin has in the index goes to the plugin beside it", async () => {
    const html = `<!-- Simple Events Calendar 1.0.4 -->\n${asset("evt-cal-lite", "1.0.4")}`;
    expect(await found(page("", html))).toEqual({ "evt-cal-lite": "1.0.4" });
    // The same comment away from any plugin's files names the plugin of that name.
    expect(await found(page("", "<p>Events</p><!-- Simple Events Calendar 1.0.4 --><p>…</p>"))).toEqual({
      "simple-events-calendar": "1.0.4",
    });
  });

  test("its version goes with it only when the plugin's own ver= agree", async () => {
    const html = `<!-- Simple Events Calendar 1.0.4 -->\n${asset("evt-cal-lite", "2.0.0")}`;
    expect(await found(page("", html))).toEqual({ "evt-cal-lite": "2.0.0" });
  });

  test("a plugin with files of its own keeps its credit", async () => {
    const html = `${asset("gallery-grid", "4.0.1")}<!-- Gallery Grid 4.0.1 -->\n${asset("evt-cal-lite", "1.0.4")}`;
    expect(await found(page("", html))).toEqual({ "gallery-grid": "4.0.1", "evt-cal-lite": "1.0.4" });
  });

  test("beside means adjacent, to one plugin's files", () => {
    const assets = new Map([
      ["foo", [`${ORIGIN}/wp-content/plugins/foo/a.js?ver=1`]],
      ["bar", [`${ORIGIN}/wp-content/plugins/bar/b.js?ver=1`]],
    ]);
    const html = [
      `<!-- before foo -->\n<script src="${ORIGIN}/wp-content/plugins/foo/a.js?ver=1"></script>`,
      "<!-- after foo -->",
      "<p>x</p><!-- apart --><p>y</p>",
      `<script src="${ORIGIN}/wp-content/plugins/bar/b.js?ver=1"></script><!-- between --><script src="${ORIGIN}/wp-content/plugins/foo/a.js?ver=1"></script>`,
    ].join("");
    const beside = commentsBesideAssets(html, `${ORIGIN}/`, assets);
    expect(Object.fromEntries(beside)).toEqual({ " before foo ": "foo", " after foo ": "foo" });
  });
});

test("a credit to a plugin with no file of its own goes to the folder named after it, cut short or with its edition", async () => {
  const cut = page(asset("simple-events-cal", "1.3.5"), "<p>x</p><!-- Simple Events Calendar 1.3.5 -->");
  expect(await found(cut)).toEqual({ "simple-events-cal": "1.3.5" });
  const lite = page(asset("quick-gallery-grid-lite", "1.8.0"), "<p>x</p><!-- Quick Gallery Grid 1.8.0 -->");
  expect(await found(lite)).toEqual({ "quick-gallery-grid-lite": "1.8.0" });
  // Another folder, of another plugin, takes nothing.
  const other = page(asset("gallery-tools", "2.0.0"), "<p>x</p><!-- Quick Gallery Grid 1.8.0 -->");
  expect(await found(other)).toEqual({ "gallery-tools": "2.0.0", "quick-gallery-grid": "1.8.0" });
});

test("a folder spelt with capitals and the directory's slug for it are one plugin", async () => {
  const html = `<link rel='stylesheet' id='acme-forms-css' href='${ORIGIN}/wp-content/plugins/Acme-Forms/css/forms.css?ver=3.0.2' media='all' />`;
  expect(await found(page(html, "<!-- Acme Forms 3.0.2 -->"))).toEqual({ "Acme-Forms": "3.0.2" });
});
