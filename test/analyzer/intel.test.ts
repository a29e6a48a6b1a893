/** Component intelligence: loading and validating the data file, version maths, applying it to detected components. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { detect } from "../../server/analyzer/analyze.ts";
import {
  applyIntel,
  assessComponent,
  compareVersions,
  emptyIntel,
  IntelDataError,
  loadIntel,
  NO_VULNERABILITY_SOURCE,
  parseIntel,
} from "../../server/analyzer/intel/index.ts";
import { loadArtifacts, WP_FIXTURE, WP_FIXTURE_TT3 } from "./artifacts.ts";

export const TEST_INTEL_FILE = path.join(import.meta.dir, "..", "platform", "intel", "intel.json");

const intel = loadIntel(TEST_INTEL_FILE);
const detected = detect(loadArtifacts(WP_FIXTURE));

/** A minimal valid file with `change` merged in at the top level. */
const file = (change: Record<string, unknown> = {}) => ({
  format: 1,
  wordpress: { latest_version: "6.8.3" },
  ...change,
});
const withPlugin = (entry: unknown) => file({ plugins: { demo: entry } });
const vulnerability = (change: Record<string, unknown> = {}) => ({
  id: "TEST-9001",
  title: "Test advisory",
  severity: "high",
  affected: [{ fixed_in: "2.0" }],
  ...change,
});

describe("version comparison (semver with WordPress's formats)", () => {
  test.each([
    ["6.1", "6.1.0", 0],
    ["6.1.9", "6.1.10", -1],
    ["6.5-RC1", "6.5", -1],
    ["4.7.3", "4.7.3.1", -1],
    ["4.7.3.1", "4.7.3.2", -1],
    ["4.7.3.10", "4.7.3.9", 1],
    ["4.7.3.2", "4.7.4", -1],
    ["1.02", "1.2", 0],
    ["10.0", "9.9.9", 1],
  ])("%s vs %s → %d", (a, b, expected) => {
    expect(Math.sign(compareVersions(a, b) ?? Number.NaN)).toBe(expected);
  });

  test("text without a version number is not comparable", () => {
    expect(compareVersions("trunk", "1.0")).toBeNull();
    expect(compareVersions("1.0", "")).toBeNull();
  });
});

