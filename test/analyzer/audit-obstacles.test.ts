/**
 * Blocked is not pass, on saved artifacts of the real fixture (factsOf): a probe answered by a
 * firewall's challenge or block page (saved answers, test/analyzer/block-pages/), a persistent
 * 429, a server error or no answer makes every check that passes on a miss skip with what met
 * it; a finding stands; report.not_checked lists exactly those checks; the score counts only
 * the checks that ran.
 */
import { describe, expect, test } from "bun:test";
import { buildResult } from "../../server/analyzer/analyze.ts";
import type { Artifacts, HttpArtifact } from "../../server/analyzer/artifacts.ts";
import { runAudits } from "../../server/analyzer/audit/index.ts";
import { guardPasses, MISS_PROBES, notCheckedOf } from "../../server/analyzer/audit/obstacles.ts";
import type { ProbeKey } from "../../server/analyzer/probe-keys.ts";
import { controlKeyOf } from "../../server/analyzer/probe-keys.ts";
import { summarise } from "../../server/analyzer/score.ts";
import type { Check } from "../../shared/report.ts";
import { answer, loadArtifacts, variant, WP_FIXTURE } from "./artifacts.ts";
import { loadAnswer } from "./block-page-samples.ts";
import { factsOf } from "./facts.ts";

const fixture = loadArtifacts(WP_FIXTURE);
const ORIGIN = "http://127.0.0.1:8088";

/** A saved firewall answer as the answer of a probe asked at `path`. */
function met(sample: string, path: string): HttpArtifact {
  const saved = loadAnswer(sample);
  return { ...answer(`${ORIGIN}${path}`, saved.status, saved.body, saved.headers) };
}
/** The fixture with these probes answered otherwise. */
const answered = (probes: Partial<Record<ProbeKey, HttpArtifact | null>>) => variant(fixture, { probes });
const checksOf = (artifacts: Artifacts) => runAudits(factsOf(artifacts));
const checkOf = (artifacts: Artifacts, id: string): Check => {
  const found = checksOf(artifacts).find((check) => check.id === id);
  if (!found) throw new Error(`${id} not produced`);
  return found;
};

