/**
 * Plugin and theme detection on artifacts captured from the small real sites in test/analyzer/sites/
 * (scripts/capture-artifacts.ts --site …) and from the real WordPress fixture: each evidence
 * class (credits by name in generator tags, comments and headers; open listings; readmes),
 * the versions they merge into, and that nothing is guessed.
 */
import { describe, expect, test } from "bun:test";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { detectPlugins } from "../../server/analyzer/detect/plugins.ts";
import { detectSitePaths } from "../../server/analyzer/detect/site-paths.ts";
import { detectTheme } from "../../server/analyzer/detect/theme.ts";
import { detectWordPress } from "../../server/analyzer/detect/wordpress.ts";
import type { PluginInfo } from "../../shared/report.ts";
import { answer, loadArtifacts, variant, WP_FIXTURE, WP_FIXTURE_TT3 } from "./artifacts.ts";

const ORIGIN = "http://127.0.0.1:8299";

function pluginsOf(artifacts: Artifacts): PluginInfo[] {
  const paths = detectSitePaths(artifacts);
  return detectPlugins(artifacts, paths, detectWordPress(artifacts, paths).version);
}
const bySlug = (plugins: PluginInfo[]) => new Map(plugins.map((plugin) => [plugin.slug, plugin]));
const sources = (plugin: PluginInfo | undefined) => plugin?.evidence.map((item) => item.source) ?? [];

describe("the real WordPress fixtures keep exactly their plugins", () => {
  test("twentytwentyone: akismet 5.0.2 and xrds-simple, nothing else", () => {
    const plugins = pluginsOf(loadArtifacts(WP_FIXTURE));
    expect(plugins.map((plugin) => plugin.slug).sort()).toEqual(["akismet", "xrds-simple"]);
    expect(bySlug(plugins).get("akismet")?.version).toBe("5.0.2");
  });

  test("twentytwentythree: xrds-simple only (shibboleth leaves no public trace)", () => {
    expect(pluginsOf(loadArtifacts(WP_FIXTURE_TT3)).map((plugin) => plugin.slug)).toEqual(["xrds-simple"]);
  });
});

describe("credits by display name: generator tags and comments (test/analyzer/sites/credits)", () => {
  const site = loadArtifacts("site-credits");
  const plugins = bySlug(pluginsOf(site));

  test("exactly the plugins the page credits", () => {
    expect([...plugins.keys()].sort()).toEqual([
      "elementor",
      "google-site-kit",
      "revslider",
      "wordpress-seo",
      "wp-super-cache",
    ]);
  });

  test("Elementor's generator ('Elementor 3.18.3; features: …') gives the version", () => {
    expect(plugins.get("elementor")).toMatchObject({ version: "3.18.3", name: "Elementor" });
    expect(sources(plugins.get("elementor"))).toContain("meta_generator");
  });

  test("'Powered by Slider Revolution 6.6.12 - …' maps to revslider 6.6.12", () => {
    expect(plugins.get("revslider")).toMatchObject({ version: "6.6.12" });
  });

  test("Yoast's comment gives 22.4, counted once (signature and credit finder read the same comment)", () => {
    const yoast = plugins.get("wordpress-seo");
    expect(yoast?.version).toBe("22.4");
    const comments = yoast?.evidence.filter((item) => item.source === "html_comment") ?? [];
    // The opening and the closing comment, each once.
    expect(comments.map((item) => item.value)).toEqual([
      "This site is optimized with the Yoast SEO plugin v22.4",
      "/ Yoast SEO plugin",
    ]);
  });

  test("'… snippet added by Site Kit' maps through the alias; its two comments count as one", () => {
    const kit = plugins.get("google-site-kit");
    expect(kit?.evidence).toEqual([
      { source: "html_comment", value: "Google tag (gtag.js) snippet added by Site Kit" },
    ]);
    expect(kit?.confidence).toBe(80);
  });

  test("an unknown name ('Powered by Foo Gallery v2.1') becomes no slug", () => {
    expect(plugins.has("foo-gallery")).toBe(false);
    expect([...plugins.keys()].some((slug) => slug.includes("gallery"))).toBe(false);
  });
});

