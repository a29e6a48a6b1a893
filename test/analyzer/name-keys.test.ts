/**
 * The one normalisation of names, identifiers and versions shared by the finders and the
 * names index (server/analyzer/detect/finders/name-keys.ts, identifiers.ts): a key written
 * at import time must be the key a finder asks for.
 */
import { describe, expect, test } from "bun:test";
import { identifierStems, versionStem } from "../../server/analyzer/detect/finders/identifiers.ts";
import {
  identifierKey,
  nameKeysOf,
  normalizeName,
  slugCandidates,
  slugify,
  strictVersion,
} from "../../server/analyzer/detect/finders/name-keys.ts";

describe("names", () => {
  test("normalised: case, dashes, entities, spaces, a leading 'the', punctuation at the ends", () => {
    expect(normalizeName("  The  Yoast SEO plugin. ")).toBe("yoast seo plugin");
    expect(normalizeName("Foo &amp; Bar \u2013 Baz")).toBe("foo & bar - baz");
  });

  test("a directory name is found under its whole name, its short form and that without a kind word", () => {
    expect(nameKeysOf("Rank Math SEO \u2013 AI SEO Tools to Dominate SEO Rankings")).toEqual([
      { key: "rank math seo - ai seo tools to dominate seo rankings", kind: "full" },
      { key: "rank math seo", kind: "short" },
      { key: "rank math", kind: "short" },
    ]);
    expect(nameKeysOf("Akismet Anti-spam: Spam Protection")).toEqual([
      { key: "akismet anti-spam: spam protection", kind: "full" },
      { key: "akismet anti-spam", kind: "short" },
      // Its first word: trusted only with a version after it, and one plugin dominating it.
      { key: "akismet", kind: "prefix" },
    ]);
    expect(nameKeysOf("Redux Framework").at(-1)).toEqual({ key: "redux", kind: "prefix" });
    expect(nameKeysOf("Easy FancyBox \u2013 WordPress Lightbox Plugin").map((key) => key.key)).toEqual([
      "easy fancybox - wordpress lightbox plugin",
      "easy fancybox",
    ]);
    expect(
      nameKeysOf("MonsterInsights \u2013 Google Analytics Dashboard for WordPress (Website Stats Made Easy)")[1],
    ).toEqual({
      key: "monsterinsights",
      kind: "short",
    });
    // Too generic to look anything up by.
    expect(nameKeysOf("Google Analytics")).toEqual([]);
    expect(nameKeysOf("WP")).toEqual([]);
  });

  test("slugs from names and identifiers", () => {
    expect(slugify("Simple Share Buttons Adder")).toBe("simple-share-buttons-adder");
    expect(slugify("Cookie Notice & Compliance")).toBe("cookie-notice-compliance");
    expect(slugCandidates("fooBarBaz")).toEqual(["foobarbaz", "foo-bar-baz"]);
    expect(slugCandidates("js_composer")).toEqual(["js_composer", "js-composer", "jscomposer"]);
    expect(slugCandidates("_wpcf7")).toEqual(["wpcf7"]);
    expect(slugCandidates("jquery")).toEqual([]);
    expect(identifierKey("Elementor_Pro")).toBe(identifierKey("elementor-pro"));
  });

  test("the stem of a version name; the stems of an object's name", () => {
    expect(versionStem("foo_bar_version")).toBe("foo_bar");
    expect(versionStem("fooBarVersion")).toBe("fooBar");
    expect(versionStem("FOO_BAR_VER")).toBe("FOO_BAR");
    expect(versionStem("_wpcf7_version")).toBe("_wpcf7");
    expect(versionStem("foo_plugin_version")).toBe("foo");
    for (const word of ["server", "hover", "never", "version", "versionString", "db_version_hash"]) {
      expect(versionStem(word), word).toBeUndefined();
    }
    expect(identifierStems("elementorFrontendConfig")).toEqual(["elementorFrontend", "elementor"]);
    expect(identifierStems("foo_bar_params")).toEqual(["foo_bar"]);
    expect(identifierStems("tidy-tables-wrapper")).toEqual(["tidy-tables"]);
    expect(identifierStems("astra")).toEqual([]);
  });
});

describe("versions", () => {
  test("two to four numbers and an optional pre-release, after an optional v/ver/version", () => {
    for (const [token, version] of [
      ["3.18.3", "3.18.3"],
      ["v22.4", "22.4"],
      ["ver:4.6.14", "4.6.14"],
      ["(8.4.11)", "8.4.11"],
      ["4.7.3.1", "4.7.3.1"],
      ["2.0-beta2", "2.0-beta2"],
      ["1.2.3;", "1.2.3"],
    ] as const) {
      expect(strictVersion(token), token).toBe(version);
    }
  });

  test("never a bare number, a date, a timestamp, a hash, zeros or a range", () => {
    for (const token of ["4", "v4", "2024.05.14", "1716912345", "a3f9c1e", "0.0.0", "1.2.3.4.5", "1.x", "", ">=1.2"]) {
      expect(strictVersion(token), token).toBeUndefined();
    }
  });
});
