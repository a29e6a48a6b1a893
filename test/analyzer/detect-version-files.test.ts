/**
 * Versions from a plugin's public files (detect/finders/files.ts and its parsers): readme.txt
 * variants, changelogs in the shapes plugins write them, translation templates, package.json /
 * composer.json, asset banners; which source wins when they disagree; and what a `?ver=` is
 * not. The files below are written for these tests in the shapes real plugins publish; the
 * site-level cases run on artifacts captured from test/analyzer/sites/version-files.
 */
import { describe, expect, test } from "bun:test";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { headingVersion, parseChangelog } from "../../server/analyzer/detect/changelog.ts";
import { pickVersion } from "../../server/analyzer/detect/evidence.ts";
import { pluginFileVersions } from "../../server/analyzer/detect/finders/files.ts";
import {
  leadingComment,
  namesPlugin,
  parseBanner,
  parseManifest,
  parsePotHeader,
} from "../../server/analyzer/detect/manifests.ts";
import { detectPlugins } from "../../server/analyzer/detect/plugins.ts";
import { parsePluginReadme } from "../../server/analyzer/detect/readme.ts";
import { detectSitePaths } from "../../server/analyzer/detect/site-paths.ts";
import { versionKey, versionParameterProblem } from "../../server/analyzer/detect/version-sanity.ts";
import { detectWordPress } from "../../server/analyzer/detect/wordpress.ts";
import { type ProbeKey, probeKey } from "../../server/analyzer/probe-keys.ts";
import type { PluginInfo } from "../../shared/report.ts";
import { answer, homepageOnly, loadArtifacts, variant } from "./artifacts.ts";

const ORIGIN = "http://127.0.0.1:8299";

