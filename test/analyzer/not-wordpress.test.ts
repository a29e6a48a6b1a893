/**
 * A site that is not WordPress gets a report that says so, names the stack it runs on (with
 * evidence), runs and scores the checks that apply to any site, and skips the WordPress ones
 * with a reason.
 *
 * Real software: Debian's nginx serving a small Hugo-built static blog and php-cli's built-in
 * server running a small plain-PHP app (test/analyzer/not-wordpress/servers.ts), analyzed through the
 * real service API; the same two sites' saved artifacts (test/analyzer/artifacts/not-wp-*.json) for
 * the pure tests; the real WordPress fixture's artifacts for "no stack that contradicts it".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { h } from "preact";
import { renderToString } from "preact-render-to-string";
import { renderMarkdown } from "../../action/src/markdown.ts";
import { buildResult } from "../../server/analyzer/analyze.ts";
import { CHECKS } from "../../server/analyzer/audit/catalogue.ts";
import {
  NOT_WORDPRESS_FILE_REASON,
  NOT_WORDPRESS_REASON,
  WORDPRESS_CHECKS,
  WORDPRESS_FILE_CHECKS,
} from "../../server/analyzer/audit/wordpress-only.ts";
import { detectStack, MIN_STACK_CONFIDENCE } from "../../server/analyzer/detect/stack.ts";
import { loadStackRules, STACK_RULES, StackRulesError } from "../../server/analyzer/detect/stack-rules.ts";
import { ReportPage } from "../../server/reports/pages/report.tsx";
import { diff } from "../../shared/diff.ts";
import type { Report, StackItem } from "../../shared/report.ts";
import { expectValidReport } from "../helpers/report-schema.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { homepageOnly, loadArtifacts, WP_FIXTURE, WP_FIXTURE_TT3 } from "./artifacts.ts";
import { type RealServer, startNginxStatic, startPhpApp } from "./not-wordpress/servers.ts";

type Result = ReturnType<typeof buildResult>;

const HUGO_NGINX = "not-wp-hugo-nginx";
const PHP_APP = "not-wp-php-app";

const checkOf = (result: Pick<Result, "checks">, id: string) => {
  const check = result.checks.find((item) => item.id === id);
  if (!check) throw new Error(`no check ${id}`);
  return check;
};
const named = (stack: StackItem[] | undefined, name: string) => stack?.find((item) => item.name === name);

/** Checks that apply to any site and must have run (not skipped) on both sites. */
const GENERIC_RAN = [
  "security.https",
  "security.csp",
  "security.clickjacking",
  "security.x_content_type_options",
  "security.env_file_exposed",
  "security.git_exposed",
  "security.db_dump_exposed",
  "performance.ttfb",
  "performance.redirects",
  "performance.html_size",
  "performance.stylesheet_count",
  "seo.title",
  "seo.meta_description",
  "seo.robots_txt",
  "seo.sitemap",
  "seo.viewport",
  "seo.lang",
];

/** What every not-WordPress report must say, whatever the stack. */
function expectNotWordPressReport(result: Pick<Result, "wordpress" | "checks" | "summary" | "errors">) {
  expect(result.wordpress?.detected).toBe(false);
  const notice = result.errors.find((error) => error.kind === "not_wordpress");
  expect(notice).toMatchObject({ stage: "detect" });
  expect(notice?.message).toStartWith(
    `This site does not look like WordPress (confidence ${result.wordpress?.confidence}%); it runs on `,
  );
  // Every catalogued check is reported once.
  expect(result.checks.map((check) => check.id).sort()).toEqual(Object.keys(CHECKS).sort());
  for (const id of GENERIC_RAN) expect([id, checkOf(result, id).status]).not.toEqual([id, "skip"]);
  for (const id of WORDPRESS_CHECKS) {
    expect([id, checkOf(result, id).status, checkOf(result, id).message]).toEqual([id, "skip", NOT_WORDPRESS_REASON]);
  }
  for (const id of WORDPRESS_FILE_CHECKS) {
    // Nothing of WordPress's is on these sites, so none of these found a file.
    expect([id, checkOf(result, id).status, checkOf(result, id).message]).toEqual([
      id,
      "skip",
      NOT_WORDPRESS_FILE_REASON,
    ]);
  }
  // Scored on what applies: performance, SEO and security have scores.
  const categories = result.summary?.categories;
  expect(categories?.performance).toBeNumber();
  expect(categories?.seo).toBeNumber();
  expect(categories?.security).toBeNumber();
}

