/**
 * Security audits on saved artifacts of the real fixture sites, and variants of them for
 * every status each check can produce.
 */
import { describe, expect, test } from "bun:test";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { CHECKS } from "../../server/analyzer/audit/catalogue.ts";
import { SECURITY_AUDITS } from "../../server/analyzer/audit/security/index.ts";
import type { Check } from "../../shared/report.ts";
import { answer, homepageOnly, loadArtifacts, variant, WP_FIXTURE, WP_FIXTURE_TT3 } from "./artifacts.ts";
import { factsOf } from "./facts.ts";

const fixture = loadArtifacts(WP_FIXTURE);
const ORIGIN = "http://127.0.0.1:8088";
const HTTPS = "https://127.0.0.1:8088";

function checksOf(artifacts: Artifacts): Check[] {
  const facts = factsOf(artifacts);
  return SECURITY_AUDITS.flatMap((audit) => audit(facts));
}
function check(artifacts: Artifacts, id: string): Check {
  const found = checksOf(artifacts).find((item) => item.id === id);
  if (!found) throw new Error(`${id} not produced`);
  return found;
}
const status = (artifacts: Artifacts, id: string) => check(artifacts, id).status;
/** The fixture with extra homepage headers. */
const withHeaders = (headers: Record<string, string>, base: Artifacts = fixture) =>
  variant(base, { headers: { ...base.homepage.headers, ...headers } });
/** The fixture as if served over HTTPS (its links made https:// too), with the http:// probe's answer. */
function onHttps(plain: ReturnType<typeof answer> | null, change: { headers?: Record<string, string> } = {}) {
  return variant(fixture, {
    url: `${HTTPS}/`,
    body: fixture.homepage.body.replaceAll(ORIGIN, HTTPS),
    headers: { ...fixture.homepage.headers, ...change.headers },
    probes: { http_redirect: plain },
  });
}
const redirectTo = (location: string, code = 301) => answer(`${ORIGIN}/`, code, "", { location });
/** Removes a probe and records its failure as gather does. */
function failed(base: Artifacts, key: string): Artifacts {
  const copy = variant(base, { probes: { [key]: null } });
  copy.errors.push({ stage: key, url: `${ORIGIN}/`, kind: "timeout", message: "timed out" });
  return copy;
}
const notWordPress = homepageOnly(
  "https://example.com/",
  "<!doctype html><html><head><title>Shop</title></head></html>",
);

describe("the fixture as captured", () => {
  test("every security check is produced exactly once, from the catalogue", () => {
    const checks = checksOf(fixture);
    const ids = Object.keys(CHECKS).filter((id) => id.startsWith("security."));
    expect(checks.map((item) => item.id).sort()).toEqual(ids.sort());
    expect(ids.length).toBeGreaterThanOrEqual(25);
    for (const item of checks) expect(item.evidence.length).toBeLessThanOrEqual(10);
  });

  test("its statuses: what the real site serves", () => {
    const statuses = Object.fromEntries(checksOf(fixture).map((item) => [item.id, item.status]));
    expect(statuses).toEqual({
      "security.https": "fail",
      "security.http_to_https_redirect": "skip",
      "security.hsts": "skip",
      "security.mixed_content": "skip",
      "security.login_over_https": "fail",
      "security.config_backup_exposed": "pass",
      "security.env_file_exposed": "pass",
      "security.db_dump_exposed": "pass",
      "security.installer_exposed": "pass",
      "security.emergency_script_exposed": "pass",
      "security.git_exposed": "pass",
      "security.debug_log_exposed": "pass",
      "security.installer_log_exposed": "pass",
      "security.backup_dir_exposed": "pass",
      "security.readme_exposed": "fail",
      "security.directory_listing": "pass",
      "security.xmlrpc_enabled": "fail",
      "security.xmlrpc_multicall": "fail",
      "security.xmlrpc_pingback": "fail",
      "security.user_enumeration": "fail",
      "security.rest_user_enumeration": "fail",
      "security.author_enumeration": "fail",
      "security.admin_username": "fail",
      "security.csp": "fail",
      "security.clickjacking": "fail",
      "security.x_content_type_options": "fail",
      "security.referrer_policy": "warn",
      "security.permissions_policy": "fail",
      "security.cookie_flags": "skip",
      "security.wp_version_disclosed": "fail",
      "security.server_version_disclosed": "fail",
      "security.php_version_disclosed": "pass",
      "security.waf": "warn",
    });
  });

  test("the second fixture (twentytwentythree) gives the same security picture", () => {
    const statuses = (artifacts: Artifacts) => checksOf(artifacts).map((item) => [item.id, item.status]);
    expect(statuses(loadArtifacts(WP_FIXTURE_TT3))).toEqual(statuses(fixture));
  });
});

