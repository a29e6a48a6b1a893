/** WordPress detection on saved artifacts: the real fixture and variants of it. */
import { describe, expect, test } from "bun:test";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { REST_INDEX_FIELDS, restIndexRequest, restRootUrl } from "../../server/analyzer/detect/rest.ts";
import { detectSitePaths } from "../../server/analyzer/detect/site-paths.ts";
import { detectWordPress, isPlausibleWordPressVersion } from "../../server/analyzer/detect/wordpress.ts";
import { homepageOnly, loadArtifacts, variant, WP_FIXTURE } from "./artifacts.ts";

const fixture = loadArtifacts(WP_FIXTURE);
const detect = (artifacts: Artifacts) => detectWordPress(artifacts, detectSitePaths(artifacts));

describe("detectWordPress", () => {
  test("the real fixture: WordPress 6.1.9 from generator, feed, core assets, REST API, login page and readme", () => {
    const info = detect(fixture);
    expect(info.detected).toBe(true);
    expect(info.confidence).toBe(100);
    expect(info.version).toBe("6.1.9");
    expect(info.version_confidence).toBeGreaterThanOrEqual(95);
    expect(info.rest_api_url).toBe("http://127.0.0.1:8088/wp-json/");
    expect(info.rest_namespaces).toEqual([
      "oembed/1.0",
      "akismet/v1",
      "wp/v2",
      "wp-site-health/v1",
      "wp-block-editor/v1",
    ]);
    expect(info.install_path).toBe("/");
    expect(info.content_path).toBeNull();
    const sources = new Set(info.evidence.map((item) => item.source));
    for (const source of [
      "meta_generator",
      "rss_generator",
      "rest_link_header",
      "rest_link_tag",
      "core_asset_ver",
      "wp_paths",
      "rest_api",
      "login_page",
      "login_asset_ver",
      "readme_html",
      "xmlrpc",
    ]) {
      expect(sources.has(source)).toBe(true);
    }
    expect(info.evidence.find((item) => item.source === "rss_generator")?.url).toBe("http://127.0.0.1:8088/feed/");
  });

  test("with the generator tag and the feed gone, the version still comes from core assets", () => {
    const hardened = variant(fixture, {
      body: fixture.homepage.body.replace(/<meta name="generator"[^>]*>/, ""),
      probes: { feed: null, login: null },
    });
    const info = detect(hardened);
    expect(info.detected).toBe(true);
    expect(info.version).toBe("6.1.9");
    expect(info.version_confidence).toBeLessThan(90);
  });

  test("a plain site is not WordPress", () => {
    const plain = homepageOnly(
      "https://shop.example/",
      "<!doctype html><html><head><title>Shop</title><meta name=generator content='Hugo 0.120'></head><body>Hi</body></html>",
    );
    const info = detect(plain);
    expect(info).toMatchObject({
      detected: false,
      confidence: 0,
      version: null,
      version_confidence: 0,
      evidence: [],
      install_path: null,
    });
  });

  test("implausible versions are never reported, but the signal is kept as evidence", () => {
    const odd = homepageOnly(
      "https://x.example/",
      '<html><head><meta name="generator" content="WordPress 99.1-<script>"></head></html>',
    );
    const info = detect(odd);
    expect(info.detected).toBe(true);
    expect(info.version).toBeNull();
    expect(info.evidence[0]?.value).toBe("WordPress 99.1-<script>");
  });

  test("disagreeing sources lower the version confidence", () => {
    const mixed = variant(fixture, {
      body: fixture.homepage.body.replace('content="WordPress 6.1.9"', 'content="WordPress 6.2"'),
    });
    const info = detect(mixed);
    expect(info.version).toBe("6.1.9");
    expect(info.version_confidence).toBeLessThan(detect(fixture).version_confidence);
  });

  test("JSON-escaped and protocol-relative asset URLs count", () => {
    const escaped = homepageOnly(
      "https://x.example/",
      '<html><script>var s={"src":"\\/\\/x.example\\/wp-includes\\/js\\/wp-emoji.js?ver=6.3.1"};</script></html>',
    );
    const info = detect(escaped);
    expect(info.evidence.map((item) => item.source)).toEqual(["wp_paths", "core_asset_ver"]);
    expect(info.version).toBe("6.3.1");
  });

  test("a subdirectory install and a custom content directory are found", () => {
    const html = `<html><head><link rel="https://api.w.org/" href="https://x.example/blog/wp-json/">
      <link rel="stylesheet" href="https://x.example/blog/wp-includes/css/dist/block-library/style.min.css?ver=6.4.2">
      <link rel="stylesheet" href="https://x.example/app/themes/sage/style.css"><script src="https://x.example/app/plugins/foo/foo.js"></script></head></html>`;
    const artifacts = homepageOnly("https://x.example/blog/", html);
    const paths = detectSitePaths(artifacts);
    expect(paths.homeBase).toBe("https://x.example/blog/");
    expect(paths.contentBase).toBe("https://x.example/app/");
    const info = detectWordPress(artifacts, paths);
    expect(info).toMatchObject({ install_path: "/blog/", content_path: "/app/", version: "6.4.2" });
  });

  test.each(["6.1.9", "5.0", "4.7.25", "6.5", "2.0.11"])("%s is a plausible release", (version) => {
    expect(isPlausibleWordPressVersion(version)).toBe(true);
  });
  test.each(["0.1", "6.1.9.1", "6", "99.1", "6.1-beta", "v6.1", "", "5.10", "6.1.0"])("%s is not", (version) => {
    expect(isPlausibleWordPressVersion(version)).toBe(false);
  });
});

describe("the REST root asked for the fields that are read (detect/rest.ts)", () => {
  test("the parameter is appended as text to either form of the root, and taken off the root a report names", () => {
    const pretty = "https://example.com/wp-json/";
    const plain = "https://example.com/?rest_route=/";
    expect(restIndexRequest(pretty)).toBe(`${pretty}?_fields=${REST_INDEX_FIELDS}`);
    expect(restIndexRequest(plain)).toBe(`${plain}&_fields=${REST_INDEX_FIELDS}`);
    expect(restRootUrl(restIndexRequest(pretty))).toBe(pretty);
    expect(restRootUrl(restIndexRequest(plain))).toBe(plain);
    // A root that already says what it wants is asked as it is, and named as it is.
    expect(restIndexRequest("https://example.com/wp-json/?_fields=name")).toBe(
      "https://example.com/wp-json/?_fields=name",
    );
    expect(restRootUrl("https://example.com/wp-json/?_fields=name")).toBe("https://example.com/wp-json/?_fields=name");
  });
});
