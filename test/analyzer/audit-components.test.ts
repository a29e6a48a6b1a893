/** Component audits (core, plugins, theme, PHP, plugin readmes) on saved artifacts, with and without intel data. */
import { describe, expect, test } from "bun:test";
import path from "node:path";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { CHECKS } from "../../server/analyzer/audit/catalogue.ts";
import { auditCore } from "../../server/analyzer/audit/components/core.ts";
import { COMPONENT_AUDITS } from "../../server/analyzer/audit/components/index.ts";
import { auditPhp, PHP_BRANCHES, PHP_BRANCHES_UPDATED } from "../../server/analyzer/audit/components/php.ts";
import { auditPluginReadmes } from "../../server/analyzer/audit/components/plugin-readmes.ts";
import { auditPlugins } from "../../server/analyzer/audit/components/plugins.ts";
import { auditTheme } from "../../server/analyzer/audit/components/theme.ts";
import type { Audit } from "../../server/analyzer/audit/types.ts";
import type { Facts } from "../../server/analyzer/facts.ts";
import { applyIntel, emptyIntel, type Intel, loadIntel, parseIntel } from "../../server/analyzer/intel/index.ts";
import type { CheckStatus } from "../../shared/report.ts";
import { answer, homepageOnly, loadArtifacts, variant, WP_FIXTURE, WP_FIXTURE_TT3 } from "./artifacts.ts";
import { factsOf, statusOf } from "./facts.ts";

const fixture = loadArtifacts(WP_FIXTURE);
const tt3 = loadArtifacts(WP_FIXTURE_TT3);
const intel = loadIntel(path.join(import.meta.dir, "..", "platform", "intel", "intel.json"));

const withIntel = (artifacts: Artifacts, data: Intel = intel): Facts => applyIntel(factsOf(artifacts), data);
const run = (audit: Audit, facts: Facts, id: string) => {
  const check = audit(facts).find((item) => item.id === id);
  if (!check) throw new Error(`${id} not produced`);
  return check;
};

/** Intel saying every component of the default fixture is current and has no advisories. */
const current = parseIntel({
  format: 1,
  wordpress: { latest_version: "6.1.9" },
  plugins: { akismet: { latest_version: "5.0.2" }, "xrds-simple": { latest_version: "1.2" } },
  themes: { twentytwentyone: { latest_version: "1.7" } },
});

describe("core", () => {
  test("no intel data → both checks skip and say what is missing", () => {
    const outdated = run(auditCore, withIntel(fixture, emptyIntel()), "components.core_outdated");
    expect(outdated.status).toBe("skip");
    expect(outdated.message).toBe("No latest version is known (WordPress: no data source knows it).");
    const vulnerable = run(auditCore, withIntel(fixture, emptyIntel()), "components.core_vulnerable");
    expect(vulnerable.status).toBe("skip");
    expect(vulnerable.message).toContain("No vulnerability data source was consulted for this report");
    expect(vulnerable.message).toContain("Whether WordPress has known vulnerabilities cannot be said");
  });

  test("6.1.9 against the test data: outdated (fail) and a medium advisory (fail)", () => {
    const facts = withIntel(fixture);
    const outdated = run(auditCore, facts, "components.core_outdated");
    expect(outdated.status).toBe("fail");
    expect(outdated.message).toBe("WordPress 6.1.9 is older than the latest release, 6.8.3.");
    expect(outdated.evidence).toEqual(["WordPress 6.1.9 → 6.8.3"]);
    const vulnerable = run(auditCore, facts, "components.core_vulnerable");
    expect(vulnerable.status).toBe("fail");
    // The check takes its worst vulnerability's severity.
    expect(vulnerable.severity).toBe("medium");
    expect(vulnerable.evidence).toEqual([
      "WordPress 6.1.9: TEST-0001 (medium, CVSS 6.4) Test advisory: stored XSS in a core block [affects >= 6.1, < 6.1.10] — update WordPress to 6.1.10",
    ]);
  });

  test("current version without advisories → both pass", () => {
    const facts = withIntel(fixture, current);
    expect(statusOf(auditCore(facts), "components.core_outdated")).toBe("pass");
    expect(statusOf(auditCore(facts), "components.core_vulnerable")).toBe("pass");
  });

  test("only low-severity advisories → vulnerable warns", () => {
    const low = parseIntel({
      format: 1,
      wordpress: {
        latest_version: "6.1.9",
        vulnerabilities: [{ id: "TEST-0009", title: "Test", severity: "low", affected: [{ last_affected: "6.2" }] }],
      },
    });
    expect(statusOf(auditCore(withIntel(fixture, low)), "components.core_vulnerable")).toBe("warn");
  });

  test("version unknown → skip (no guessing); not WordPress → skip", () => {
    const facts = factsOf(fixture);
    const hidden = applyIntel({ ...facts, wordpress: { ...facts.wordpress, version: null } }, intel);
    const check = run(auditCore, hidden, "components.core_vulnerable");
    expect(check.status).toBe("skip");
    expect(check.message).toBe("The installed version of WordPress could not be detected.");
    const site = withIntel(homepageOnly("https://example.com/", "<html><body><p>hello</p></body></html>"));
    expect(run(auditCore, site, "components.core_outdated").message).toBe("The site does not look like WordPress.");
  });
});

