/**
 * A `?ver=` value several plugins share is each one's release unless something shows it is
 * the site's stamp (server/analyzer/detect/ver-stamps.ts, docs/detection.md "A shared ?ver="):
 * on saved artifacts, the normal case (small plugins at 1.0.0, three at 2.1.0) and each kind
 * of evidence against a shared value.
 */
import { describe, expect, test } from "bun:test";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { detectPlugins } from "../../server/analyzer/detect/plugins.ts";
import { detectSitePaths } from "../../server/analyzer/detect/site-paths.ts";
import { probeKey } from "../../server/analyzer/probe-keys.ts";
import { answer, homepageOnly } from "./artifacts.ts";

const ORIGIN = "http://127.0.0.1:8297";
const WP = "6.5.3";

interface Page {
  /** slug → the `ver=` on its two files. */
  plugins: Record<string, string>;
  /** The theme's style.css `ver=`, and the version its header states (null: style.css not read). */
  theme?: { ver: string; header: string | null };
  /** `ver=` on core's own files, by file. */
  core?: Record<string, string>;
  /** Readmes: slug → Stable tag. */
  readmes?: Record<string, string>;
}

function site(page: Page): Artifacts {
  const theme = page.theme ?? { ver: "4.2.7", header: "4.2.7" };
  const core = page.core ?? {
    "wp-includes/js/jquery/jquery.min.js": "3.7.1",
    "wp-includes/js/jquery/jquery-migrate.min.js": "3.4.1",
    "wp-includes/css/dist/block-library/style.min.css": WP,
  };
  const tags = [
    `<link rel="stylesheet" id="acme-style-css" href="${ORIGIN}/wp-content/themes/acme/style.css?ver=${theme.ver}">`,
    ...Object.entries(core).map(([file, ver]) => `<script src="${ORIGIN}/${file}?ver=${ver}"></script>`),
    ...Object.entries(page.plugins).flatMap(([slug, ver]) => [
      `<link rel="stylesheet" id="${slug}-css" href="${ORIGIN}/wp-content/plugins/${slug}/assets/css/front.css?ver=${ver}">`,
      `<script src="${ORIGIN}/wp-content/plugins/${slug}/assets/js/front.js?ver=${ver}" id="${slug}-js"></script>`,
    ]),
  ];
  const artifacts = homepageOnly(
    `${ORIGIN}/`,
    `<!DOCTYPE html><html><head><meta name="generator" content="WordPress ${WP}">${tags.join("\n")}</head><body class="home wp-theme-acme"></body></html>`,
  );
  if (theme.header !== null)
    artifacts.probes[probeKey("theme_style", "acme")] = answer(
      `${ORIGIN}/wp-content/themes/acme/style.css`,
      200,
      `/*\nTheme Name: Acme\nVersion: ${theme.header}\n*/`,
      { "content-type": "text/css" },
    );
  for (const [slug, stable] of Object.entries(page.readmes ?? {}))
    artifacts.probes[probeKey("plugin_readme", slug)] = answer(
      `${ORIGIN}/wp-content/plugins/${slug}/readme.txt`,
      200,
      `=== ${slug} ===\nContributors: someone\nRequires at least: 6.0\nStable tag: ${stable}\nLicense: GPLv2\n\nA plugin.\n\n== Description ==\n\nIt does things.\n`,
      { "content-type": "text/plain" },
    );
  return artifacts;
}

function versions(page: Page): Record<string, string | null> {
  const artifacts = site(page);
  const plugins = detectPlugins(artifacts, detectSitePaths(artifacts), WP);
  return Object.fromEntries(plugins.map((plugin) => [plugin.slug, plugin.version]));
}

/** Twelve plugins at versions of their own, as a real page loads them. */
const OTHERS: Record<string, string> = {
  "contact-widgets": "1.7.0",
  "cookie-bar": "2.4.12",
  "faq-blocks": "3.0.4",
  "gallery-lite": "1.9.2",
  "map-embed": "2.2.0",
  "menu-icons": "0.13.8",
  "post-views": "6.4.2",
  "related-posts": "5.4.1",
  "share-bar": "8.4.11",
  "table-press": "2.3.2",
  "to-top": "2.5.3",
  "video-lite": "1.2.7",
};

