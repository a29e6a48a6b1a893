/**
 * Aggressive enumeration (opt-in): the plan's order, and real runs against loopback sites
 * that answer like WordPress does (a plugin directory that exists answers 403, a missing one
 * 404), against one that answers everything alike, and against the real WordPress fixture,
 * whose Debian-packaged plugins shibboleth and http-authentication are installed but
 * inactive (no readme.txt: only their directories tell), and whose twentytwentytwo and
 * twentytwentythree themes are installed but not active.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { type AnalysisResult, analyze } from "../../server/analyzer/analyze.ts";
import {
  DEFAULT_ENUMERATION_BUDGET,
  type EnumerationPlan,
  enumerationPlan,
  POPULAR_SLUGS,
} from "../../server/analyzer/enumeration/plan.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { type Intel, parseIntel } from "../../server/analyzer/intel/index.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { blogHomepage, startSite, type TestSite } from "../helpers/sites.ts";

const UA = "wpreport-test";

async function run(url: string, plan?: EnumerationPlan, intel?: Intel): Promise<AnalysisResult> {
  const policy = new TargetPolicy(["127.0.0.1", "localhost"]);
  const agent = createSafeAgent(policy);
  try {
    return await analyze(url, { agent, policy, userAgent: UA, enumerate: plan, intel }, AbortSignal.timeout(30_000));
  } finally {
    await agent.close();
  }
}

const README = `=== Contact Form 7 ===
Contributors: takayukister
Stable tag: 5.9.3
License: GPLv2 or later

== Changelog ==

= 5.9.3 =
* Fix.
`;

/**
 * A WordPress-like blog with contact-form-7 (readme) and "old-gallery" (no readme) installed
 * but not on the page, and the astra theme installed besides the active one.
 */
function startInstalledSite(options: { delayMs?: number } = {}): TestSite {
  let origin = "";
  const installed = new Set(["contact-form-7", "old-gallery"]);
  const site = startSite({}, async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/") return new Response(blogHomepage(origin), { headers: { "content-type": "text/html" } });
    const plugin = /^\/wp-content\/plugins\/([^/]+)\/(readme\.txt)?$/.exec(path);
    if (plugin) {
      if (options.delayMs) await Bun.sleep(options.delayMs);
      const slug = plugin[1] ?? "";
      if (!installed.has(slug)) return new Response("not found", { status: 404 });
      if (plugin[2] === "readme.txt") {
        return slug === "contact-form-7"
          ? new Response(README, { headers: { "content-type": "text/plain" } })
          : new Response("not found", { status: 404 });
      }
      return new Response("Forbidden", { status: 403 });
    }
    if (path === "/wp-content/themes/astra/style.css") {
      return new Response("/*\nTheme Name: Astra\nVersion: 4.6.4\n*/", { headers: { "content-type": "text/css" } });
    }
    return new Response("not found", { status: 404 });
  });
  origin = site.url.replace(/\/$/, "");
  return site;
}

/** Requests about one component (`…/plugins/<slug>/…`), not the folder itself (a listing probe). */
const cf7Advisory = parseIntel(
  {
    format: 1,
    updated: "2026-11-20",
    source: "wpreport test data: invented advisory",
    wordpress: { latest_version: "6.8.3", vulnerabilities: [] },
    plugins: {
      "contact-form-7": {
        latest_version: "6.0",
        vulnerabilities: [
          {
            id: "TEST-0902",
            title: "Test advisory: file upload",
            severity: "high",
            cvss: 8.1,
            affected: [{ fixed_in: "5.9.5" }],
          },
        ],
      },
    },
  },
  "test",
);

const probesOf = (site: TestSite, folder: "plugins" | "themes") =>
  site.hits.filter((hit) => new RegExp(`/wp-content/${folder}/[^/]+/`).test(hit));