describe("plugins", () => {
  test("no intel → skip; with the test data → akismet outdated and vulnerable, xrds-simple not comparable", () => {
    const none = run(auditPlugins, withIntel(fixture, emptyIntel()), "components.plugins_outdated");
    expect(none).toMatchObject({ status: "skip" });
    expect(none.message).toBe(
      "No latest version is known (akismet: no data source knows it; xrds-simple: no data source knows it).",
    );
    const facts = withIntel(fixture);
    const outdated = run(auditPlugins, facts, "components.plugins_outdated");
    expect(outdated.status).toBe("fail");
    expect(outdated.evidence).toEqual(["akismet 5.0.2 → 5.3.5"]);
    expect(outdated.message).toContain("1 more could not be compared (version or latest release unknown)");
    const vulnerable = run(auditPlugins, facts, "components.plugins_vulnerable");
    expect(vulnerable.status).toBe("fail");
    expect(vulnerable.severity).toBe("high");
    expect(vulnerable.evidence).toEqual([
      "akismet 5.0.2: TEST-0101 (high, CVSS 7.1, CVE-0000-00101) Test advisory: CSRF in settings [affects >= 5.0, < 5.0.3] — update akismet to 5.0.3",
    ]);
  });

  test("current plugins → pass; no plugins → skip; versions unknown → skip", () => {
    const facts = withIntel(fixture, current);
    expect(statusOf(auditPlugins(facts), "components.plugins_outdated")).toBe("pass");
    expect(statusOf(auditPlugins(facts), "components.plugins_vulnerable")).toBe("pass");
    expect(run(auditPlugins, { ...facts, plugins: [] }, "components.plugins_outdated").message).toBe(
      "No plugins were detected.",
    );
    // The TT3 fixture's only plugin (xrds-simple) has no known version.
    const unknown = run(auditPlugins, withIntel(tt3), "components.plugins_vulnerable");
    expect(unknown.status).toBe("skip");
    expect(unknown.message).toBe("The installed version of xrds-simple could not be detected.");
  });
});

describe("theme", () => {
  test("no intel → skip; twentytwentyone 1.7 → outdated fails, no advisories passes", () => {
    expect(statusOf(auditTheme(withIntel(fixture, emptyIntel())), "components.theme_outdated")).toBe("skip");
    const facts = withIntel(fixture);
    expect(run(auditTheme, facts, "components.theme_outdated")).toMatchObject({
      status: "fail",
      evidence: ["twentytwentyone 1.7 → 2.6"],
    });
    expect(statusOf(auditTheme(facts), "components.theme_vulnerable")).toBe("pass");
    expect(statusOf(auditTheme(withIntel(fixture, current)), "components.theme_outdated")).toBe("pass");
  });

  test("twentytwentythree 1.0 with a low advisory → warn; no theme → skip", () => {
    const check = run(auditTheme, withIntel(tt3), "components.theme_vulnerable");
    expect(check.status).toBe("warn");
    expect(check.severity).toBe("low");
    expect(check.evidence).toEqual([
      "twentytwentythree 1.0: TEST-0201 (low, CVSS 3.1) Test advisory: low-impact information disclosure [affects <= 1.1] — no fix available",
    ]);
    expect(run(auditTheme, { ...withIntel(tt3), theme: null }, "components.theme_outdated").message).toBe(
      "No theme was detected.",
    );
  });

  test("the parent of a child theme counts", () => {
    const facts = factsOf(fixture);
    const theme = facts.theme;
    if (!theme) throw new Error("fixture has a theme");
    const child = { ...theme, slug: "my-child", version: "1.0", parent: { ...theme } };
    const check = run(auditTheme, applyIntel({ ...facts, theme: child }, intel), "components.theme_outdated");
    expect(check.status).toBe("fail");
    expect(check.evidence).toEqual(["twentytwentyone (parent theme) 1.7 → 2.6"]);
  });
});