describe("a challenge or block page instead of the file", () => {
  test("the fixture as captured meets nothing: no check is not checked", () => {
    expect(factsOf(fixture).probes.obstacles).toEqual({});
    expect(notCheckedOf(checksOf(fixture))).toEqual([]);
    expect(buildResult(fixture).not_checked).toEqual([]);
    expect(buildResult(fixture).summary?.not_checked).toBe(0);
  });

  test("a Cloudflare challenge on .git/HEAD: skip with the reason, never pass; the other kinds still pass", () => {
    const challenged = answered({ "exposed:/.git/HEAD": met("cloudflare-challenge.http", "/.git/HEAD") });
    expect(checkOf(fixture, "security.git_exposed").status).toBe("pass");
    expect(checkOf(challenged, "security.git_exposed")).toMatchObject({
      status: "skip",
      message: "A Cloudflare firewall challenge answered /.git/HEAD: not checked.",
      evidence: ["a Cloudflare firewall challenge answered /.git/HEAD"],
    });
    expect(checkOf(challenged, "security.env_file_exposed").status).toBe("pass");
    const result = buildResult(challenged);
    expect(result.not_checked).toEqual([
      { check: "security.git_exposed", reason: "A Cloudflare firewall challenge answered /.git/HEAD: not checked" },
    ]);
    expect(result.summary?.not_checked).toBe(1);
    expect(result.hosting?.waf).toBe("Cloudflare");
    expect(checkOf(challenged, "security.waf")).toMatchObject({
      status: "pass",
      evidence: ["edge: Cloudflare", "a Cloudflare firewall challenge answered /.git/HEAD"],
    });
  });

  test("every check that passes on a miss, each with a vendor's page on its probes", () => {
    const pages: [string, ProbeKey, string, string][] = [
      ["security.env_file_exposed", "exposed:/.env", "sucuri-block.http", "A Sucuri block page answered /.env"],
      [
        "security.debug_log_exposed",
        "exposed:/wp-content/debug.log",
        "wordfence-block.http",
        "A Wordfence block page answered /wp-content/debug.log",
      ],
      ["security.db_dump_exposed", "exposed:/dump.sql", "akamai-block.http", "An Akamai block page answered /dump.sql"],
      [
        "security.installer_exposed",
        "exposed:/wp-admin/install.php",
        "imperva-block.http",
        "An Imperva Incapsula block page answered /wp-admin/install.php",
      ],
      [
        "security.emergency_script_exposed",
        "exposed:/emergency.php",
        "modsecurity-406.http",
        "A ModSecurity block page answered /emergency.php",
      ],
      [
        "security.installer_log_exposed",
        "exposed:/installer-log.txt",
        "aws-waf-challenge.http",
        "An AWS WAF firewall challenge answered /installer-log.txt",
      ],
      [
        "security.backup_dir_exposed",
        "exposed:/wp-content/backup-db/",
        "siteground-captcha.http",
        "A SiteGround firewall challenge answered /wp-content/backup-db/",
      ],
      [
        "security.config_backup_exposed",
        "exposed:/wp-config.php.bak",
        "generic-captcha-429.http",
        "A firewall challenge answered /wp-config.php.bak",
      ],
      [
        "security.directory_listing",
        "uploads",
        "imunify360-bot-protection.http",
        "An Imunify360 firewall challenge answered /wp-content/uploads/",
      ],
      [
        "security.rest_user_enumeration",
        "rest_users",
        "vercel-challenge.http",
        "A Vercel firewall challenge answered /wp-json/wp/v2/users",
      ],
      [
        "security.author_enumeration",
        "author_1",
        "ddos-guard-check.http",
        "A DDoS-Guard firewall challenge answered /",
      ],
    ];
    for (const [id, key, sample, reason] of pages) {
      const path = new URL(fixture.probes[key]?.url ?? `${ORIGIN}/`).pathname;
      const check = checkOf(answered({ [key]: met(sample, path) }), id);
      expect({ id, status: check.status, message: check.message }).toEqual({
        id,
        status: "skip",
        message: expect.stringMatching(
          new RegExp(`^${reason.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}.*: not checked\\.$`),
        ),
      });
    }
  });

  test("a finding stands whatever met the other probes: readme.html and XML-RPC are read on the fixture", () => {
    const blocked = answered({
      "exposed:/.env": met("cloudflare-block.http", "/.env"),
      rest_users: met("cloudflare-challenge.http", "/wp-json/wp/v2/users"),
    });
    expect(checkOf(blocked, "security.readme_exposed").status).toBe("fail");
    expect(checkOf(blocked, "security.xmlrpc_enabled").status).toBe("fail");
    // The REST users route is behind the challenge; author archives still give the login away.
    expect(checkOf(blocked, "security.user_enumeration").status).toBe("fail");
    expect(checkOf(blocked, "security.rest_user_enumeration").status).toBe("skip");
  });

  test("XML-RPC behind a block page: all three not checked; readme.html behind a challenge: not checked", () => {
    const blocked = answered({
      xmlrpc_methods: met("wordfence-block.http", "/xmlrpc.php"),
      xmlrpc_get: met("wordfence-block.http", "/xmlrpc.php"),
      readme_html: met("cloudflare-challenge.http", "/readme.html"),
    });
    for (const id of ["security.xmlrpc_enabled", "security.xmlrpc_multicall", "security.xmlrpc_pingback"]) {
      expect(checkOf(blocked, id)).toMatchObject({ status: "skip", message: expect.stringContaining("Wordfence") });
    }
    expect(checkOf(blocked, "security.readme_exposed").status).toBe("skip");
  });

  test("a page that only reads like a block: not checked without a control, the site's own answer when its control differs", () => {
    const denied = met("generic-access-denied-403.http", "/.env");
    const alone = answered({ "exposed:/.env": denied });
    expect(checkOf(alone, "security.env_file_exposed").message).toBe(
      "A page that reads like a firewall's block page (Access denied) answered /.env: not checked.",
    );
    const control = (body: HttpArtifact) =>
      answered({ "exposed:/.env": denied, [controlKeyOf("exposed:/.env")]: body });
    const same = control(met("generic-access-denied-403.http", "/.wpreport-1a2b3c4d"));
    expect(checkOf(same, "security.env_file_exposed").message).toBe(
      "A firewall's block page answered /.env, as it does a random path of the same shape: not checked.",
    );
    const notFound = control(answer(`${ORIGIN}/.wpreport-1a2b3c4d`, 404, "<html><title>Not Found</title></html>"));
    expect(checkOf(notFound, "security.env_file_exposed").status).toBe("pass");
    expect(buildResult(notFound).not_checked).toEqual([]);
  });

  test('robots.txt behind a challenge: "nothing is disallowed" is not checked; a 5xx stays a finding', () => {
    const challenged = answered({ robots: met("cloudflare-challenge.http", "/robots.txt") });
    expect(checkOf(challenged, "seo.robots_txt_blocks_all")).toMatchObject({
      status: "skip",
      message: "A Cloudflare firewall challenge answered /robots.txt: not checked.",
    });
    const broken = answered({ robots: answer(`${ORIGIN}/robots.txt`, 503, "down") });
    expect(checkOf(broken, "seo.robots_txt_blocks_all").status).toBe("fail");
  });

  test("a persistent 429, a server error and no answer are no answers either", () => {
    const tooMany = answered({
      "exposed:/.env": answer(`${ORIGIN}/.env`, 429, "Too Many Requests", { "retry-after": "2" }),
    });
    expect(checkOf(tooMany, "security.env_file_exposed").message).toBe(
      "The site answered 429 (too many requests) for /.env, again after waiting as it asked: not checked.",
    );
    const broken = answered({ feed: answer(`${ORIGIN}/feed/`, 503, "Service Unavailable") });
    // The homepage's generator tag still discloses the version: a finding stands.
    expect(checkOf(broken, "security.wp_version_disclosed").status).toBe("fail");
    const readmes = answered({
      "plugin_readme:akismet": answer(`${ORIGIN}/wp-content/plugins/akismet/readme.txt`, 502, "Bad Gateway"),
    });
    expect(checkOf(readmes, "components.plugin_versions_exposed")).toMatchObject({ status: "skip" });
    const gone = answered({ login: null });
    gone.errors.push({
      stage: "login",
      url: `${ORIGIN}/wp-login.php`,
      kind: "refused",
      message: "the connection was refused or reset",
    });
    expect(checkOf(gone, "security.login_over_https").message).toBe(
      "The request for /wp-login.php got no answer (the connection was refused or reset): not checked.",
    );
  });
});