describe("loadIntel", () => {
  test("reads the test data file", () => {
    expect(intel.updated).toBe("2026-11-20");
    expect(intel.wordpress?.latest_version).toBe("6.8.3");
    expect(intel.wordpress?.vulnerabilities.map((entry) => entry.id)).toEqual(["TEST-0001", "TEST-0002", "TEST-0003"]);
    expect([...intel.plugins.keys()]).toEqual(["akismet", "xrds-simple", "all-in-one-seo-pack"]);
    expect(intel.plugins.get("akismet")?.vulnerabilities[0]).toEqual({
      id: "TEST-0101",
      title: "Test advisory: CSRF in settings",
      severity: "high",
      cvss: 7.1,
      cvss_rating: null,
      cvss_vector: null,
      cve: ["CVE-0000-00101"],
      affected: [{ from: "5.0", from_inclusive: true, to: "5.0.3", to_inclusive: false }],
      patched: ["5.0.3"],
      references: ["https://example.org/advisories/TEST-0101"],
      source: "file",
    });
    // Optional fields default: no cve, no references, cvss null.
    expect(intel.plugins.get("xrds-simple")?.vulnerabilities[0]).toMatchObject({ cvss: null, cve: [], references: [] });
    expect(intel.themes.get("twentytwentyone")).toEqual({
      latest_version: "2.6",
      latest_version_reason: null,
      vulnerabilities: [],
    });
  });

  test("a missing file and a file that is not JSON fail with the path in the message", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "wpreport-intel-"));
    const missing = path.join(dir, "missing.json");
    expect(() => loadIntel(missing)).toThrow(IntelDataError);
    expect(() => loadIntel(missing)).toThrow(`intel data ${missing}: cannot be read`);
    const broken = path.join(dir, "broken.json");
    writeFileSync(broken, "{ not json");
    expect(() => loadIntel(broken)).toThrow(`intel data ${broken}: not valid JSON`);
    const invalid = path.join(dir, "invalid.json");
    writeFileSync(invalid, JSON.stringify(file({ wordpress: { latest_version: "latest" } })));
    expect(() => loadIntel(invalid)).toThrow(`intel data ${invalid}: wordpress.latest_version: must be a version`);
  });

  test.each([
    ["not an object", [], "(file): must be an object"],
    ["wrong format", file({ format: 2 }), "format: must be 1 (got 2)"],
    ["no wordpress entry", { format: 1 }, "wordpress: is required"],
    ["unknown top-level field", file({ plugin: {} }), '(file): unknown field "plugin"'],
    ["bad updated date", file({ updated: "2026/11/20" }), "updated: must be a date"],
    [
      "upper-case slug",
      file({ plugins: { Akismet: { latest_version: "1.0" } } }),
      "plugins.Akismet: slug must be lower case",
    ],
    ["missing latest_version", withPlugin({}), "plugins.demo.latest_version: must be a version"],
    [
      "unknown component field",
      withPlugin({ latest_version: "1.0", latest: "1.0" }),
      'plugins.demo: unknown field "latest"',
    ],
    [
      "typo in a range field",
      withPlugin({ latest_version: "2.0", vulnerabilities: [vulnerability({ affected: [{ fixedin: "2.0" }] })] }),
      'plugins.demo.vulnerabilities[0].affected[0]: unknown field "fixedin"',
    ],
    [
      "bad severity",
      withPlugin({ latest_version: "2.0", vulnerabilities: [vulnerability({ severity: "severe" })] }),
      "plugins.demo.vulnerabilities[0].severity: must be one of critical, high, medium, low, info",
    ],
    [
      "cvss out of range",
      withPlugin({ latest_version: "2.0", vulnerabilities: [vulnerability({ cvss: 11 })] }),
      "plugins.demo.vulnerabilities[0].cvss: must be a number from 0 to 10",
    ],
    [
      "malformed CVE id",
      withPlugin({ latest_version: "2.0", vulnerabilities: [vulnerability({ cve: ["2024-1234"] })] }),
      "plugins.demo.vulnerabilities[0].cve[0]: must be a CVE id",
    ],
    [
      "reference that is not a URL",
      withPlugin({ latest_version: "2.0", vulnerabilities: [vulnerability({ references: ["see advisory"] })] }),
      "plugins.demo.vulnerabilities[0].references[0]: must be an http(s) URL",
    ],
    [
      "no affected range",
      withPlugin({ latest_version: "2.0", vulnerabilities: [vulnerability({ affected: [] })] }),
      "plugins.demo.vulnerabilities[0].affected: must list at least one version range",
    ],
    [
      "fixed_in and last_affected together",
      withPlugin({
        latest_version: "2.0",
        vulnerabilities: [vulnerability({ affected: [{ fixed_in: "2.0", last_affected: "1.9" }] })],
      }),
      "plugins.demo.vulnerabilities[0].affected[0]: give fixed_in or last_affected, not both",
    ],
    [
      "introduced not before fixed_in",
      withPlugin({
        latest_version: "2.0",
        vulnerabilities: [vulnerability({ affected: [{ introduced: "2.0", fixed_in: "1.5" }] })],
      }),
      "plugins.demo.vulnerabilities[0].affected[0]: introduced (2.0) must be older than fixed_in (1.5)",
    ],
    [
      "bad version in a range",
      withPlugin({ latest_version: "2.0", vulnerabilities: [vulnerability({ affected: [{ fixed_in: "v2" }] })] }),
      'plugins.demo.vulnerabilities[0].affected[0].fixed_in: must be a version such as "6.4.2" or "5.0" (got "v2")',
    ],
    [
      "duplicate vulnerability id",
      withPlugin({ latest_version: "2.0", vulnerabilities: [vulnerability(), vulnerability()] }),
      'plugins.demo.vulnerabilities[1].id: duplicate id "TEST-9001"',
    ],
  ])("refuses %s", (_, data, message) => {
    expect(() => parseIntel(data, "test")).toThrow(IntelDataError);
    expect(() => parseIntel(data, "test")).toThrow(`test: ${message}`);
  });
});