describe("response headers (test/analyzer/sites/headers)", () => {
  const plugins = bySlug(pluginsOf(loadArtifacts("site-headers")));

  test("each cache plugin from its header alone", () => {
    expect([...plugins.keys()].sort()).toEqual(["cache-enabler", "w3-total-cache", "wp-hummingbird", "wp-super-cache"]);
    for (const plugin of plugins.values()) expect(sources(plugin)).toEqual(["header"]);
  });

  test("X-Powered-By: PHP/8.2.20, W3 Total Cache/2.7.4 → w3-total-cache 2.7.4", () => {
    expect(plugins.get("w3-total-cache")).toMatchObject({ version: "2.7.4", confidence: 80 });
  });

  test("a credit header naming a plugin through its readme, and X-Redirect-By on a redirect", () => {
    const base = loadArtifacts("site-listing-apache");
    const credited = variant(base, {
      headers: { ...base.homepage.headers, "x-powered-by": "PHP/8.3, Foo Gallery/2.1.0" },
      probes: {
        author_1: answer(`${ORIGIN}/?author=1`, 301, "", { location: `${ORIGIN}/`, "x-redirect-by": "Yoast SEO" }),
      },
    });
    const found = bySlug(pluginsOf(credited));
    expect(found.get("foo-gallery")?.evidence).toContainEqual({
      source: "header",
      value: "x-powered-by: Foo Gallery/2.1.0",
      url: `${ORIGIN}/`,
    });
    expect(found.get("wordpress-seo")?.evidence).toEqual([
      { source: "header", value: "x-redirect-by: Yoast SEO", url: `${ORIGIN}/?author=1` },
    ]);
    // "X-Redirect-By: WordPress" is core, not a plugin.
    const core = variant(base, {
      probes: { author_1: answer(`${ORIGIN}/?author=1`, 301, "", { "x-redirect-by": "WordPress" }) },
    });
    expect(pluginsOf(core).map((plugin) => plugin.slug)).not.toContain("wordpress");
  });
});

describe("open directory listings (test/analyzer/sites/listing-apache)", () => {
  const site = loadArtifacts("site-listing-apache");
  const plugins = bySlug(pluginsOf(site));

  test("every listed plugin folder, none of the listed files (hello.php)", () => {
    expect([...plugins.keys()].sort()).toEqual(["akismet", "foo-gallery", "inactive-helper"]);
  });

  test("a plugin seen only in the listing is installed, at the threshold, and the evidence says so", () => {
    const inactive = plugins.get("inactive-helper");
    expect(inactive).toMatchObject({ confidence: 50, version: null, name: null });
    expect(inactive?.evidence).toEqual([
      {
        source: "directory_listing",
        value:
          "inactive-helper/ listed in /wp-content/plugins/: installed (a listing does not say whether it is active)",
        url: `${ORIGIN}/wp-content/plugins/inactive-helper/`,
      },
    ]);
  });

  test("the listing leads to the readme, whose name maps the comment 'Powered by Foo Gallery v2.1.0'", () => {
    const gallery = plugins.get("foo-gallery");
    expect(gallery).toMatchObject({ name: "Foo Gallery", version: "2.1.0" });
    expect(sources(gallery)).toEqual([
      "html_comment",
      "directory_listing",
      "readme",
      "readme_stable_tag",
      "readme_changelog",
    ]);
    // Comment, stable tag and changelog agree: a well-founded version.
    expect(gallery?.version_confidence).toBeGreaterThan(90);
    expect(gallery?.confidence).toBeGreaterThan(95);
  });

  test("without the readme the name is in no index: the listing backs it up, at a lower weight, and says so", () => {
    const withoutReadme = variant(site, { probes: { "plugin_readme:foo-gallery": null } });
    const gallery = bySlug(pluginsOf(withoutReadme)).get("foo-gallery");
    expect(sources(gallery)).toEqual(["html_comment", "directory_listing", "inferred_slug"]);
    expect(gallery?.version).toBe("2.1.0");
    expect(gallery?.evidence.at(-1)?.value).toContain("its folder is in the open plugins listing");
    expect(gallery?.confidence).toBeLessThan(plugins.get("foo-gallery")?.confidence ?? 0);
  });

  test("akismet: REST namespace, listing and readme; versions from the readme", () => {
    expect(plugins.get("akismet")).toMatchObject({ version: "5.3.2", name: "Akismet Anti-spam" });
    expect(sources(plugins.get("akismet"))).toContain("directory_listing");
  });

  test("versions merge through pickVersion: a credit that disagrees with the readme lowers its confidence", () => {
    const body = site.homepage.body.replace("Foo Gallery v2.1.0", "Foo Gallery v2.0.3");
    const gallery = bySlug(pluginsOf(variant(site, { body }))).get("foo-gallery");
    expect(gallery?.version).toBe("2.1.0");
    expect(gallery?.version_confidence).toBeLessThan(plugins.get("foo-gallery")?.version_confidence ?? 0);
  });

  test("the active theme carries the listing as evidence; the inactive one is not the theme", () => {
    const theme = detectTheme(site, detectSitePaths(site));
    expect(theme?.slug).toBe("twentytwentyfour");
    expect(theme?.evidence.map((item) => item.source)).toContain("directory_listing");
  });
});