describe("transport", () => {
  test("http → https redirect: pass, warn (via another http:// URL), fail, error, skip", () => {
    const id = "security.http_to_https_redirect";
    expect(check(onHttps(redirectTo(`${HTTPS}/`)), id)).toMatchObject({
      status: "pass",
      evidence: [`${ORIGIN}/ → 301 ${HTTPS}/`],
    });
    expect(status(onHttps(redirectTo("http://www.127.0.0.1:8088/")), id)).toBe("warn");
    expect(status(onHttps(answer(`${ORIGIN}/`, 200, "<html></html>")), id)).toBe("fail");
    expect(status(onHttps(null), id)).toBe("error");
    expect(status(fixture, id)).toBe("skip");
  });

  test("HSTS: a year passes, a day warns, max-age=0 or none fails, plain HTTP skips", () => {
    const hsts = (value?: string) =>
      status(
        onHttps(redirectTo(`${HTTPS}/`), value ? { headers: { "strict-transport-security": value } } : {}),
        "security.hsts",
      );
    expect(hsts("max-age=31536000; includeSubDomains; preload")).toBe("pass");
    expect(hsts("max-age=86400")).toBe("warn");
    expect(hsts("max-age=0")).toBe("fail");
    expect(hsts("includeSubDomains")).toBe("fail");
    expect(hsts()).toBe("fail");
    expect(status(withHeaders({ "strict-transport-security": "max-age=31536000" }), "security.hsts")).toBe("skip");
  });

  test("mixed content: scripts over http fail, images only warn, all https passes", () => {
    const https = onHttps(redirectTo(`${HTTPS}/`));
    expect(status(https, "security.mixed_content")).toBe("pass");
    const page = (extra: string) => variant(https, { body: https.homepage.body.replace("</head>", `${extra}</head>`) });
    const script = check(page('<script src="http://cdn.example.com/lib.js"></script>'), "security.mixed_content");
    expect(script.status).toBe("fail");
    expect(script.evidence).toEqual(["script: http://cdn.example.com/lib.js"]);
    expect(status(page('<link rel="icon" href="http://cdn.example.com/icon.png">'), "security.mixed_content")).toBe(
      "warn",
    );
    // A URL merely written in the text is not loaded.
    expect(status(page("<!-- http://cdn.example.com/old.js -->"), "security.mixed_content")).toBe("pass");
  });

  test("login over HTTPS: fail on http, pass on https, skip when no form, error when unanswered", () => {
    const id = "security.login_over_https";
    const login = fixture.probes.login;
    if (!login) throw new Error("fixture has a login probe");
    expect(check(fixture, id)).toMatchObject({ status: "fail", evidence: [`${ORIGIN}/wp-login.php`] });
    const secure = variant(fixture, { probes: { login: { ...login, url: `${HTTPS}/wp-login.php` } } });
    expect(status(secure, id)).toBe("pass");
    expect(
      status(variant(fixture, { probes: { login: answer(`${ORIGIN}/wp-login.php`, 404, "Not Found") } }), id),
    ).toBe("skip");
    expect(check(failed(fixture, "login"), id)).toMatchObject({
      status: "skip",
      message: "The request for / timed out: not checked.",
    });
    expect(status(notWordPress, id)).toBe("skip");
  });
});