describe("the last line and the count", () => {
  const facts = factsOf(answered({ "exposed:/.env": met("cloudflare-challenge.http", "/.env") }));

  test("a pass of a check that rests on an obstructed probe is turned into not checked, whatever its audit said", () => {
    const pass: Check = { ...checkOf(fixture, "security.env_file_exposed") };
    expect(pass.status).toBe("pass");
    const [guarded] = guardPasses([pass], facts);
    expect(guarded).toMatchObject({
      status: "skip",
      message: "A Cloudflare firewall challenge answered /.env: not checked.",
    });
    // A finding, or a check that rests on nothing obstructed, is left alone.
    const fail: Check = { ...pass, status: "fail" };
    expect(guardPasses([fail], facts)).toEqual([fail]);
    const other = checkOf(fixture, "security.git_exposed");
    expect(guardPasses([other], facts)).toEqual([other]);
  });

  test("an audit that gave up (error) because a probe got no answer says what met it, as not checked", () => {
    const timedOut = answered({ robots: null });
    timedOut.errors.push({ stage: "robots", url: `${ORIGIN}/robots.txt`, kind: "timeout", message: "timed out" });
    for (const id of ["seo.robots_txt", "seo.robots_txt_blocks_all"]) {
      expect(checkOf(timedOut, id)).toMatchObject({
        status: "skip",
        message: "The request for /robots.txt timed out: not checked.",
      });
    }
    expect(notCheckedOf(checksOf(timedOut)).map((entry) => entry.check)).toEqual([
      "seo.robots_txt",
      "seo.robots_txt_blocks_all",
    ]);
  });

  test("the http:// homepage's probe is quoted by its whole URL", () => {
    const https = variant(fixture, { url: "https://127.0.0.1:8088/", probes: { http_redirect: null } });
    https.errors.push({ stage: "http_redirect", url: `${ORIGIN}/`, kind: "timeout", message: "timed out" });
    expect(checkOf(https, "security.http_to_https_redirect")).toMatchObject({
      status: "skip",
      message: `The request for ${ORIGIN}/ timed out: not checked.`,
    });
  });

  test("every check in MISS_PROBES is a check the audits produce", () => {
    const ids = new Set(checksOf(fixture).map((check) => check.id));
    expect(Object.keys(MISS_PROBES).filter((id) => !ids.has(id))).toEqual([]);
  });

  test("not checked counts neither for nor against the score: as if the check were absent", () => {
    const checks = checksOf(answered({ "exposed:/.env": met("cloudflare-challenge.http", "/.env") }));
    const without = checks.filter((check) => check.id !== "security.env_file_exposed");
    const summary = summarise(checks);
    expect(summary).toEqual({ ...summarise(without), not_checked: 1 });
    expect(summary.not_checked).toBe(1);
    expect(summarise(without).not_checked).toBe(0);
  });
});