describe("changelog shapes", () => {
  const newest = (text: string, complete = true) => parseChangelog(text, complete).newest?.version ?? null;

  test("readme style: = 1.2.3 =, with a date, with Version, with v", () => {
    expect(newest("= 1.2.3 =\n* Fix.\n\n= 1.2.2 =\n* Fix.")).toBe("1.2.3");
    expect(newest("= 4.0.1 - 2024-02-01 =\n* Fix.\n= 4.0.0 - 2024-01-15 =\n* New.")).toBe("4.0.1");
    expect(newest("= Version 2.10 =\n* A.\n= Version 2.9.4 =\n* B.")).toBe("2.10");
    expect(newest("= v3.1 (March 2024) =\n* A.\n= v3.0 =\n* B.")).toBe("3.1");
    expect(newest("== 5.1 ==\n* A\n== 5.0 ==\n* B")).toBe("5.1");
  });

  test("Markdown: Keep a Changelog, conventional-changelog links, ### headings", () => {
    const keep = `# Changelog\n\n## [Unreleased]\n### Added\n- Soon.\n\n## [2.3.0] - 2024-05-01\n### Fixed\n- x\n\n## [2.2.9] - 2024-04-01\n- y\n\n[Unreleased]: https://example.com/compare/v2.3.0...HEAD\n[2.3.0]: https://example.com/compare/v2.2.9...v2.3.0`;
    expect(parseChangelog(keep, true)).toMatchObject({ newest: { version: "2.3.0" }, unreleased: 1 });
    expect(
      newest(
        "## [5.2.0](https://github.com/acme/x/compare/v5.1.0...v5.2.0) (2024-06-02)\n\n### Features\n\n* blocks\n\n## [5.1.0](https://github.com/acme/x/compare/v5.0.0...v5.1.0) (2024-05-02)",
      ),
    ).toBe("5.2.0");
    expect(newest("### 1.4.2\n- Fix\n\n### 1.4.1\n- Fix")).toBe("1.4.2");
    expect(newest("## Version 7.0.3 (2024-01-02)\n- a\n## Version 7.0.2\n- b")).toBe("7.0.3");
  });

  test("WooCommerce style: the date first, then 'version 8.5.0'", () => {
    expect(
      newest(
        "*** Acme Changelog ***\n\n2024-01-10 - version 8.5.0\n* Fix - a\n\n2023-12-12 - version 8.4.1\n* Fix - b",
      ),
    ).toBe("8.5.0");
  });

  test("bare lines (v1.2.3 (date), 1.2.3 / date), bold headings and list items", () => {
    expect(newest("v1.6.0 (2024-02-02)\n- New\n\nv1.5.9 (2024-01-01)\n- Fix")).toBe("1.6.0");
    expect(newest("1.3.2 / 2024-03-03\n==================\n * fix\n\n1.3.1 / 2024-02-02\n * fix")).toBe("1.3.2");
    expect(newest("**2.0.1**\n* Fix\n\n**2.0.0**\n* New")).toBe("2.0.1");
    expect(newest("* 1.2.3 - Fixed the widget.\n* 1.2.2 - Fixed the shortcode.\n* 1.2.1 - First release.")).toBe(
      "1.2.3",
    );
  });

  test("a list item starting with a number inside = x = entries is not an entry", () => {
    expect(newest("= 3.2.1 =\n* 6.5 - compatibility with the new editor\n* 6.4 compat\n\n= 3.2.0 =\n* x")).toBe(
      "3.2.1",
    );
  });

  test("headings that do not start with a version are not entries", () => {
    expect(headingVersion("Notes for WordPress 6.4").version).toBeNull();
    expect(headingVersion("Changelog").version).toBeNull();
    expect(newest("## Compatibility with WordPress 6.5\n\n## Installation")).toBeNull();
  });

  test("unreleased, upcoming, TBD and in-development entries are skipped", () => {
    expect(newest("= 2.0.0 (unreleased) =\n* x\n= 1.9.0 =\n* y\n= 1.8.0 =\n* z")).toBe("1.9.0");
    expect(newest("## 3.0.0 - TBD\n- x\n## 2.9.1 - 2024-01-01\n- y")).toBe("2.9.1");
    expect(newest("= 1.1 - in development =\n* a\n= 1.0 =\n* b")).toBe("1.0");
    expect(headingVersion("[Unreleased]")).toEqual({ version: null, unreleased: true });
  });

  test("oldest first: the last entry, but only when the whole file was read", () => {
    const ascending = "= 1.0 =\n* First.\n= 1.1 =\n* More.\n= 1.2 =\n* Even more.";
    expect(parseChangelog(ascending, true)).toMatchObject({ order: "oldest_first", newest: { version: "1.2" } });
    expect(parseChangelog(ascending, false).newest).toBeNull();
  });

  test("no clear order gives nothing; a hotfix of an old branch after the newest is fine", () => {
    expect(newest("= 1.5 =\n= 2.3 =\n= 1.1 =\n= 2.0 =")).toBeNull();
    expect(newest("= 3.1.0 =\n= 3.0.2 =\n= 2.9.9 =\n= 3.0.1 =\n= 3.0.0 =\n= 2.9.8 =\n= 2.9.7 =\n= 2.9.6 =")).toBe(
      "3.1.0",
    );
  });

  test("dates are never versions", () => {
    expect(newest("= 2024.01.15 =\n* a\n= 2023.12.01 =\n* b")).toBeNull();
    expect(headingVersion("2024-01-10").version).toBeNull();
  });
});

describe("readme.txt", () => {
  test("Stable tag, a Version: field, and the changelog section up to the next section", () => {
    const readme = parsePluginReadme(
      "=== Acme Notices ===\nContributors: acme\nVersion: 1.4.0\nStable tag: 1.4.0\n\nShort.\n\n== Changelog ==\n\n= 1.4.0 =\n* a\n\n= 1.3.9 =\n* b\n\n== Upgrade Notice ==\n\n= 9.9 =\nnot an entry",
    );
    expect(readme).toMatchObject({ name: "Acme Notices", stableTag: "1.4.0", version: "1.4.0" });
    expect(readme.changelog?.entries.map((entry) => entry.version)).toEqual(["1.4.0", "1.3.9"]);
  });

  test("a CRLF readme is cut at its next section like any other", () => {
    const readme = parsePluginReadme(
      "=== X ===\r\nStable tag: 1.3.0\r\n\r\n== Changelog ==\r\n\r\n= 1.3.0 =\r\n* a\r\n= 1.2.0 =\r\n* b\r\n\r\n== Upgrade Notice ==\r\n\r\n= 1.3.0 =\r\nUpgrade.\r\n",
    );
    expect(readme.stableTag).toBe("1.3.0");
    expect(readme.changelog?.entries.map((entry) => entry.version)).toEqual(["1.3.0", "1.2.0"]);
  });

  test("Stable tag: trunk is no release; Requires PHP and Tested up to are not versions", () => {
    const readme = parsePluginReadme(
      "=== X ===\nRequires at least: 6.0\nTested up to: 6.5\nRequires PHP: 7.4\nStable tag: trunk\n\n== Description ==\nx",
    );
    expect(readme).toMatchObject({ stableTag: null, version: null, changelog: null });
  });

  test("the Markdown variant: **Stable tag:** 2.1.0 and ## Changelog / ### 2.1.0", () => {
    const readme = parsePluginReadme(
      "# Acme Maps #\n**Contributors:** acme\n**Stable tag:** 2.1.0\n\n## Description ##\nMaps.\n\n## Changelog ##\n\n### 2.1.0 ###\n* a\n\n### 2.0.0 ###\n* b\n\n## Screenshots ##\n",
    );
    expect(readme.stableTag).toBe("2.1.0");
    expect(readme.changelog?.newest?.version).toBe("2.1.0");
  });
});