describe("exposed files", () => {
  const exposed = (key: string, body: string, code = 200, headers = { "content-type": "text/plain" }) =>
    variant(fixture, { probes: { [`exposed:${key}`]: answer(`${ORIGIN}${key}`, code, body, headers) } });

  test.each([
    [
      "security.config_backup_exposed",
      "/wp-config.php.bak",
      "<?php\ndefine( 'DB_NAME', 'wordpress' );\ndefine( 'DB_PASSWORD', 'x' );\n",
    ],
    ["security.config_backup_exposed", "/.wp-config.php.swp", "b0VIM 8.2\u0000\u0000define('DB_USER', 'wp');"],
    ["security.env_file_exposed", "/.env", "APP_ENV=production\nDB_PASSWORD=secret\n"],
    ["security.db_dump_exposed", "/dump.sql", "-- MySQL dump 10.13  Distrib 8.0.36\nCREATE TABLE `wp_users` ("],
    ["security.git_exposed", "/.git/HEAD", "ref: refs/heads/main\n"],
    [
      "security.debug_log_exposed",
      "/wp-content/debug.log",
      "[21-Nov-2026 10:00:00 UTC] PHP Warning:  Undefined variable $x",
    ],
    ["security.installer_log_exposed", "/installer-log.txt", "********************\nDUPLICATOR PRO INSTALL-LOG\n"],
    ["security.emergency_script_exposed", "/emergency.php", "<html><title>WordPress Emergency Password Reset</title>"],
    [
      "security.backup_dir_exposed",
      "/wp-content/backup-db/",
      '<html><head><title>Index of /wp-content/backup-db/</title></head><body><a href="db.sql">db.sql</a></body></html>',
    ],
    [
      "security.installer_exposed",
      "/wp-admin/install.php",
      '<form id="setup" method="post" action="install.php?step=2"><input name="weblog_title" type="text">',
    ],
  ])("%s fails when %s shows its content", (id, key, body) => {
    const result = check(exposed(key, body), id);
    expect(result.status).toBe("fail");
    expect(result.evidence[0]).toStartWith(`${ORIGIN}${key} (200): `);
  });

  test("an unconfigured install redirecting to setup-config.php is an open installer", () => {
    const redirect = variant(fixture, {
      probes: {
        "exposed:/wp-admin/install.php": answer(`${ORIGIN}/wp-admin/install.php`, 302, "", {
          location: `${ORIGIN}/wp-admin/setup-config.php`,
        }),
      },
    });
    expect(check(redirect, "security.installer_exposed")).toMatchObject({
      status: "fail",
      evidence: [`${ORIGIN}/wp-admin/install.php (302): Location: ${ORIGIN}/wp-admin/setup-config.php`],
    });
    // A homepage that landed on the setup screen says the same.
    const setup = variant(fixture, {
      url: `${ORIGIN}/wp-admin/setup-config.php`,
      body: '<!DOCTYPE html><html><body><form id="setup" method="post" action="?step=0"><select name="language"></select></form></body></html>',
    });
    expect(status(setup, "security.installer_exposed")).toBe("fail");
  });

  test("the fixture's install.php answers 'Already Installed': pass", () => {
    expect(fixture.probes["exposed:/wp-admin/install.php"]?.body).toContain("Already Installed");
    expect(status(fixture, "security.installer_exposed")).toBe("pass");
  });

  test("a page that merely mentions setup-config.php or has an element with id=setup is not the installer", () => {
    const page = (body: string) =>
      status(
        exposed("/wp-admin/install.php", `<!doctype html><html><body>${body}</body></html>`, 200, {
          "content-type": "text/html",
        }),
        "security.installer_exposed",
      );
    expect(page('<section id="setup"><h2>Setup</h2></section>')).toBe("pass");
    expect(page("<p>WordPress creates wp-config.php through setup-config.php.</p>")).toBe("pass");
    expect(page('<a href="setup-config.php?step=1" class="button button-large">Let&#8217;s go!</a>')).toBe("fail");
  });

  test("content that does not prove the file is real is not a finding (soft 404, wrong content)", () => {
    const homepage = fixture.homepage.body;
    expect(status(exposed("/.env", homepage, 200, { "content-type": "text/html" }), "security.env_file_exposed")).toBe(
      "pass",
    );
    expect(status(exposed("/.git/HEAD", "nothing to see"), "security.git_exposed")).toBe("pass");
    expect(status(exposed("/dump.sql", "-- MySQL dump", 403), "security.db_dump_exposed")).toBe("pass");
  });

  test("a kind whose requests timed out is not checked (skip), naming what met it", () => {
    const result = check(failed(fixture, "exposed:/wp-config.php.old"), "security.config_backup_exposed");
    expect(result).toMatchObject({ status: "skip", message: "The request for / timed out: not checked." });
    expect(status(failed(fixture, "exposed:/.env"), "security.env_file_exposed")).toBe("skip");
    // Other kinds are unaffected.
    expect(status(failed(fixture, "exposed:/.env"), "security.git_exposed")).toBe("pass");
  });

  test("readme.html: the fixture serves it (fail); 404 passes; unanswered is not checked", () => {
    expect(check(fixture, "security.readme_exposed").evidence).toEqual([
      `${ORIGIN}/readme.html (200): WordPress readme.html`,
    ]);
    const gone = variant(fixture, { probes: { readme_html: answer(`${ORIGIN}/readme.html`, 404, "Not Found") } });
    expect(status(gone, "security.readme_exposed")).toBe("pass");
    // The fixture serves it: a finding stands whatever else happened; gone and timed out, it is not checked.
    const timedOut = failed(variant(gone, {}), "readme_html");
    expect(status(timedOut, "security.readme_exposed")).toBe("skip");
  });

  test("directory listing: the uploads listing fails, 403 passes, unanswered is not checked", () => {
    const listing = variant(fixture, {
      probes: {
        uploads: answer(
          `${ORIGIN}/wp-content/uploads/`,
          200,
          "<html><head><title>Index of /wp-content/uploads/</title>",
        ),
      },
    });
    expect(check(listing, "security.directory_listing")).toMatchObject({
      status: "fail",
      evidence: [`${ORIGIN}/wp-content/uploads/ lists its files`],
    });
    expect(status(fixture, "security.directory_listing")).toBe("pass");
    expect(status(failed(fixture, "uploads"), "security.directory_listing")).toBe("skip");
  });
});