describe("a subdirectory install with a child theme (test/analyzer/sites/subdir-child)", () => {
  const site = loadArtifacts("site-subdir-child");
  const paths = detectSitePaths(site);
  const plugins = bySlug(pluginsOf(site));

  test("WordPress under /blog/, content under /blog/wp-content/", () => {
    expect(paths.homeBase).toBe(`${ORIGIN}/blog/`);
    expect(paths.contentBase).toBe(`${ORIGIN}/blog/wp-content/`);
    expect(detectWordPress(site, paths)).toMatchObject({ install_path: "/blog/", version: "6.5.3" });
  });

  test("child theme kadence-child 1.0.0 on parent kadence 1.2.6, body classes as written", () => {
    const theme = detectTheme(site, paths);
    expect(theme).toMatchObject({ slug: "kadence-child", version: "1.0.0", author: "Example Co." });
    expect(theme?.parent).toMatchObject({ slug: "kadence", version: "1.2.6" });
    expect(theme?.evidence).toContainEqual({ source: "body_class", value: "wp-child-theme-kadence-child" });
    expect(theme?.parent?.evidence).toContainEqual({ source: "body_class", value: "wp-theme-kadence" });
  });

  test("plugins from assets, REST, comments and the listing; classic-editor only installed", () => {
    expect([...plugins.keys()].sort()).toEqual(["classic-editor", "contact-form-7", "wordpress-seo"]);
    expect(plugins.get("contact-form-7")?.version).toBe("5.9.6");
    expect(plugins.get("wordpress-seo")?.version).toBe("22.8");
    expect(plugins.get("classic-editor")).toMatchObject({ version: "1.6.3" });
    expect(sources(plugins.get("classic-editor"))[0]).toBe("directory_listing");
  });

  test("no evidence anywhere points at the site root: every WordPress path keeps /blog/", () => {
    const theme = detectTheme(site, paths);
    const wordpress = detectWordPress(site, paths);
    const texts = [theme, theme?.parent, wordpress, ...plugins.values()].flatMap((component) =>
      (component?.evidence ?? []).flatMap((item) => [item.value, item.url ?? ""]),
    );
    // Every /wp-content/, /wp-includes/, /wp-admin/, /wp-json/, /wp-login.php must follow /blog.
    const rootPaths = texts.filter((text) =>
      [...text.matchAll(/\/wp-(?:content|includes|admin|json|login\.php)\b/g)].some(
        (match) => !text.slice(0, match.index).endsWith("/blog"),
      ),
    );
    expect(rootPaths).toEqual([]);
    expect(texts.filter((text) => text.includes("/wp-")).length).toBeGreaterThan(10);
  });

  test("a page of the /blog/ install that also loads another install's root /wp-content/ credits none of its plugins", () => {
    const body = site.homepage.body.replace(
      "</head>",
      `<link rel="stylesheet" href="${ORIGIN}/wp-content/plugins/root-only/style.css?ver=1.0"></head>`,
    );
    expect(bySlug(pluginsOf(variant(site, { body }))).has("root-only")).toBe(false);
    // A CDN copy of the content directory still counts.
    const cdn = site.homepage.body.replace(
      "</head>",
      `<link rel="stylesheet" href="https://cdn.example.net/blog/wp-content/plugins/on-cdn/style.css?ver=1.0"></head>`,
    );
    expect(bySlug(pluginsOf(variant(site, { body: cdn }))).has("on-cdn")).toBe(true);
  });

  test("a homepage asked without its slash (/blog) still gives /blog/ as the install", () => {
    const bare = variant(site, {
      url: `${ORIGIN}/blog`,
      headers: {},
      body: "<html><head><title>x</title></head><body></body></html>",
    });
    expect(detectSitePaths(bare).homeBase).toBe(`${ORIGIN}/blog/`);
  });
});