describe("a shared ?ver= stands when nothing contradicts it", () => {
  test("several small plugins at 1.0.0 on one page keep it", () => {
    const found = versions({
      plugins: { ...OTHERS, "quote-box": "1.0.0", "hello-bar": "1.0.0", "store-hours": "1.0.0", "age-gate": "1.0.0" },
    });
    for (const slug of ["quote-box", "hello-bar", "store-hours", "age-gate"]) expect(found[slug]).toBe("1.0.0");
    expect(found["share-bar"]).toBe("8.4.11");
  });

  test("three plugins at 2.1.0 keep it, also on a small page", () => {
    const found = versions({ plugins: { "quote-box": "2.1.0", "hello-bar": "2.1.0", "store-hours": "2.1.0" } });
    expect(found).toEqual({ "quote-box": "2.1.0", "hello-bar": "2.1.0", "store-hours": "2.1.0" });
  });

  test("a value core's files carry once (their libraries' own versions) is no stamp", () => {
    const found = versions({ plugins: { ...OTHERS, "quote-box": "3.7.1", "hello-bar": "3.7.1" } });
    expect(found["quote-box"]).toBe("3.7.1");
  });

  test("one plugin's readme that contradicts a shared value takes that plugin's version only", () => {
    const found = versions({
      plugins: { ...OTHERS, "quote-box": "1.0.0", "hello-bar": "1.0.0", "store-hours": "1.0.0" },
      readmes: { "quote-box": "1.0.3", "hello-bar": "1.0.0" },
    });
    expect(found["quote-box"]).toBe("1.0.3");
    expect(found["hello-bar"]).toBe("1.0.0");
    expect(found["store-hours"]).toBe("1.0.0");
  });
});

describe("a shared ?ver= is the site's stamp with evidence", () => {
  const stamped = (page: Page, slugs: string[], reason: RegExp) => {
    const artifacts = site(page);
    const plugins = detectPlugins(artifacts, detectSitePaths(artifacts), WP);
    for (const slug of slugs) {
      const plugin = plugins.find((item) => item.slug === slug);
      expect(plugin?.version ?? null, slug).toBeNull();
      expect(
        plugin?.evidence.some((item) => item.source === "asset_ver" && reason.test(item.value)),
        slug,
      ).toBe(true);
    }
    return plugins;
  };

  test("it is the active theme's version", () => {
    const plugins = stamped(
      { plugins: { ...OTHERS, "quote-box": "2.1.0", "hello-bar": "2.1.0" }, theme: { ver: "2.1.0", header: "2.1.0" } },
      ["quote-box", "hello-bar"],
      /active theme's version/,
    );
    expect(plugins.find((item) => item.slug === "share-bar")?.version).toBe("8.4.11");
  });

  test("it sits on the theme's style.css, whose header states another version", () => {
    stamped(
      { plugins: { "quote-box": "5.5.0", "hello-bar": "5.5.0" }, theme: { ver: "5.5.0", header: "1.2.0" } },
      ["quote-box", "hello-bar"],
      /theme's style\.css/,
    );
  });

  test("it sits on WordPress core's own files", () => {
    stamped(
      {
        plugins: { ...OTHERS, "quote-box": "1.0.9", "hello-bar": "1.0.9" },
        core: {
          "wp-includes/js/jquery/jquery.min.js": "1.0.9",
          "wp-includes/js/jquery/jquery-migrate.min.js": "1.0.9",
        },
      },
      ["quote-box", "hello-bar"],
      /core's own files/,
    );
  });

  test("it covers most of the page's components", () => {
    const page = Object.fromEntries(Object.keys(OTHERS).map((slug) => [slug, "3.3.3"]));
    stamped({ plugins: { ...page, "video-lite": "1.2.7" } }, ["share-bar", "to-top"], /11 of the page's 13 components/);
  });

  test("the readmes of several plugins that carry it state other versions", () => {
    const plugins = stamped(
      {
        plugins: { ...OTHERS, "quote-box": "1.1.0", "hello-bar": "1.1.0", "store-hours": "1.1.0" },
        readmes: { "quote-box": "2.0.1", "hello-bar": "3.4.0" },
      },
      ["store-hours"],
      /readme\.txt of several plugins/,
    );
    expect(plugins.find((item) => item.slug === "quote-box")?.version).toBe("2.0.1");
    expect(plugins.find((item) => item.slug === "hello-bar")?.version).toBe("3.4.0");
  });

  test("it is not version-shaped, or it is WordPress's version", () => {
    const found = versions({ plugins: { ...OTHERS, "quote-box": "1717171717", "hello-bar": WP, "store-hours": WP } });
    expect(found["quote-box"]).toBeNull();
    expect(found["hello-bar"]).toBeNull();
    expect(found["store-hours"]).toBeNull();
  });
});