describe("XML-RPC", () => {
  const ids = ["security.xmlrpc_enabled", "security.xmlrpc_multicall", "security.xmlrpc_pingback"];
  const statuses = (artifacts: Artifacts) => ids.map((id) => status(artifacts, id));
  const methods = (...names: string[]) =>
    answer(
      `${ORIGIN}/xmlrpc.php`,
      200,
      `<?xml version="1.0"?><methodResponse><params><param><value><array><data>${names
        .map((name) => `<value><string>${name}</string></value>`)
        .join("")}</data></array></value></param></params></methodResponse>`,
    );

  test("the fixture offers 80 methods including system.multicall and pingback.ping: all fail", () => {
    expect(statuses(fixture)).toEqual(["fail", "fail", "fail"]);
    expect(check(fixture, "security.xmlrpc_enabled").evidence).toEqual(["system.listMethods: 80 methods"]);
  });

  test("blocked xmlrpc.php → all pass", () => {
    const blocked = variant(fixture, {
      probes: {
        xmlrpc_get: answer(`${ORIGIN}/xmlrpc.php`, 403, "Forbidden"),
        xmlrpc_methods: answer(`${ORIGIN}/xmlrpc.php`, 403, "Forbidden"),
      },
    });
    expect(statuses(blocked)).toEqual(["pass", "pass", "pass"]);
  });

  test("methods filtered → enabled fails, the two methods pass", () => {
    const filtered = variant(fixture, {
      probes: { xmlrpc_methods: methods("system.listMethods", "wp.getUsersBlogs") },
    });
    expect(statuses(filtered)).toEqual(["fail", "pass", "pass"]);
  });

  test("method list refused → skip; unanswered → not checked (skip); nothing answered → all not checked", () => {
    const refused = variant(fixture, { probes: { xmlrpc_methods: answer(`${ORIGIN}/xmlrpc.php`, 403, "Forbidden") } });
    expect(statuses(refused)).toEqual(["fail", "skip", "skip"]);
    expect(statuses(failed(fixture, "xmlrpc_methods"))).toEqual(["fail", "skip", "skip"]);
    expect(statuses(failed(failed(fixture, "xmlrpc_methods"), "xmlrpc_get"))).toEqual(["skip", "skip", "skip"]);
  });

  test("not WordPress → skip", () => {
    expect(statuses(notWordPress)).toEqual(["skip", "skip", "skip"]);
  });
});