describe("translation templates, manifests and banners", () => {
  const pot = (value: string) =>
    `# Copyright (C) 2024\nmsgid ""\nmsgstr ""\n"Project-Id-Version: ${value}\\n"\n"MIME-Version: 1.0\\n"\n`;

  test(".pot: Project-Id-Version 'Name X.Y.Z', with or without a v; the placeholder gives nothing", () => {
    expect(parsePotHeader(pot("Contact Forms Plus 5.9.3"))).toMatchObject({
      version: "5.9.3",
      name: "Contact Forms Plus",
    });
    expect(parsePotHeader(pot("acme-maps v2.0.1"))).toMatchObject({ version: "2.0.1", name: "acme-maps" });
    expect(parsePotHeader(pot("3.4"))).toMatchObject({ version: "3.4", name: null });
    expect(parsePotHeader(pot("PACKAGE VERSION"))).toBeNull();
    expect(parsePotHeader(pot("Acme Maps"))).toBeNull();
    expect(parsePotHeader("<html><body>Project-Id-Version: X 1.0</body></html>")).toBeNull();
  });

  test("package.json and composer.json: version with its name; not JSON, placeholders and dates give nothing", () => {
    expect(parseManifest('{"name": "@acme/maps", "version": "2.0.1", "private": true}')).toMatchObject({
      version: "2.0.1",
      name: "@acme/maps",
    });
    expect(parseManifest('{"name": "acme/maps", "type": "wordpress-plugin"}')).toBeNull();
    expect(parseManifest('{"name": "maps", "version": "0.0.0"}')).toBeNull();
    expect(parseManifest('{"name": "maps", "version": "20240101"}')).toBeNull();
    expect(parseManifest('{"name": "maps", "version": "1.2.3"')).toBeNull(); // truncated
    expect(parseManifest("<!doctype html><title>Not found</title>")).toBeNull();
  });

  test("names: the plugin's words in any order, noise words aside; a boilerplate's name is not the plugin's", () => {
    expect(namesPlugin("woocommerce-gateway-stripe", "woocommerce-gateway-stripe", null)).toBe(true);
    expect(namesPlugin("WooCommerce Stripe Gateway", "woocommerce-gateway-stripe", null)).toBe(true);
    expect(namesPlugin("acme/wpforms", "wpforms-lite", null)).toBe(true);
    expect(namesPlugin("@acme/maps-block", "maps-block", null)).toBe(true);
    expect(namesPlugin("WPBakery Page Builder", "js_composer", "WPBakery Page Builder")).toBe(true);
    expect(namesPlugin("Smush", "wp-smushit", null)).toBe(true);
    expect(namesPlugin("plugin-boilerplate", "split-plugin", "Split Plugin")).toBe(false);
    expect(namesPlugin("create-block", "acme-tabs", null)).toBe(false);
    expect(namesPlugin("wp-plugin", "acme-tabs", null)).toBe(false);
  });

  test("banners: /*! Name v1.2.3 */, Name - v1.2.3 - date, Version: beside Plugin Name / @package", () => {
    const banner = (text: string) => parseBanner(leadingComment(text) ?? "");
    expect(banner("/*! Lazy Embed v0.9.4 | (c) Acme | GPL */\n!function(){}")).toMatchObject({
      version: "0.9.4",
      name: "Lazy Embed",
    });
    expect(banner("/*! acme-tabs - v1.3.0 - 2024-02-02 */")).toMatchObject({ version: "1.3.0", name: "acme-tabs" });
    expect(banner("/**\n * Plugin Name: Acme Tabs\n * Version: 1.3.0\n */\n.tabs{}")).toMatchObject({
      version: "1.3.0",
      name: "Acme Tabs",
    });
    expect(banner("/**\n * Front-end behaviour.\n *\n * @package Acme_Tabs\n * @version 1.3.0\n */")).toMatchObject({
      version: "1.3.0",
      name: "Acme_Tabs",
    });
    expect(banner("/**\n * Foo Gallery front-end scripts\n * Version: 2.4.1\n */")).toMatchObject({
      version: "2.4.1",
      form: "tagged",
    });
    expect(banner("/*! For license information please see view.js.LICENSE.txt */")).toBeNull();
    expect(banner("/******/ (() => { // webpackBootstrap")).toBeNull();
    expect(banner("!function(){}() /*! Late v1.0.0 */")).toBeNull();
  });
});