describe("the plan", () => {
  test("vulnerable slugs first (in their order), then the popular ones, without duplicates or bad names", () => {
    const plan = enumerationPlan(
      { plugins: ["vuln-b", "vuln-a", "contact-form-7", "../etc", ""], themes: ["old-theme"] },
      { maxRequests: 50, timeBudgetMs: 2_000 },
      { plugins: ["akismet", "contact-form-7", "vuln-a"], themes: ["astra", "Divi"] },
    );
    expect(plan).toEqual({
      maxRequests: 50,
      timeBudgetMs: 2_000,
      plugins: ["vuln-b", "vuln-a", "contact-form-7", "akismet"],
      themes: ["old-theme", "astra", "Divi"],
      vulnerable: { plugins: 3, themes: 1 },
    });
  });

  test("the shipped popular list is valid data", () => {
    expect(POPULAR_SLUGS.plugins.length).toBeGreaterThan(100);
    expect(POPULAR_SLUGS.themes.length).toBeGreaterThan(20);
    for (const slug of [...POPULAR_SLUGS.plugins, ...POPULAR_SLUGS.themes]) {
      expect(slug).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/);
    }
    expect(new Set(POPULAR_SLUGS.plugins).size).toBe(POPULAR_SLUGS.plugins.length);
    const plan = enumerationPlan({ plugins: [], themes: [] });
    expect(plan.plugins).toEqual([...POPULAR_SLUGS.plugins]);
    expect(plan.maxRequests).toBe(DEFAULT_ENUMERATION_BUDGET.maxRequests);
  });
});