describe("applyIntel", () => {
  test("no data (the default): every component keeps null / [] ", () => {
    const result = applyIntel(detected, emptyIntel());
    for (const component of [result.wordpress, result.theme, ...result.plugins]) {
      expect(component).toMatchObject({
        latest_version: null,
        latest_version_reason: "no_data",
        outdated: null,
        vulnerabilities: [],
      });
    }
    expect(result.intel).toEqual({
      vulnerabilityData: false,
      coverage: { status: "none", message: NO_VULNERABILITY_SOURCE, unchecked: [] },
      sources: [],
    });
  });

  test("WordPress 6.1.9: outdated; only the advisory whose 6.1 fix is newer than 6.1.9 applies", () => {
    const { wordpress } = applyIntel(detected, intel);
    expect(wordpress.version).toBe("6.1.9");
    expect(wordpress.latest_version).toBe("6.8.3");
    expect(wordpress.outdated).toBe(true);
    // TEST-0002 was fixed in 5.8.3; TEST-0003 was backported to 6.1.5; TEST-0001's 6.1 fix is 6.1.10.
    expect(wordpress.vulnerabilities).toEqual([
      {
        id: "TEST-0001",
        title: "Test advisory: stored XSS in a core block",
        severity: "medium",
        cvss: 6.4,
        cvss_rating: null,
        cvss_vector: null,
        cve: [],
        affected: ">= 6.1, < 6.1.10",
        fixed_in: "6.1.10",
        references: ["https://example.org/advisories/TEST-0001"],
        source: "file",
        sources: ["file"],
        unfixed: false,
      },
    ]);
  });

  test("plugins: akismet 5.0.2 is outdated and affected; xrds-simple has no known version, so nothing is claimed", () => {
    const { plugins } = applyIntel(detected, intel);
    const akismet = plugins.find((plugin) => plugin.slug === "akismet");
    expect(akismet).toMatchObject({ version: "5.0.2", latest_version: "5.3.5", outdated: true });
    expect(akismet?.vulnerabilities.map((entry) => [entry.id, entry.fixed_in])).toEqual([["TEST-0101", "5.0.3"]]);
    const xrds = plugins.find((plugin) => plugin.slug === "xrds-simple");
    expect(xrds).toMatchObject({ version: null, latest_version: "1.2", outdated: null, vulnerabilities: [] });
  });

  test("themes: twentytwentyone 1.7 is outdated without advisories; twentytwentythree 1.0 has a low one", () => {
    expect(applyIntel(detected, intel).theme).toMatchObject({
      slug: "twentytwentyone",
      version: "1.7",
      latest_version: "2.6",
      outdated: true,
      vulnerabilities: [],
    });
    const tt3 = applyIntel(detect(loadArtifacts(WP_FIXTURE_TT3)), intel).theme;
    expect(tt3?.outdated).toBe(true);
    expect(tt3?.vulnerabilities.map((entry) => [entry.id, entry.severity, entry.fixed_in])).toEqual([
      ["TEST-0201", "low", null],
    ]);
  });

  test("a child theme's parent is assessed too", () => {
    const theme = detected.theme;
    if (!theme) throw new Error("fixture has a theme");
    const child = { ...theme, slug: "my-child", version: "1.0", parent: { ...theme, slug: "twentytwentythree" } };
    const result = applyIntel({ ...detected, theme: child }, intel).theme;
    expect(result).toMatchObject({ slug: "my-child", latest_version: null, outdated: null });
    expect(result?.parent).toMatchObject({ slug: "twentytwentythree", version: "1.7", outdated: false });
    expect(result?.parent?.vulnerabilities).toEqual([]);
  });

  test("four-part versions, newer-than-data versions, unknown slugs and upper-case slugs", () => {
    const aioseo = intel.plugins.get("all-in-one-seo-pack");
    expect(assessComponent("4.7.3", aioseo).vulnerabilities.map((entry) => entry.id)).toEqual(["TEST-0161"]);
    expect(assessComponent("4.7.3.1", aioseo)).toMatchObject({ outdated: true, vulnerabilities: [] });
    expect(assessComponent("4.7.3.2", aioseo).outdated).toBe(false);
    // Data behind the site is not the site's problem.
    expect(assessComponent("4.8", aioseo).outdated).toBe(false);
    // A version we cannot read is treated like an unknown one.
    expect(assessComponent("trunk", aioseo)).toEqual({
      latest_version: "4.7.3.2",
      latest_version_reason: null,
      outdated: null,
      vulnerabilities: [],
    });

    const plugins = detected.plugins.map((plugin) => ({ ...plugin, slug: plugin.slug.toUpperCase() }));
    plugins.push({ ...(plugins[0] as (typeof plugins)[number]), slug: "constructor" });
    const result = applyIntel({ ...detected, plugins }, intel).plugins;
    expect(result.map((plugin) => [plugin.slug, plugin.latest_version])).toEqual([
      ["AKISMET", "5.3.5"],
      ["XRDS-SIMPLE", "1.2"],
      ["constructor", null],
    ]);
  });

  test("vulnerabilities are ordered by severity, then id", () => {
    const data = parseIntel(
      withPlugin({
        latest_version: "3.0",
        vulnerabilities: [
          vulnerability({ id: "TEST-0003", severity: "low" }),
          vulnerability({ id: "TEST-0002", severity: "critical" }),
          vulnerability({ id: "TEST-0001", severity: "low" }),
          vulnerability({ id: "TEST-0004", severity: "high", affected: [{ introduced: "1.5" }] }),
        ],
      }),
    );
    const result = assessComponent("1.0", data.plugins.get("demo"));
    expect(result.vulnerabilities.map((entry) => entry.id)).toEqual(["TEST-0002", "TEST-0001", "TEST-0003"]);
    // A range with only `introduced` covers every later version (no fix yet).
    expect(assessComponent("2.9", data.plugins.get("demo")).vulnerabilities.map((entry) => entry.id)).toEqual([
      "TEST-0004",
    ]);
  });

  test("is pure: the input is not changed and the result shares no component objects with it", () => {
    const before = structuredClone(detected);
    const result = applyIntel(detected, intel);
    expect(detected).toEqual(before);
    expect(result.wordpress).not.toBe(detected.wordpress);
    expect(result.plugins[0]).not.toBe(detected.plugins[0]);
    expect(result.artifacts).toBe(detected.artifacts);
    expect(applyIntel(detected, intel)).toEqual(result);
  });

  test("a site that is not WordPress keeps its WordPress fields empty", () => {
    const notWordPress = {
      ...detected,
      wordpress: { ...detected.wordpress, detected: false },
      theme: null,
      plugins: [],
    };
    expect(applyIntel(notWordPress, intel).wordpress).toMatchObject({ latest_version: null, outdated: null });
  });
});