test("a banner counts for its plugin only: its own name, or a Version: tag under a line that starts with it", () => {
  const artifacts = homepageOnly(`${ORIGIN}/`, "<html><body></body></html>");
  const asset = (path: string, head: string) => ({
    url: `${ORIGIN}/wp-content/plugins/foo-gallery/${path}`,
    type: "script" as const,
    status: 200,
    headers: {},
    bytes: head.length,
    head,
  });
  const versionOf = (head: string, path = "assets/js/front.js") => {
    const site = structuredClone(artifacts);
    site.assets = [asset(path, head)];
    return pickVersion(
      pluginFileVersions(site, "foo-gallery", { paths: null, displayName: null, pageVotes: [] }).signals,
    ).version;
  };
  expect(versionOf("/**\n * Foo Gallery front-end scripts\n * Version: 2.4.1\n */")).toBe("2.4.1");
  expect(versionOf("/*! Foo Gallery v2.4.1 */")).toBe("2.4.1");
  expect(versionOf("/*! Masonry PACKAGED v4.2.2 */")).toBeNull();
  expect(versionOf("/*! Foo Gallery v2.4.1 */", "vendor/foo-gallery/front.js")).toBeNull();
  expect(versionOf("/**\n * Gallery helpers\n * Version: 1.0.0\n */")).toBeNull();
});

describe("?ver= that is not the plugin's version", () => {
  const problem = (value: string, siteStamp: string | null = null) =>
    versionParameterProblem(value, { coreVersion: "6.5.3", siteStamp });

  test("WordPress's version, Unix times, filemtime, date stamps, hashes, bare numbers, placeholders", () => {
    expect(problem("6.5.3")).toContain("WordPress version");
    expect(problem("1717171717")).toContain("not a version");
    expect(problem("20240105")).toContain("not a version");
    expect(problem("2024.01.05")).toBe("a date stamp");
    expect(problem("2024-01-05")).toContain("not a version");
    expect(problem("a1b2c3d4")).toContain("not a version");
    expect(problem("1")).toContain("bare number");
    expect(problem("4821")).toContain("bare number");
    expect(problem("0.0.0")).toBe("a placeholder");
  });

  test("a shared value is refused only with the evidence that it is the site's stamp (ver-stamps.ts)", () => {
    expect(problem("1.0.3", "also on WordPress core's own files")).toContain("the site's stamp");
    expect(problem("1.0.3")).toBeNull();
    expect(versionParameterProblem("1.0.3", { coreVersion: null, readmeContradicts: true })).toContain("readme.txt");
  });

  test("real versions pass, calendar versions too", () => {
    for (const value of ["2.4.1", "1.0", "10.3.2.1", "3.0.0-beta2", "2021.11"]) expect(problem(value)).toBeNull();
  });

  test("1.2 and 1.2.0 are one release when votes are counted", () => {
    expect(versionKey("1.2.0")).toBe(versionKey("1.2"));
    expect(versionKey("1.2-beta")).not.toBe(versionKey("1.2"));
    const picked = pickVersion([
      { source: "a", value: "", weight: 0.5, version: "1.2" },
      { source: "b", value: "", weight: 0.45, version: "1.2.0" },
      { source: "c", value: "", weight: 0.6, version: "1.3" },
    ]);
    expect(picked.version).toBe("1.2.0");
  });
});