describe("saved artifacts: a Hugo blog served by nginx", () => {
  const result = buildResult(loadArtifacts(HUGO_NGINX));

  test("says it is not WordPress and runs on nginx 1.22.1 and Hugo 0.111.3, with evidence", () => {
    expectNotWordPressReport(result);
    expect(result.hosting?.stack).toEqual([
      {
        name: "nginx",
        category: "web_server",
        version: "1.22.1",
        confidence: 100,
        evidence: [{ source: "header", value: "server: nginx/1.22.1" }],
      },
      {
        name: "Hugo",
        category: "static_site_generator",
        version: "0.111.3",
        confidence: 100,
        evidence: [{ source: "meta_generator", value: "Hugo 0.111.3" }],
      },
    ]);
    expect(result.errors.find((error) => error.kind === "not_wordpress")?.message).toBe(
      "This site does not look like WordPress (confidence 0%); it runs on nginx 1.22.1, Hugo 0.111.3. The performance, SEO and security checks that apply to any site ran; the WordPress-specific ones were skipped.",
    );
  });

  test("a static site with no PHP: the components category has nothing to score", () => {
    expect(checkOf(result, "components.php_eol").status).toBe("skip");
    expect(result.summary?.categories.components).toBeNull();
  });

  test("the generic findings are the site's own: gzip, cached assets, a sitemap, the Server version", () => {
    expect(checkOf(result, "performance.html_compression").status).toBe("pass");
    expect(checkOf(result, "performance.asset_caching").status).toBe("pass");
    expect(checkOf(result, "seo.sitemap_in_robots").status).toBe("pass");
    expect(checkOf(result, "seo.structured_data").status).toBe("pass");
    expect(checkOf(result, "security.server_version_disclosed").status).toBe("fail");
  });
});

describe("saved artifacts: a plain-PHP app on php-cli's server", () => {
  const result = buildResult(loadArtifacts(PHP_APP));

  test("says it is not WordPress and runs on PHP 8.2.36, seen in X-Powered-By and the session cookie's name", () => {
    expectNotWordPressReport(result);
    expect(result.hosting?.stack).toEqual([
      {
        name: "PHP",
        category: "language",
        version: "8.2.36",
        confidence: 100,
        evidence: [
          { source: "header", value: "x-powered-by: PHP/8.2.36" },
          { source: "cookie", value: "PHPSESSID" },
        ],
      },
    ]);
  });

  test("the session id itself never enters the report", () => {
    const session = loadArtifacts(PHP_APP).homepage.set_cookies[0]?.split(";")[0]?.split("=")[1] ?? "";
    expect(session.length).toBeGreaterThan(10);
    expect(JSON.stringify(result.hosting)).not.toContain(session);
  });

  test("PHP's end of life applies to any PHP site: components.php_eol runs and scores the components category", () => {
    expect(checkOf(result, "components.php_eol").status).toBe("pass");
    expect(result.summary?.categories.components).toBe(100);
    expect(checkOf(result, "security.php_version_disclosed").status).toBe("fail");
    expect(checkOf(result, "security.cookie_flags").status).toBe("fail");
  });
});