describe("aggressive enumeration against loopback sites", () => {
  const sites: TestSite[] = [];
  afterAll(() => {
    for (const site of sites) site.stop();
  });
  const site = (options?: { delayMs?: number }) => {
    const started = startInstalledSite(options);
    sites.push(started);
    return started;
  };

  test("the default (passive) never probes a plugin or theme the site does not show", async () => {
    const blog = site();
    const report = await run(blog.url);
    expect(report.mode).toBe("passive");
    expect(report.enumeration).toBeNull();
    expect(report.installed_themes).toEqual([]);
    expect(report.plugins.map((plugin) => plugin.slug)).not.toContain("contact-form-7");
    for (const slug of ["contact-form-7", "old-gallery", "akismet"]) {
      expect(blog.hits.some((hit) => hit.includes(`/plugins/${slug}/`))).toBe(false);
    }
    expect(probesOf(blog, "themes").filter((hit) => hit.includes("astra"))).toEqual([]);
  });

  test("finds installed plugins (vulnerable candidates first) and themes, marked as found by it", async () => {
    const blog = site();
    const plan = enumerationPlan({ plugins: ["old-gallery"], themes: [] });
    const report = await run(blog.url, plan, cf7Advisory);
    expect(report.mode).toBe("aggressive");
    const found = report.plugins.filter((plugin) => plugin.found_by === "aggressive");
    expect(found.map((plugin) => [plugin.slug, plugin.name, plugin.version])).toEqual([
      ["contact-form-7", "Contact Form 7", "5.9.3"],
      ["old-gallery", null, null],
    ]);
    const cf7 = found[0];
    expect(cf7?.evidence[0]).toEqual({
      source: "aggressive_enumeration",
      value: "plugin /wp-content/plugins/contact-form-7/ answered 403",
      url: `${blog.url}wp-content/plugins/contact-form-7/`,
    });
    expect(cf7?.confidence).toBeGreaterThanOrEqual(85);
    // Found only by enumeration, its vulnerabilities count like any plugin's.
    expect(cf7?.vulnerabilities.map((vulnerability) => vulnerability.id)).toEqual(["TEST-0902"]);
    expect(report.checks.find((check) => check.id === "components.plugins_vulnerable")).toMatchObject({
      status: "fail",
      severity: "high",
    });
    expect(report.installed_themes).toEqual([
      expect.objectContaining({ slug: "astra", name: "Astra", version: "4.6.4", found_by: "aggressive" }),
    ]);
    expect(report.enumeration).toMatchObject({
      stopped_by: "finished",
      plugins: {
        method: "directory",
        candidates: POPULAR_SLUGS.plugins.length + 1,
        vulnerable_candidates: 1,
        found: ["contact-form-7", "old-gallery"],
      },
      themes: { method: "style_css", found: ["astra"] },
    });
    const enumeration = report.enumeration;
    expect(enumeration?.plugins.probed).toBe(enumeration?.plugins.candidates);
    // Over HTTP/1.1: one capped GET per candidate (no HEAD: undici would close the connection
    // after each), three calibrations, and the readme of each plugin found by its directory
    // (a theme's style.css came with its presence answer). Then the version files of the one
    // whose readme did not settle its version (old-gallery has none): its .pot, changelog.txt,
    // CHANGELOG.md, package.json, composer.json, lang/ .pot and the other names and places some
    // plugins use — contact-form-7's readme states 5.9.3 twice (Stable tag and changelog), which
    // settles it.
    const versionFiles = [
      "languages/old-gallery.pot",
      "changelog.txt",
      "CHANGELOG.md",
      "package.json",
      "composer.json",
      "changelog.md",
      "CHANGELOG.txt",
      "CHANGES.md",
      "changes.txt",
      "i18n/old-gallery.pot",
      "languages/old-gallery-en_US.po",
    ];
    for (const file of versionFiles) expect(blog.hits).toContain(`GET /wp-content/plugins/old-gallery/${file}`);
    expect(blog.hits.filter((hit) => /contact-form-7\/(?!readme\.txt|$)/.test(hit))).toEqual([]);
    expect(enumeration?.requests).toBe(
      (enumeration?.plugins.probed ?? 0) + (enumeration?.themes.probed ?? 0) + 3 + 2 + versionFiles.length + 1,
    );
    expect(probesOf(blog, "plugins").every((hit) => hit.startsWith("GET "))).toBe(true);
    // The vulnerable candidate is asked about before any popular one.
    const pluginHits = probesOf(blog, "plugins").filter((hit) => !hit.includes("wpreport-"));
    expect(pluginHits[0]).toBe("GET /wp-content/plugins/old-gallery/");
    // Passive findings are not probed again; the report's other facts are unchanged.
    expect(report.wordpress?.detected).toBe(true);
  });

  test("the request budget stops it, and the report says where", async () => {
    const blog = site();
    const plan = enumerationPlan({ plugins: [], themes: [] }, { maxRequests: 20, timeBudgetMs: 10_000 });
    const report = await run(blog.url, plan);
    expect(report.enumeration).toMatchObject({ requests: 20, stopped_by: "request_budget" });
    const probed = probesOf(blog, "plugins").length + probesOf(blog, "themes").length;
    expect(probed).toBe(20);
    expect(report.errors).toContainEqual(expect.objectContaining({ stage: "enumeration", kind: "request_budget" }));
  });

  test("the time budget stops it, and nothing is asked after it ran out", async () => {
    const blog = site({ delayMs: 150 });
    const plan = enumerationPlan({ plugins: [], themes: [] }, { maxRequests: 1_000, timeBudgetMs: 1_000 });
    const report = await run(blog.url, plan);
    expect(report.enumeration?.stopped_by).toBe("time_budget");
    expect(report.enumeration?.plugins.probed).toBeLessThan(report.enumeration?.plugins.candidates ?? 0);
    const asked = probesOf(blog, "plugins").length;
    await Bun.sleep(500);
    expect(probesOf(blog, "plugins").length).toBe(asked);
  });

  test("a site that answers every path alike is not enumerated: no false positives", async () => {
    let origin = "";
    const everything = startSite(
      {},
      () => new Response(blogHomepage(origin), { headers: { "content-type": "text/html" } }),
    );
    sites.push(everything);
    origin = everything.url.replace(/\/$/, "");
    const report = await run(everything.url, enumerationPlan({ plugins: ["old-gallery"], themes: [] }));
    expect(report.enumeration).toMatchObject({
      requests: 3,
      plugins: { method: "unreliable", probed: 0, found: [] },
      themes: { method: "unreliable", probed: 0, found: [] },
    });
    expect(report.plugins.filter((plugin) => plugin.found_by)).toEqual([]);
  });

  test("a site that is not WordPress is not enumerated", async () => {
    const plain = startSite({ "/": () => new Response("<html><body>Hello</body></html>") });
    sites.push(plain);
    const report = await run(plain.url, enumerationPlan({ plugins: [], themes: [] }));
    expect(report.mode).toBe("aggressive");
    expect(report.enumeration).toBeNull();
    expect(report.errors).toContainEqual(expect.objectContaining({ stage: "enumeration", kind: "not_wordpress" }));
    expect(probesOf(plain, "plugins")).toEqual([]);
  });
});

/** The plugins the many-plugins site shows (by a script without a version), each at 1.<n>.0. */
const SHOWN = Array.from({ length: 8 }, (_, index) => `tool-${index + 1}`);
const versionOf = (slug: string) => (slug === "hidden-tool" ? "3.2.1" : `1.${slug.slice("tool-".length)}.0`);