describe("precedence when files disagree", () => {
  const site = homepageOnly(`${ORIGIN}/`, "<html><head><title>x</title></head><body></body></html>");
  const url = (file: string) => `${ORIGIN}/wp-content/plugins/acme/${file}`;
  const files = (answers: Partial<Record<ProbeKey, string>>, pageVotes: { version: string }[] = []) => {
    const artifacts: Artifacts = structuredClone(site);
    artifacts.probes = {};
    for (const [key, body] of Object.entries(answers))
      artifacts.probes[key as ProbeKey] = answer(url(key), 200, body ?? "");
    const found = pluginFileVersions(artifacts, "acme", {
      paths: null,
      displayName: null,
      pageVotes: pageVotes.map((vote) => ({ source: "asset_ver", value: "", weight: 0.5, ...vote })),
    });
    return { ...found, version: pickVersion(found.signals).version };
  };
  const readme = (stable: string, changelog: string[]) =>
    `=== Acme ===\nStable tag: ${stable}\n\nx\n\n== Changelog ==\n\n${changelog.map((v) => `= ${v} =\n* x\n`).join("\n")}`;
  const pot = (version: string) => `msgid ""\nmsgstr ""\n"Project-Id-Version: Acme ${version}\\n"\n`;

  test("Stable tag and changelog agree: decided", () => {
    expect(files({ [probeKey("plugin_readme", "acme")]: readme("2.0.0", ["2.0.0", "1.9"]) })).toMatchObject({
      verdict: "decided",
      version: "2.0.0",
    });
  });

  test("Stable tag lags the changelog, nothing else: no version (a contradiction, not a guess)", () => {
    const found = files({ [probeKey("plugin_readme", "acme")]: readme("1.2.0", ["1.3.0", "1.2.0"]) });
    expect(found).toMatchObject({ verdict: "contradictory", version: null });
    expect(found.signals.some((signal) => signal.value.includes("not counted"))).toBe(true);
  });

  test("a third source breaks the tie: the .pot, or the page's ?ver=", () => {
    const withPot = files({
      [probeKey("plugin_readme", "acme")]: readme("1.2.0", ["1.3.0", "1.2.0"]),
      [probeKey("plugin_pot", "acme")]: pot("1.3.0"),
    });
    expect(withPot).toMatchObject({ verdict: "decided", version: "1.3.0" });
    const withPage = files({ [probeKey("plugin_readme", "acme")]: readme("1.2.0", ["1.3.0", "1.2.0"]) }, [
      { version: "1.2.0" },
    ]);
    expect(withPage).toMatchObject({ verdict: "decided", version: "1.2.0" });
  });

  test("a stale .pot is outvoted by Stable tag and changelog", () => {
    expect(
      files({
        [probeKey("plugin_readme", "acme")]: readme("3.1.0", ["3.1.0", "3.0.0"]),
        [probeKey("plugin_pot", "acme")]: pot("2.8.0"),
      }),
    ).toMatchObject({ verdict: "decided", version: "3.1.0" });
  });

  test("package.json left at 1.0.0 is outvoted by any release file; alone it is a weak version", () => {
    const pkg = '{"name": "acme", "version": "1.0.0"}';
    expect(
      files({ [probeKey("plugin_package_json", "acme")]: pkg, [probeKey("plugin_pot", "acme")]: pot("4.2.0") }),
    ).toMatchObject({ verdict: "decided", version: "4.2.0" });
    expect(files({ [probeKey("plugin_package_json", "acme")]: pkg })).toMatchObject({
      verdict: "weak",
      version: "1.0.0",
    });
  });

  test("package.json and composer.json that disagree give nothing", () => {
    expect(
      files({
        [probeKey("plugin_package_json", "acme")]: '{"name": "acme", "version": "1.0.0"}',
        [probeKey("plugin_composer_json", "acme")]: '{"name": "vendor/acme", "version": "1.4.0"}',
      }),
    ).toMatchObject({ verdict: "contradictory", version: null });
  });

  test("an archive of older entries (changelog.txt beside the readme's changelog) names nothing", () => {
    const archive =
      "=== Acme ===\n\n== Archived Changelog Entries ==\n\nThis file contains older changelog entries.\n\n= 4.1.12 =\n* x\n= 4.1.11 =\n* y";
    const found = files({
      [probeKey("plugin_readme", "acme")]: readme("5.0.2", ["5.0.2", "5.0.1"]),
      [probeKey("plugin_changelog", "acme")]: archive,
    });
    expect(found).toMatchObject({ verdict: "decided", version: "5.0.2" });
    expect(found.signals.find((signal) => signal.value.includes("archive"))?.version).toBeUndefined();
  });

  test("of two changelogs the newer speaks: the readme keeps recent entries, CHANGELOG.md all of them", () => {
    expect(
      files({
        [probeKey("plugin_readme", "acme")]:
          "=== Acme ===\nStable tag: trunk\n\n== Changelog ==\n\n= 1.9 =\n* x\n= 1.8 =\n* y",
        [probeKey("plugin_changelog_md", "acme")]: "# Changelog\n\n## 2.0.0\n- a\n\n## 1.9\n- b",
      }),
    ).toMatchObject({ verdict: "decided", version: "2.0.0" });
  });

  test("a soft 404 (an HTML page with status 200) is no file", () => {
    expect(
      files({ [probeKey("plugin_changelog", "acme")]: "<!doctype html><html><h1>= 9.9.9 =</h1></html>" }),
    ).toMatchObject({ verdict: "none", version: null });
  });
});