describe("the real WordPress fixture: no stack that contradicts it", () => {
  for (const fixture of [WP_FIXTURE, WP_FIXTURE_TT3]) {
    test(fixture, () => {
      const result = buildResult(loadArtifacts(fixture));
      expect(result.wordpress?.detected).toBe(true);
      expect(result.errors.some((error) => error.kind === "not_wordpress")).toBe(false);
      // nginx in front of php-fpm, which does not announce itself: nothing else.
      expect(result.hosting?.stack?.map((item) => item.name)).toEqual(["nginx"]);
      for (const id of WORDPRESS_CHECKS)
        expect([id, checkOf(result, id).message]).not.toEqual([id, NOT_WORDPRESS_REASON]);
    });
  }

  test("a WordPress generator tag is not read as some other generator", () => {
    const artifacts = homepageOnly(
      "https://example.org/",
      '<html><head><meta name="generator" content="WordPress 6.4.2"><meta name="generator" content="WooCommerce 8.2.1"></head></html>',
    );
    expect(detectStack(artifacts.homepage)).toEqual([]);
  });

  test("a WordPress site's file findings are reported as before (not skipped)", () => {
    const result = buildResult(loadArtifacts(WP_FIXTURE));
    for (const id of WORDPRESS_FILE_CHECKS) expect([id, checkOf(result, id).status]).not.toEqual([id, "skip"]);
  });
});

describe("a WordPress file found on a site that does not look like WordPress still fails", () => {
  test("a readable .wp-config backup on a hardened site counts", () => {
    const base = loadArtifacts(HUGO_NGINX);
    const url = "http://127.0.0.1:8297/wp-config.php.bak";
    base.probes["exposed:/wp-config.php.bak"] = {
      url,
      status: 200,
      headers: { "content-type": "application/octet-stream" },
      set_cookies: [],
      body: "<?php\ndefine( 'DB_NAME', 'site' );\ndefine( 'DB_PASSWORD', 'hunter2' );\n$table_prefix = 'wp_';\n",
      truncated: false,
    };
    const result = buildResult(base);
    expect(result.wordpress?.detected).toBe(false);
    expect(checkOf(result, "security.config_backup_exposed").status).toBe("fail");
  });
});

/** A homepage with these headers, cookies and HTML. */
function site(
  headers: Record<string, string>,
  html = "<html><head></head><body></body></html>",
  cookies: string[] = [],
) {
  const artifacts = homepageOnly("https://example.org/", html, { "content-type": "text/html", ...headers });
  artifacts.homepage.set_cookies = cookies;
  return artifacts.homepage;
}