/**
 * A site with many plugins found without a version: eight the page loads a script of (no
 * `?ver=`, no banner), none with a readme, a .pot or a changelog — their versions are only in
 * package.json and composer.json, which agree (two sources) — and hidden-tool, installed but
 * not on the page, whose version is only there too.
 */
function startManyPluginsSite(): TestSite {
  let origin = "";
  const installed = new Set([...SHOWN, "hidden-tool"]);
  const site = startSite({}, (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/") {
      const scripts = SHOWN.map((slug) => `<script src="${origin}/wp-content/plugins/${slug}/js/app.js"></script>`);
      const page = blogHomepage(origin).replace("</head>", `${scripts.join("\n")}</head>`);
      return new Response(page, { headers: { "content-type": "text/html" } });
    }
    const file = /^\/wp-content\/plugins\/([^/]+)\/(.*)$/.exec(path);
    if (!file || !installed.has(file[1] ?? "")) return new Response("not found", { status: 404 });
    const [, slug = "", rest] = file;
    const json = (body: unknown) => Response.json(body);
    if (rest === "") return new Response("Forbidden", { status: 403 });
    if (rest === "js/app.js")
      return new Response("(function(){})();", { headers: { "content-type": "text/javascript" } });
    if (rest === "package.json") return json({ name: slug, version: versionOf(slug) });
    if (rest === "composer.json") return json({ name: `acme/${slug}`, version: versionOf(slug) });
    return new Response("not found", { status: 404 });
  });
  origin = site.url.replace(/\/$/, "");
  return site;
}

/** Requests for a plugin's version files (not its folder, readme or script). */
const versionFileHits = (site: TestSite) =>
  site.hits.filter(
    (hit) => /\/plugins\/[^/]+\/(?!js\/|readme\.txt|$)/.test(hit) && !hit.includes("/plugins/wpreport-"),
  );

describe("aggressive mode reads what it found before it enumerates", () => {
  const sites: TestSite[] = [];
  afterAll(() => {
    for (const site of sites) site.stop();
  });
  const site = () => {
    const started = startManyPluginsSite();
    sites.push(started);
    return started;
  };
  const pluginVersions = (report: AnalysisResult) =>
    Object.fromEntries(report.plugins.map((plugin) => [plugin.slug, plugin.version]));

  test("passive: no version, and no request beyond its own caps (no build files, no slug probed)", async () => {
    const blog = site();
    const report = await run(blog.url);
    expect(pluginVersions(report)).toEqual(Object.fromEntries(SHOWN.map((slug) => [slug, null])));
    // Readmes of the page's plugins, then at most 12 release files in the report (3 per plugin).
    expect(versionFileHits(blog)).toHaveLength(12);
    expect(blog.hits.filter((hit) => /package\.json|composer\.json|hidden-tool|plugins\/wpreport-/.test(hit))).toEqual(
      [],
    );
  });

  test("a small budget: every found plugin gets its version from its files, and the cut enumeration is reported", async () => {
    const blog = site();
    const plan = enumerationPlan({ plugins: ["hidden-tool"], themes: [] }, { maxRequests: 45, timeBudgetMs: 20_000 });
    const report = await run(blog.url, plan);
    // The eight the page shows, and hidden-tool, which enumeration found when little budget was left.
    expect(pluginVersions(report)).toEqual({
      ...Object.fromEntries(SHOWN.map((slug) => [slug, versionOf(slug)])),
      "hidden-tool": versionOf("hidden-tool"),
    });
    expect(report.plugins.find((plugin) => plugin.slug === "hidden-tool")?.found_by).toBe("aggressive");
    const enumeration = report.enumeration;
    expect(enumeration).toMatchObject({
      requests: 45,
      stopped_by: "request_budget",
      plugins: { method: "directory", found: ["hidden-tool"] },
      version_files: { plugins: [...SHOWN, "hidden-tool"].sort(), not_read: [] },
    });
    // The page's plugins' files were all read before the calibration, the first enumeration request.
    const calibration = blog.hits.findIndex((hit) => hit.includes("/plugins/wpreport-"));
    const shownFiles = blog.hits.flatMap((hit, index) =>
      /\/(package|composer)\.json$/.test(hit) && !hit.includes("hidden-tool") ? [index] : [],
    );
    expect(shownFiles).toHaveLength(16);
    expect(Math.max(...shownFiles)).toBeLessThan(calibration);
    // Most slugs were never probed: the report says so, and says the found plugins came first.
    const probed = (enumeration?.plugins.probed ?? 0) + (enumeration?.themes.probed ?? 0);
    expect(probed).toBeLessThan(15);
    const stopped = report.errors.find((error) => error.stage === "enumeration");
    expect(stopped).toMatchObject({ kind: "request_budget" });
    expect(stopped?.message).toContain("after reading the files of the 9 plugins found without a version");
    const candidates = POPULAR_SLUGS.plugins.length + 1;
    expect(stopped?.message).toContain(
      `${candidates - (enumeration?.plugins.probed ?? 0)} of ${candidates} plugin slugs and ${POPULAR_SLUGS.themes.length - (enumeration?.themes.probed ?? 0)} of ${POPULAR_SLUGS.themes.length} theme slugs were not probed`,
    );
  });

  test("a budget too small for the files of what was found: no slug is probed, and the plugins left unread are named", async () => {
    const blog = site();
    const plan = enumerationPlan({ plugins: ["hidden-tool"], themes: [] }, { maxRequests: 10, timeBudgetMs: 20_000 });
    const report = await run(blog.url, plan);
    const enumeration = report.enumeration;
    expect(enumeration).toMatchObject({ requests: 10, stopped_by: "request_budget", plugins: { probed: 0 } });
    expect(blog.hits.some((hit) => hit.includes("/plugins/wpreport-") || hit.includes("hidden-tool"))).toBe(false);
    const unread = enumeration?.version_files?.not_read ?? [];
    expect(unread.length).toBeGreaterThan(0);
    for (const slug of unread) expect(pluginVersions(report)[slug]).toBeNull();
    const stopped = report.errors.find((error) => error.stage === "enumeration");
    expect(stopped?.message).toContain(`were not read (${unread.join(", ")})`);
  });
});