describe("the version-files test site (test/analyzer/sites/version-files), passive capture", () => {
  const artifacts = loadArtifacts("site-version-files");
  const pluginsOf = (site: Artifacts) => {
    const paths = detectSitePaths(site);
    return new Map(detectPlugins(site, paths, detectWordPress(site, paths).version).map((p) => [p.slug, p]));
  };
  const plugins = pluginsOf(artifacts);
  const sources = (plugin: PluginInfo | undefined) => plugin?.evidence.map((item) => item.source) ?? [];

  test("every plugin's version, from the file that states it", () => {
    const versions = Object.fromEntries([...plugins].map(([slug, plugin]) => [slug, plugin.version]));
    expect(versions).toEqual({
      "foo-gallery": "2.4.1", // languages/foo-gallery.pot (the readme says trunk)
      "acme-forms": "3.1.0", // changelog.txt, WooCommerce style; its ?ver= is WordPress's
      "quick-blocks": "1.8.2", // CHANGELOG.md, [Unreleased] skipped; its ?ver= a Unix time
      "lazy-embed": "0.9.4", // readme, and its script's banner agrees
      "stale-readme": "1.3.0", // Stable tag 1.2.0 outvoted by the changelog and the .pot
      "split-plugin": null, // Stable tag 2.0.0 vs changelog 2.1.0, nothing else: no guess
    });
    expect(sources(plugins.get("foo-gallery"))).toContain("translation_template");
    expect(sources(plugins.get("lazy-embed"))).toContain("asset_banner");
  });

  test("?ver= equal to WordPress's version is kept as evidence without a vote, and says why", () => {
    const ver = plugins.get("acme-forms")?.evidence.find((item) => item.source === "asset_ver");
    expect(ver?.value).toContain("not the plugin's version: the WordPress version");
  });

  test("the bundled Select2's banner is not acme-forms' version", () => {
    expect(JSON.stringify(plugins.get("acme-forms")?.evidence)).not.toContain("4.0.13");
  });

  test("without the .pot, foo-gallery has no version: nothing is guessed", () => {
    const without = variant(artifacts, { probes: { [probeKey("plugin_pot", "foo-gallery")]: null } });
    expect(pluginsOf(without).get("foo-gallery")?.version).toBeNull();
  });

  test("the passive reads stopped at the first decisive answer and stayed within their caps", () => {
    const asked = Object.keys(artifacts.probes).filter((key) =>
      /^plugin_(?:pot|changelog|changelog_md|package_json|composer_json|pot_lang|asset):/.test(key),
    );
    expect(asked.sort()).toEqual(
      [
        "plugin_pot:foo-gallery", // decided: no changelog asked
        "plugin_pot:acme-forms",
        "plugin_changelog:acme-forms",
        "plugin_pot:quick-blocks",
        "plugin_changelog:quick-blocks",
        "plugin_changelog_md:quick-blocks",
        "plugin_pot:stale-readme",
        "plugin_pot:split-plugin",
        "plugin_changelog:split-plugin",
        "plugin_changelog_md:split-plugin",
      ].sort(),
    );
  });
});