describe("PHP end of life", () => {
  const php = (value: string | null) =>
    run(
      auditPhp,
      factsOf(
        variant(fixture, {
          headers: { ...fixture.homepage.headers, ...(value === null ? {} : { "x-powered-by": value }) },
        }),
      ),
      "components.php_eol",
    );

  test.each<[string, CheckStatus]>([
    ["PHP/7.4.33", "fail"],
    ["PHP/8.1.2", "fail"],
    ["PHP/5.4.45", "fail"],
    ["PHP/8.2.20", "pass"],
    ["PHP/8.4.1", "pass"],
    ["PHP/9.1.0", "skip"],
  ])("%s → %s", (header, expected) => {
    expect(php(header).status).toBe(expected);
  });

  test("the message and evidence name the branch and its end-of-life date; no header → skip", () => {
    expect(php("PHP/7.4.33")).toMatchObject({
      message: "PHP 7.4.33: the 7.4 branch stopped receiving security fixes on 2022-11-28.",
      evidence: ["x-powered-by: PHP/7.4.33", "PHP 7.4 end of life: 2022-11-28"],
    });
    expect(php(null)).toMatchObject({ status: "skip", message: "The site does not disclose its PHP version." });
  });

  test("the branch table is ordered, and dated no later than its last update", () => {
    const branches = PHP_BRANCHES.map((entry) => entry.branch);
    expect(branches).toEqual([...branches].sort((a, b) => Number(a) - Number(b)));
    expect(PHP_BRANCHES_UPDATED).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(PHP_BRANCHES.some((entry) => entry.eol > PHP_BRANCHES_UPDATED)).toBe(true);
  });
});

describe("plugin readme versions", () => {
  const check = (artifacts: Artifacts) =>
    run(auditPluginReadmes, factsOf(artifacts), "components.plugin_versions_exposed");

  test("akismet's readme.txt states 5.0.2 → fail", () => {
    expect(check(fixture)).toMatchObject({
      status: "fail",
      evidence: ["akismet: Stable tag: 5.0.2 (http://127.0.0.1:8088/wp-content/plugins/akismet/readme.txt)"],
    });
  });

  test("readme refused → pass; not requested → skip; request timed out → not checked (skip)", () => {
    const url = "http://127.0.0.1:8088/wp-content/plugins/akismet/readme.txt";
    const blocked = variant(fixture, { probes: { "plugin_readme:akismet": answer(url, 403, "Forbidden") } });
    expect(check(blocked).status).toBe("pass");
    // The TT3 site's only plugin is known by its headers: no readme is requested.
    expect(check(tt3).status).toBe("skip");
    const failed = variant(fixture, { probes: { "plugin_readme:akismet": null } });
    failed.errors.push({ stage: "plugin_readme:akismet", url, kind: "timeout", message: "timed out" });
    expect(check(failed)).toMatchObject({
      status: "skip",
      message: "The request for /wp-content/plugins/akismet/readme.txt timed out: not checked.",
    });
  });
});

test("every component check is produced once, with the catalogue's category", () => {
  const checks = COMPONENT_AUDITS.flatMap((audit) => audit(withIntel(fixture)));
  const ids = Object.keys(CHECKS).filter((id) => id.startsWith("components."));
  expect(checks.map((item) => item.id).sort()).toEqual(ids.sort());
  expect(ids.length).toBeGreaterThanOrEqual(8);
});