describe.skipIf(!HAS_WORDPRESS)("aggressive enumeration on the real WordPress fixture", () => {
  test("finds the inactive shibboleth plugin (a vulnerable candidate) and the inactive default themes", async () => {
    const intel = parseIntel(
      {
        format: 1,
        updated: "2026-11-20",
        source: "wpreport test data: invented advisory",
        wordpress: { latest_version: "6.8.3", vulnerabilities: [] },
        plugins: {
          shibboleth: {
            latest_version: "2.5.2",
            vulnerabilities: [
              {
                id: "TEST-0901",
                title: "Test advisory: authentication bypass",
                severity: "critical",
                cvss: 9.1,
                affected: [{ fixed_in: "99.0" }],
              },
            ],
          },
        },
      },
      "test",
    );
    const plan = enumerationPlan({ plugins: ["shibboleth"], themes: [] });
    const report = await run(WORDPRESS_URL, plan, intel);
    const shibboleth = report.plugins.find((plugin) => plugin.slug === "shibboleth");
    expect(shibboleth).toMatchObject({ found_by: "aggressive", version: null });
    // Its directory answers 403 (nginx: a folder without index), a random one 404.
    expect(shibboleth?.evidence[0]?.value).toBe("plugin /wp-content/plugins/shibboleth/ answered 403");
    // Debian ships it without readme.txt, so its version cannot be read: no vulnerability is
    // claimed for a version we do not know, and the check says so.
    expect(shibboleth?.vulnerabilities).toEqual([]);
    expect(report.checks.find((check) => check.id === "components.plugins_vulnerable")?.message).toContain(
      "version is unknown",
    );
    // The active plugins were found passively and not probed again; http-authentication is in no list.
    expect(report.plugins.find((plugin) => plugin.slug === "akismet")?.found_by).toBeUndefined();
    expect(report.plugins.some((plugin) => plugin.slug === "http-authentication")).toBe(false);
    expect(report.installed_themes?.map((theme) => [theme.slug, theme.version])).toEqual([
      ["twentytwentythree", "1.0"],
      ["twentytwentytwo", "1.3"],
    ]);
    expect(report.theme?.slug).toBe("twentytwentyone");
    expect(report.enumeration).toMatchObject({
      stopped_by: "finished",
      plugins: { method: "directory", found: ["shibboleth"] },
      themes: { method: "style_css", found: ["twentytwentythree", "twentytwentytwo"] },
    });
  });
});