describe("the stack table: what each technology's signals look like", () => {
  const cases: [string, ReturnType<typeof site>, { name: string; version?: string | null; source: string }[]][] = [
    [
      "Express",
      site({ "x-powered-by": "Express" }, undefined, ["connect.sid=s%3Aabc.def; Path=/; HttpOnly"]),
      [{ name: "Express", version: null, source: "header" }],
    ],
    [
      "Next.js",
      site(
        { "x-powered-by": "Next.js" },
        '<html><head><link rel="preload" href="/_next/static/css/a.css" as="style"></head><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{"page":"/"}</script><script src="/_next/static/chunks/main-abc.js" defer></script></body></html>',
      ),
      [{ name: "Next.js", source: "header" }],
    ],
    [
      "Nuxt",
      site(
        {},
        '<html><head><link rel="modulepreload" href="/_nuxt/entry.js"></head><body><div id="__nuxt"></div><script>window.__NUXT__=(function(a){return {}}(1))</script></body></html>',
      ),
      [{ name: "Nuxt", source: "script" }],
    ],
    [
      "Django",
      site({}, undefined, ["csrftoken=abc; expires=…; Path=/; SameSite=Lax"]),
      [{ name: "Django", source: "cookie" }],
    ],
    [
      "Ruby on Rails",
      site(
        { "x-runtime": "0.012345" },
        '<html><head><meta name="csrf-param" content="authenticity_token"><meta name="csrf-token" content="x"></head></html>',
        ["_rails_session=abc; path=/; HttpOnly"],
      ),
      [{ name: "Ruby on Rails", source: "cookie" }],
    ],
    [
      "Laravel",
      site({ "x-powered-by": "PHP/8.3.4" }, undefined, [
        "XSRF-TOKEN=eyJ; path=/",
        "laravel_session=eyJ; path=/; httponly",
      ]),
      [
        { name: "PHP", version: "8.3.4", source: "header" },
        { name: "Laravel", source: "cookie" },
      ],
    ],
    [
      "ASP.NET on IIS",
      site({ server: "Microsoft-IIS/10.0", "x-aspnet-version": "4.0.30319", "x-powered-by": "ASP.NET" }),
      [
        { name: "Microsoft IIS", version: "10.0", source: "header" },
        { name: "ASP.NET", version: "4.0.30319", source: "header" },
      ],
    ],
    [
      "Drupal",
      site(
        {
          server: "Apache/2.4.62 (Debian)",
          "x-generator": "Drupal 10 (https://www.drupal.org)",
          "x-drupal-cache": "HIT",
        },
        '<html><head><meta name="Generator" content="Drupal 10 (https://www.drupal.org)"></head><body><script type="application/json" data-drupal-selector="drupal-settings-json">{}</script></body></html>',
      ),
      [
        { name: "Apache HTTP Server", version: "2.4.62", source: "header" },
        { name: "Drupal", version: "10", source: "meta_generator" },
      ],
    ],
    [
      "Joomla",
      site({}, '<html><head><meta name="generator" content="Joomla! - Open Source Content Management"></head></html>'),
      [{ name: "Joomla", version: null, source: "meta_generator" }],
    ],
    [
      "Ghost",
      site({}, '<html><head><meta name="generator" content="Ghost 5.82"></head></html>'),
      [{ name: "Ghost", version: "5.82", source: "meta_generator" }],
    ],
    [
      "Shopify",
      site(
        { "x-shopid": "123", "powered-by": "Shopify" },
        '<html><head><script src="//cdn.shopify.com/s/files/1/theme.js"></script></head></html>',
      ),
      [{ name: "Shopify", source: "header" }],
    ],
    [
      "Wix",
      site(
        { "x-wix-request-id": "1.2.3" },
        '<html><head><meta name="generator" content="Wix.com Website Builder"></head></html>',
      ),
      [{ name: "Wix", source: "header" }],
    ],
    [
      "Squarespace",
      site({ server: "Squarespace" }, "<html><!-- This is Squarespace. --><head></head></html>"),
      [{ name: "Squarespace", source: "header" }],
    ],
    [
      "Jekyll",
      site({ server: "GitHub.com" }, '<html><head><meta name="generator" content="Jekyll v4.3.3"></head></html>'),
      [
        { name: "GitHub Pages", source: "header" },
        { name: "Jekyll", version: "4.3.3", source: "meta_generator" },
      ],
    ],
    [
      "Python behind gunicorn",
      site({ server: "Werkzeug/3.0.1 Python/3.12.2" }),
      [
        { name: "Werkzeug", version: "3.0.1", source: "header" },
        { name: "Python", version: "3.12.2", source: "header" },
      ],
    ],
  ];
  test.each(cases)("%s", (_name, homepage, expected) => {
    const stack = detectStack(homepage);
    for (const want of expected) {
      const item = named(stack, want.name);
      expect(item).toBeDefined();
      if (want.version !== undefined) expect(item?.version).toBe(want.version);
      expect(item?.evidence[0]?.source).toBe(want.source);
      expect(item?.confidence).toBeGreaterThanOrEqual(MIN_STACK_CONFIDENCE);
    }
  });

  test("one weak hint is not enough: an XSRF-TOKEN cookie alone (Angular uses it too) is not Laravel", () => {
    expect(detectStack(site({}, undefined, ["XSRF-TOKEN=abc; path=/"]))).toEqual([]);
  });

  test("a CDN found by the hosting detector joins the stack after the web server", () => {
    const artifacts = homepageOnly("https://example.org/", "<html></html>", {
      server: "nginx",
      "cf-ray": "8a1b2c3d4e5f-AMS",
      "x-powered-by": "PHP/8.1.2",
    });
    const stack = buildResult(artifacts).hosting?.stack ?? [];
    expect(stack.map((item) => [item.name, item.category])).toEqual([
      ["nginx", "web_server"],
      ["Cloudflare", "cdn"],
      ["PHP", "language"],
    ]);
  });

  test("every rule names a technology once and has signals", () => {
    const names = STACK_RULES.map((rule) => rule.name);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of STACK_RULES) expect(rule.signals.length).toBeGreaterThan(0);
  });

  test("the table is data checked at load: {V} captures a version, match_case keeps case, a bad row is refused by its path", () => {
    const [nginx] = loadStackRules({
      rules: [
        { name: "nginx", category: "web_server", signals: [{ header: "Server", value: "^nginx(?:/{V})?", weight: 1 }] },
      ],
    });
    expect(detectStack(site({ server: "NGINX/1.25.3" }), nginx ? [nginx] : [])).toMatchObject([
      { name: "nginx", version: "1.25.3", confidence: 100 },
    ]);
    const [laravel] = loadStackRules({
      rules: [
        { name: "Laravel", category: "framework", signals: [{ cookie: "^XSRF-TOKEN$", match_case: true, weight: 1 }] },
      ],
    });
    const cookies = (name: string) => ({ ...site({}), set_cookies: [`${name}=1; path=/`] });
    expect(detectStack(cookies("XSRF-TOKEN"), laravel ? [laravel] : [])).toHaveLength(1);
    expect(detectStack(cookies("xsrf-token"), laravel ? [laravel] : [])).toHaveLength(0);

    const rule = (signal: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      rules: [{ name: "X", category: "cms", signals: [signal], ...extra }],
    });
    const refused: [unknown, string][] = [
      [rule({ header: "server", value: "^(x", weight: 1 }), "/rules/0/signals/0/value: not a regular expression"],
      [rule({ header: "server", weight: 0 }), "/rules/0/signals/0"],
      [rule({ header: "server", weight: 1, colour: "red" }), "/rules/0/signals/0"],
      [rule({ header: "server", weight: 1 }, { category: "database" }), "/rules/0/category"],
      [{ rules: [] }, "/rules"],
      [
        { rules: [rule({ link: "/x/", weight: 1 }).rules[0], rule({ link: "/y/", weight: 1 }).rules[0]] },
        '/rules/1/name: "X" is in the table twice',
      ],
    ];
    for (const [data, message] of refused) {
      expect(() => loadStackRules(data)).toThrow(StackRulesError);
      expect(() => loadStackRules(data)).toThrow(message);
    }
  });
});