describe("user enumeration", () => {
  const restUsers = (body: string, code = 200) =>
    answer(`${ORIGIN}/wp-json/wp/v2/users?per_page=100`, code, body, { "content-type": "application/json" });
  const jane = '[{"id":2,"name":"Jane Editor","slug":"editor-jane"}]';

  test("the fixture lists admin and editor-jane over REST and /?author=1 → /author/admin/", () => {
    expect(check(fixture, "security.rest_user_enumeration")).toMatchObject({
      status: "fail",
      evidence: [
        "admin (id 1) — seen in rest_api, author_archive, feed",
        "editor-jane (id 2) — seen in rest_api, oembed, feed",
      ],
    });
    expect(check(fixture, "security.author_enumeration")).toMatchObject({
      status: "fail",
      evidence: [`${ORIGIN}/?author=1 (301) → ${ORIGIN}/author/admin/`],
    });
    expect(status(fixture, "security.admin_username")).toBe("fail");
  });

  // What the real fixture's wp-sitemap-users-1.xml serves (curl http://127.0.0.1:8088/wp-sitemap-users-1.xml).
  const usersSitemap = answer(
    `${ORIGIN}/wp-sitemap-users-1.xml`,
    200,
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${ORIGIN}/author/admin/</loc></url><url><loc>${ORIGIN}/author/editor-jane/</loc></url></urlset>`,
    { "content-type": "application/xml; charset=UTF-8" },
  );
  const closed = {
    rest_users: restUsers('{"code":"rest_forbidden"}', 401),
    author_1: answer(`${ORIGIN}/?author=1`, 403, "Forbidden"),
    users_sitemap: answer(`${ORIGIN}/wp-sitemap-users-1.xml`, 404, "Not found"),
    oembed: null,
    feed: null,
  };

  test("user_enumeration fails on the fixture and names every route that listed users", () => {
    expect(check(variant(fixture, { probes: { users_sitemap: usersSitemap } }), "security.user_enumeration")).toEqual(
      expect.objectContaining({
        status: "fail",
        message:
          "Visitors can list 2 login name(s) through the REST API (/wp-json/wp/v2/users), author archives (/?author=N), the users sitemap (wp-sitemap-users-1.xml), oEmbed. Feeds show authors' display names, which are not logins.",
        evidence: [
          "the REST API (/wp-json/wp/v2/users): admin, editor-jane",
          "author archives (/?author=N): admin",
          "the users sitemap (wp-sitemap-users-1.xml): admin, editor-jane",
          "oEmbed: editor-jane",
          "feeds: admin, Jane Editor (display names)",
        ],
      }),
    );
  });

  test("REST users refused but author archives and the sitemap give the users away → user_enumeration fails", () => {
    const site = variant(fixture, {
      probes: { ...closed, author_1: fixture.probes.author_1 ?? null, users_sitemap: usersSitemap },
    });
    expect(status(site, "security.rest_user_enumeration")).toBe("pass");
    const found = check(site, "security.user_enumeration");
    expect(found.status).toBe("fail");
    expect(found.message).toContain("author archives (/?author=N), the users sitemap (wp-sitemap-users-1.xml)");
    expect(found.message).not.toContain("REST");
    expect(factsOf(site).security.user_enumeration).toEqual({
      rest_api: false,
      author_archives: true,
      oembed: false,
      sitemap: true,
      feed: false,
    });
  });

  test("user_enumeration: every route closed → pass; display names in a feed are not logins → pass, said as such", () => {
    expect(check(variant(fixture, { probes: closed }), "security.user_enumeration")).toMatchObject({
      status: "pass",
      message: "No route lists user accounts.",
    });
    const feedOnly = variant(fixture, { probes: { ...closed, feed: fixture.probes.feed ?? null } });
    expect(check(feedOnly, "security.user_enumeration")).toMatchObject({
      status: "pass",
      message: "No route lists login names. Feeds show authors' display names, which are not logins.",
      evidence: ["feeds: Jane Editor, admin (display names)"],
    });
    expect(factsOf(feedOnly).security.users.every((user) => user.username === null)).toBe(true);
    expect(status(feedOnly, "security.admin_username")).toBe("pass");
  });

  test("oEmbed: author_name is a display name (pass), author_url's /author/<slug>/ is a login (fail)", () => {
    const embed = (body: object) =>
      answer(`${ORIGIN}/wp-json/oembed/1.0/embed?url=x`, 200, JSON.stringify({ version: "1.0", ...body }));
    const nameOnly = variant(fixture, { probes: { ...closed, oembed: embed({ author_name: "Jane Editor" }) } });
    expect(factsOf(nameOnly).security.user_enumeration.oembed).toBe(false);
    expect(check(nameOnly, "security.user_enumeration")).toMatchObject({
      status: "pass",
      message: "No route lists login names. oEmbed shows authors' display names, which are not logins.",
    });
    const withUrl = variant(fixture, {
      probes: {
        ...closed,
        oembed: embed({ author_name: "Jane Editor", author_url: `${ORIGIN}/author/editor-jane/` }),
      },
    });
    expect(factsOf(withUrl).security.user_enumeration.oembed).toBe(true);
    expect(check(withUrl, "security.user_enumeration")).toMatchObject({
      status: "fail",
      message: "Visitors can list 1 login name(s) through oEmbed.",
      evidence: ["oEmbed: editor-jane"],
    });
  });

  test("a hostile users sitemap: only /author/<slug>/ URLs count, at most 50 users, in bounded time", () => {
    const locs = Array.from({ length: 5_000 }, (_, i) => `<url><loc>${ORIGIN}/author/u${i}/</loc></url>`).join("");
    const junk = `<urlset>${"<loc>".repeat(20_000)}<loc>${"a".repeat(5_000)}</loc><loc>${ORIGIN}/not-an-author/x/</loc>${locs}</urlset>`;
    const site = variant(fixture, {
      probes: { ...closed, users_sitemap: answer(`${ORIGIN}/wp-sitemap-users-1.xml`, 200, junk) },
    });
    const users = factsOf(site).security.users;
    expect(users).toHaveLength(50);
    expect(users.every((user) => user.sources.join() === "sitemap" && /^u\d+$/.test(user.username ?? ""))).toBe(true);
  });

  test("REST users refused → pass; REST unanswered → not checked", () => {
    const refused = variant(fixture, { probes: { rest_users: restUsers('{"code":"rest_forbidden"}', 401) } });
    expect(status(refused, "security.rest_user_enumeration")).toBe("pass");
    expect(status(failed(fixture, "rest_users"), "security.rest_user_enumeration")).toBe("skip");
  });

  test("author archives refused → pass; unanswered → not checked", () => {
    const blocked = variant(fixture, { probes: { author_1: answer(`${ORIGIN}/?author=1`, 403, "Forbidden") } });
    expect(status(blocked, "security.author_enumeration")).toBe("pass");
    expect(status(failed(fixture, "author_1"), "security.author_enumeration")).toBe("skip");
  });

  test('no disclosed "admin" login → admin_username passes', () => {
    const onlyJane = variant(fixture, {
      probes: { rest_users: restUsers(jane), author_1: answer(`${ORIGIN}/?author=1`, 404, "") },
    });
    expect(check(onlyJane, "security.admin_username")).toMatchObject({
      status: "pass",
      message: 'None of the 1 disclosed login name(s) is "admin" or "administrator".',
    });
  });

  test("not WordPress → skip", () => {
    for (const id of [
      "security.user_enumeration",
      "security.rest_user_enumeration",
      "security.author_enumeration",
      "security.admin_username",
    ]) {
      expect(status(notWordPress, id)).toBe("skip");
    }
  });
});

describe("headers", () => {
  test("CSP: restrictive passes; unsafe-inline, wildcard or no script directive warns; none fails", () => {
    const csp = (value: string) => status(withHeaders({ "content-security-policy": value }), "security.csp");
    expect(csp("default-src 'self'; object-src 'none'")).toBe("pass");
    expect(csp("script-src 'self' 'unsafe-inline' 'nonce-abc123'")).toBe("pass");
    expect(csp("default-src 'self'; script-src 'self' 'unsafe-inline'")).toBe("warn");
    expect(csp("script-src * 'unsafe-eval'")).toBe("warn");
    expect(csp("upgrade-insecure-requests")).toBe("warn");
    expect(status(fixture, "security.csp")).toBe("fail");
    const meta = variant(fixture, {
      body: fixture.homepage.body.replace(
        "<head>",
        `<head><meta http-equiv="Content-Security-Policy" content="script-src 'self'">`,
      ),
    });
    expect(status(meta, "security.csp")).toBe("pass");
  });

  test("clickjacking: X-Frame-Options or frame-ancestors pass; ALLOW-FROM or * fail", () => {
    const framing = (headers: Record<string, string>) => status(withHeaders(headers), "security.clickjacking");
    expect(framing({ "x-frame-options": "SAMEORIGIN" })).toBe("pass");
    expect(framing({ "x-frame-options": "DENY, DENY" })).toBe("pass");
    expect(framing({ "x-frame-options": "ALLOW-FROM https://partner.example" })).toBe("fail");
    expect(framing({ "content-security-policy": "frame-ancestors 'self' https://partner.example" })).toBe("pass");
    expect(framing({ "content-security-policy": "frame-ancestors *", "x-frame-options": "DENY" })).toBe("fail");
    expect(status(fixture, "security.clickjacking")).toBe("fail");
  });

  test("X-Content-Type-Options: nosniff passes; other values and none fail", () => {
    const nosniff = (value: string) =>
      status(withHeaders({ "x-content-type-options": value }), "security.x_content_type_options");
    expect(nosniff("nosniff")).toBe("pass");
    expect(nosniff("sniff")).toBe("fail");
    expect(status(fixture, "security.x_content_type_options")).toBe("fail");
  });

  test("Referrer-Policy: strict values pass, downgrade-only warns, unsafe-url fails, none warns", () => {
    const policy = (value: string) => status(withHeaders({ "referrer-policy": value }), "security.referrer_policy");
    expect(policy("strict-origin-when-cross-origin")).toBe("pass");
    expect(policy("unknown-token, no-referrer")).toBe("pass");
    expect(policy("no-referrer-when-downgrade")).toBe("warn");
    expect(policy("unsafe-url")).toBe("fail");
    expect(policy("nonsense")).toBe("warn");
    expect(status(fixture, "security.referrer_policy")).toBe("warn");
  });

  test("Permissions-Policy: present passes, missing fails (info)", () => {
    const present = withHeaders({ "permissions-policy": "camera=(), microphone=()" });
    expect(status(present, "security.permissions_policy")).toBe("pass");
    expect(check(fixture, "security.permissions_policy")).toMatchObject({ status: "fail", severity: "info" });
  });
});

describe("cookies", () => {
  const cookies = (lines: string[], base: Artifacts = fixture) =>
    status(variant(base, { setCookies: lines }), "security.cookie_flags");

  test("no cookies → skip", () => {
    expect(status(fixture, "security.cookie_flags")).toBe("skip");
  });

  test("a session cookie without HttpOnly fails; with it passes; a consent cookie needs no HttpOnly", () => {
    expect(cookies(["PHPSESSID=abc; path=/"])).toBe("fail");
    expect(cookies(["PHPSESSID=abc; path=/; HttpOnly"])).toBe("pass");
    expect(cookies(["cookie_consent=yes; path=/"])).toBe("pass");
  });

  test("on HTTPS every cookie needs Secure", () => {
    const https = onHttps(redirectTo(`${HTTPS}/`));
    expect(cookies(["cookie_consent=yes; path=/"], https)).toBe("fail");
    expect(cookies(["cookie_consent=yes; path=/; Secure; SameSite=Lax"], https)).toBe("pass");
    const result = check(
      variant(https, { setCookies: ["wp_woocommerce_session_1=x; path=/"] }),
      "security.cookie_flags",
    );
    expect(result.evidence).toEqual(["wp_woocommerce_session_1: no Secure, no HttpOnly"]);
  });
});

describe("disclosure", () => {
  test("Server with a version fails; without a version or absent passes", () => {
    expect(check(fixture, "security.server_version_disclosed").evidence).toEqual(["server: nginx/1.22.1"]);
    expect(status(withHeaders({ server: "nginx" }), "security.server_version_disclosed")).toBe("pass");
    const { server: _, ...noServer } = fixture.homepage.headers;
    expect(status(variant(fixture, { headers: noServer }), "security.server_version_disclosed")).toBe("pass");
  });

  test("X-Powered-By with a PHP version fails; other values pass", () => {
    const php = check(withHeaders({ "x-powered-by": "PHP/8.1.2" }), "security.php_version_disclosed");
    expect(php).toMatchObject({ status: "fail", evidence: ["x-powered-by: PHP/8.1.2"] });
    expect(status(withHeaders({ "x-powered-by": "WP Engine" }), "security.php_version_disclosed")).toBe("pass");
  });
});

describe("WAF", () => {
  test("none seen → warn (info); an edge WAF passes", () => {
    expect(check(fixture, "security.waf")).toMatchObject({ status: "warn", severity: "info" });
    expect(check(withHeaders({ "cf-ray": "8c1f2a3b4c5d6e7f-AMS" }), "security.waf")).toMatchObject({
      status: "pass",
      evidence: ["edge: Cloudflare"],
    });
  });
});
