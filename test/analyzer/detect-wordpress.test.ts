/** WordPress detection on saved artifacts: the real fixture and variants of it. */
import { describe, expect, test } from "bun:test";
import { detectWordPress, isPlausibleWordPressVersion } from "../../server/analyzer/detect/wordpress.ts";
import { loadArtifacts, variant, WP_FIXTURE } from "./artifacts.ts";

const fixture = loadArtifacts(WP_FIXTURE);

describe("detectWordPress", () => {
  test("the real fixture: WordPress 6.1.9 from generator, feed and core assets", () => {
    const info = detectWordPress(fixture);
    expect(info.detected).toBe(true);
    expect(info.confidence).toBe(100);
    expect(info.version).toBe("6.1.9");
    expect(info.version_confidence).toBeGreaterThanOrEqual(95);
    expect(info.rest_api_url).toBe("http://127.0.0.1:8088/wp-json/");
    const sources = info.evidence.map((item) => item.source);
    expect(sources).toEqual(
      expect.arrayContaining([
        "meta_generator",
        "rss_generator",
        "rest_link_header",
        "rest_link_tag",
        "core_asset_ver",
        "wp_paths",
      ]),
    );
    expect(info.evidence.find((item) => item.source === "rss_generator")?.url).toBe("http://127.0.0.1:8088/feed/");
  });

  test("with the generator tag and feed version removed, the version still comes from core assets", () => {
    const hardened = variant(fixture, {
      body: fixture.homepage.body.replace(/<meta name="generator"[^>]*>/, ""),
      feed: null,
    });
    const info = detectWordPress(hardened);
    expect(info.detected).toBe(true);
    expect(info.version).toBe("6.1.9");
    expect(info.version_confidence).toBeLessThan(90);
  });

  test("a plain site is not WordPress", () => {
    const plain = variant(fixture, {
      body: "<!doctype html><html><head><title>Shop</title><meta name=generator content='Hugo 0.120'></head><body>Hi</body></html>",
      headers: { "content-type": "text/html" },
      feed: null,
    });
    const info = detectWordPress(plain);
    expect(info).toMatchObject({ detected: false, confidence: 0, version: null, version_confidence: 0, evidence: [] });
  });

  test("implausible versions are never reported", () => {
    const odd = variant(fixture, {
      body: '<html><head><meta name="generator" content="WordPress 99.1-<script>"></head></html>',
      headers: {},
      feed: null,
    });
    const info = detectWordPress(odd);
    expect(info.detected).toBe(true);
    expect(info.version).toBeNull();
    expect(info.evidence[0]?.value).toBe("WordPress 99.1-<script>"); // kept as evidence, capped, never as a version
  });

  test("disagreeing sources lower the version confidence", () => {
    const mixed = variant(fixture, {
      body: fixture.homepage.body.replace('content="WordPress 6.1.9"', 'content="WordPress 6.2"'),
    });
    const info = detectWordPress(mixed);
    expect(info.version).toBe("6.1.9");
    expect(info.version_confidence).toBeLessThan(detectWordPress(fixture).version_confidence);
  });

  test("JSON-escaped and protocol-relative asset URLs count as WordPress paths", () => {
    const escaped = variant(fixture, {
      body: '<html><script>var s={"src":"\\/\\/cdn.example.com\\/wp-includes\\/js\\/wp-emoji.js?ver=6.3.1"};</script></html>',
      headers: {},
      feed: null,
    });
    const info = detectWordPress(escaped);
    expect(info.evidence.map((item) => item.source)).toEqual(["wp_paths", "core_asset_ver"]);
    expect(info.version).toBe("6.3.1");
  });

  test.each(["6.1.9", "5.0", "4.7.25", "6.5"])("%s is a plausible release", (version) => {
    expect(isPlausibleWordPressVersion(version)).toBe(true);
  });
  test.each(["0.1", "6.1.9.1", "6", "99.1", "6.1-beta", "v6.1", ""])("%s is not", (version) => {
    expect(isPlausibleWordPressVersion(version)).toBe(false);
  });
});