describe("hostile homepages: bounded matching, capped evidence", () => {
  test("a 5 MB page of scripts and links, huge headers and many cookies", () => {
    const chunk = '<script src="/_next/static/x.js"></script><link rel="stylesheet" href="/_nuxt/x.css">';
    const body = `<html><head><meta name="generator" content="Hugo ${"9".repeat(100_000)}">${chunk.repeat(Math.floor((5 * 1024 * 1024) / chunk.length))}</head></html>`;
    const homepage = site(
      {
        server: `nginx/${"1.".repeat(50_000)}`,
        "x-powered-by": `PHP/${"8".repeat(100_000)}`,
        "x-generator": `Drupal ${"1 ".repeat(100_000)}`,
        "x-runtime": "0.".repeat(100_000),
      },
      body,
      Array.from({ length: 1_000 }, (_, index) => `c${index}=${"v".repeat(1_000)}; path=/`),
    );
    const stack = detectStack(homepage);
    expect(stack.map((item) => item.name)).toEqual(["nginx", "PHP", "Next.js", "Nuxt", "Drupal", "Hugo"]);
    for (const item of stack) {
      // No absurd "versions": a version is at most 4 numeric parts.
      if (item.version) expect(item.version).toMatch(/^\d{1,4}(\.\d{1,5}){0,3}$/);
      for (const evidence of item.evidence) expect(evidence.value.length).toBeLessThanOrEqual(220);
    }
  });

  test("site text in the stack is cleaned of control characters", () => {
    const stack = detectStack(site({ server: "nginx/1.25.3\u0000\u202e<script>" }));
    expect(stack[0]?.evidence[0]?.value).toBe("server: nginx/1.25.3<script>");
  });
});

/** A full report around an analysis result, as the API stores it. */
function reportOf(result: Result): Report {
  return {
    id: "rep_00000000000000000000000000",
    schema_version: "1.2.0",
    status: "completed",
    url: result.final_url ?? "",
    created_at: "2026-11-24T10:00:00.000Z",
    completed_at: "2026-11-24T10:00:01.000Z",
    duration_ms: 1000,
    metadata: {},
    ...result,
  };
}

describe("where people read it", () => {
  const report = reportOf(buildResult(loadArtifacts(HUGO_NGINX)));

  test("the saved report validates against the published schema", () => {
    expectValidReport(report);
  });

  test("the report page: a Not WordPress block with the stack and its evidence, no empty WordPress section", () => {
    const html = renderToString(h(ReportPage, { report, siblings: [] }));
    expect(html).toContain('id="not-wordpress"');
    expect(html).toContain("Not WordPress — runs on nginx 1.22.1, Hugo 0.111.3");
    expect(html).toContain('data-stack="Hugo"');
    expect(html).toContain("server: nginx/1.22.1");
    expect(html).not.toContain("WordPress, theme and plugins");
    // The notice is the block, not also an entry of "Parts that could not be checked".
    expect(html).not.toContain("Parts that could not be checked");
  });

  test("the report page escapes the stack's site text", () => {
    const hostile = reportOf(
      buildResult(
        homepageOnly("https://example.org/", "<html></html>", { server: "nginx/1.2 <img src=x onerror=alert(1)>" }),
      ),
    );
    const html = renderToString(h(ReportPage, { report: hostile, siblings: [] }));
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=alert(1)>");
  });

  test("the Action's summary says it in one line", () => {
    const markdown = renderMarkdown({
      report,
      diff: diff(null, report),
      reportUrl: "https://wpreport.dev/reports/rep_00000000000000000000000000",
      failOn: "high",
    });
    expect(markdown).toContain(
      "> ℹ️ Not WordPress — runs on nginx 1.22.1, Hugo 0.111.3: only the checks that apply to any site ran.",
    );
  });
});

describe.skipIf(!Bun.which("nginx") || !Bun.which("php"))("real sites through the service API", () => {
  let service: TestService;
  let token: string;
  const servers: RealServer[] = [];
  beforeAll(async () => {
    service = await startTestService();
    token = (await service.token()).token;
    servers.push(await startNginxStatic(), await startPhpApp());
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await service.stop();
  });

  const generate = async (url: string) => {
    const created = await service.call<Report>("POST", "/api/generate-report", { token, body: { url } });
    expect(created.status).toBe(201);
    expectValidReport(created.body);
    return created.body;
  };

  test("nginx serving a Hugo blog: not WordPress, runs on nginx and Hugo, generic checks scored", async () => {
    const [nginx] = servers as [RealServer, RealServer];
    const report = await generate(nginx.url);
    expectNotWordPressReport(report);
    expect(report.errors.find((error) => error.kind === "not_wordpress")?.message).toContain(
      `it runs on ${nginx.software.replace("/", " ")}, Hugo 0.111.3.`,
    );
    expect(named(report.hosting?.stack, "Hugo")?.evidence).toEqual([
      { source: "meta_generator", value: "Hugo 0.111.3" },
    ]);
    expect(checkOf(report, "performance.html_compression").status).toBe("pass");
    expect(report.summary?.categories.components).toBeNull();
  });

  test("php -S running a PHP app: not WordPress, runs on PHP (version from X-Powered-By), php_eol judged", async () => {
    const [, php] = servers as [RealServer, RealServer];
    const report = await generate(php.url);
    expectNotWordPressReport(report);
    const item = named(report.hosting?.stack, "PHP");
    expect(`PHP/${item?.version}`).toBe(php.software);
    expect(item?.evidence.map((evidence) => evidence.source)).toEqual(["header", "cookie"]);
    expect(checkOf(report, "components.php_eol").status).not.toBe("skip");
    expect(checkOf(report, "security.cookie_flags").status).toBe("fail");
  });
});
