/**
 * Blocked is not pass, end to end: a WordPress site on loopback whose sensitive paths are
 * answered by something other than the site — a Cloudflare-style challenge, a Sucuri block
 * page, a page that only reads like a block, a 429 that persists, a server error, a request
 * that never ends — while the files exist behind it. The checks of those paths skip with what
 * met them, the report lists them in not_checked, the summary counts them, hosting.waf names
 * the firewall; a 429 that clears after its Retry-After is asked again and the file is found.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type AnalysisResult, analyze } from "../../server/analyzer/analyze.ts";
import { RATE_LIMIT_RETRIES } from "../../server/analyzer/fetch/rate-limit.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { DEFAULT_CLIENT_LIMITS } from "../../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { expectValidReport } from "../helpers/report-schema.ts";
import { blogFeed, blogHomepage, EXPOSED_ENV_FILE, startSite, type TestSite } from "../helpers/sites.ts";
import { loadAnswer } from "./block-page-samples.ts";
import { hasOpenssl, makeCertificate, startRemoteTlsSite } from "./remote-site.ts";

const policy = new TargetPolicy(["127.0.0.1", "localhost"]);
const GIT_HEAD = "ref: refs/heads/main\n";
const DEBUG_LOG =
  "[02-Dec-2024 10:12:31 UTC] PHP Warning:  Undefined variable $x in /var/www/html/wp-content/plugins/shop/shop.php on line 12\n";

/** What the firewall in front of the site answers for a path, or undefined to let the site answer. */
type Firewall = (path: string, seen: number) => Response | undefined | Promise<Response | undefined>;

/** A response from a saved firewall answer (test/analyzer/block-pages/). */
function saved(name: string, extra: Record<string, string> = {}): Response {
  const answer = loadAnswer(name);
  return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, ...extra } });
}

/** Is the path one of those the firewall guards, or a random path of the same shape (a control)? */
const sensitive = (path: string) => /^\/\.git\/|^\/\.[^/]+$|^\/wp-content\/[^/]+\.log$/.test(path);

let site: TestSite | undefined;
afterEach(() => site?.stop());

/** A WordPress site (homepage, feed, the files behind the firewall) with `firewall` in front. */
function startFirewalled(firewall: Firewall): TestSite {
  let origin = "";
  const seen = new Map<string, number>();
  const html = { "content-type": "text/html; charset=UTF-8" };
  const files: Record<string, string> = {
    "/.git/HEAD": GIT_HEAD,
    "/.env": EXPOSED_ENV_FILE,
    "/wp-content/debug.log": DEBUG_LOG,
  };
  const started = startSite({}, async (request) => {
    const path = new URL(request.url).pathname;
    const count = (seen.get(path) ?? 0) + 1;
    seen.set(path, count);
    const filtered = await firewall(path, count);
    if (filtered) return filtered;
    if (path === "/") {
      const page = blogHomepage(origin).replace(
        "</head>",
        `<link rel="stylesheet" href="${origin}/wp-content/themes/shop/style.css?ver=1.2"></head>`,
      );
      return new Response(page, { headers: html });
    }
    if (path === "/feed/") return new Response(blogFeed, { headers: { "content-type": "application/rss+xml" } });
    const file = files[path];
    if (file) return new Response(file, { headers: { "content-type": "text/plain" } });
    return new Response("<!doctype html><title>Page not found</title><h1>Nothing here</h1>", {
      status: 404,
      headers: html,
    });
  });
  origin = started.url.replace(/\/$/, "");
  site = started;
  return started;
}

async function analyzed(target: TestSite, timeoutMs = DEFAULT_CLIENT_LIMITS.requestTimeoutMs): Promise<AnalysisResult> {
  const result = await analyze(
    target.url,
    {
      agent: createSafeAgent(policy),
      policy,
      userAgent: "wpreport-test",
      limits: { ...DEFAULT_CLIENT_LIMITS, requestTimeoutMs: timeoutMs },
    },
    AbortSignal.timeout(25_000),
  );
  expectValidReport({
    id: "rep_00000000000000000000000000",
    schema_version: "1.5.0",
    status: "completed",
    url: target.url,
    created_at: new Date().toISOString(),
    completed_at: new Date().toISOString(),
    duration_ms: 1,
    metadata: {},
    ...result,
  });
  return result;
}

const checkOf = (result: AnalysisResult, id: string) => {
  const found = result.checks.find((check) => check.id === id);
  if (!found) throw new Error(`${id} not produced`);
  return found;
};
const FILE_CHECKS = ["security.git_exposed", "security.env_file_exposed", "security.debug_log_exposed"];
/** Requests for control paths (a random name of the same shape): wpreport-<8 hex>, not the 404 fingerprint's. */
const controls = (target: TestSite) => target.hits.filter((hit) => /wpreport-[0-9a-f]{8}(?!-not-found)/.test(hit));

describe("a firewalled host", () => {
  test("a Cloudflare challenge on .git/HEAD, .env and debug.log (and random paths like them): not checked, never pass", async () => {
    const target = startFirewalled((path) =>
      sensitive(path) ? saved("cloudflare-challenge.http", { "cf-ray": "8e3c5f1a2b9d4e71-FRA" }) : undefined,
    );
    const result = await analyzed(target);
    expect(result.wordpress?.detected).toBe(true);
    expect(result.hosting?.blocked_by_waf).toBe(false);
    expect(result.hosting?.waf).toBe("Cloudflare");
    expect(checkOf(result, "security.git_exposed")).toMatchObject({
      status: "skip",
      message:
        "A Cloudflare firewall challenge answered /.git/HEAD, as it does a random path of the same shape: not checked.",
    });
    for (const id of FILE_CHECKS) expect(checkOf(result, id).status).toBe("skip");
    expect(checkOf(result, "security.env_file_exposed").message).toStartWith(
      "A Cloudflare firewall challenge answered /.env",
    );
    expect(checkOf(result, "security.debug_log_exposed").message).toStartWith(
      "A Cloudflare firewall challenge answered /wp-content/debug.log",
    );
    // Listed with their reasons, counted in the summary; the challenge names the WAF.
    const listed = result.not_checked ?? [];
    // .wp-config.php.swp is a dotfile too: the config backups' check met the challenge as well.
    expect(listed.map((entry) => entry.check).sort()).toEqual(
      ["security.config_backup_exposed", ...FILE_CHECKS].sort(),
    );
    expect(listed.find((entry) => entry.check === "security.git_exposed")?.reason).toBe(
      "A Cloudflare firewall challenge answered /.git/HEAD, as it does a random path of the same shape: not checked",
    );
    expect(result.summary?.not_checked).toBe(listed.length);
    expect(checkOf(result, "security.waf")).toMatchObject({
      status: "pass",
      message: "A firewall (Cloudflare) protects the site.",
    });
    // No check that rests on a challenged path passes.
    const passing = result.checks.filter((check) => check.status === "pass").map((check) => check.id);
    for (const entry of listed) expect(passing).not.toContain(entry.check);
    // One distinct page: one control (of at most MAX_BLOCK_CONTROLS), a random path of a challenged one's shape.
    expect(controls(target).length).toBe(1);
    expect(controls(target)[0]).toMatch(
      /^GET \/(?:\.git\/wpreport-[0-9a-f]{8}|\.wpreport-[0-9a-f]{8}|wp-content\/wpreport-[0-9a-f]{8}\.log)$/,
    );
  }, 30_000);

  test("a Sucuri block page on .env: not checked, and hosting.waf names Sucuri", async () => {
    const target = startFirewalled((path) =>
      path.startsWith("/.env") || /^\/\.wpreport-/.test(path) ? saved("sucuri-block.http") : undefined,
    );
    const result = await analyzed(target);
    expect(result.hosting?.waf).toBe("Sucuri");
    expect(checkOf(result, "security.env_file_exposed")).toMatchObject({
      status: "skip",
      message: "A Sucuri block page answered /.env, as it does a random path of the same shape: not checked.",
    });
    // The other files answered: .git/HEAD and debug.log are read and fail.
    expect(checkOf(result, "security.git_exposed").status).toBe("fail");
    expect(checkOf(result, "security.debug_log_exposed").status).toBe("fail");
    expect(result.not_checked).toEqual([
      {
        check: "security.env_file_exposed",
        reason: "A Sucuri block page answered /.env, as it does a random path of the same shape: not checked",
      },
    ]);
    expect(result.summary?.not_checked).toBe(1);
  }, 30_000);

  test("a page that only reads like a block: not checked when a random path of its shape gets it too, the site's own answer when not", async () => {
    const filtering = startFirewalled((path) =>
      /^\/\.[^/]+$/.test(path) ? saved("generic-access-denied-403.http") : undefined,
    );
    const filtered = await analyzed(filtering);
    expect(checkOf(filtered, "security.env_file_exposed")).toMatchObject({
      status: "skip",
      message: "A firewall's block page answered /.env, as it does a random path of the same shape: not checked.",
    });
    expect(controls(filtering).length).toBe(1);
    filtering.stop();

    // Only .env itself is refused with that page: the control gets the site's 404, so the 403 is the site's answer.
    const refusing = startFirewalled((path) =>
      path === "/.env" ? saved("generic-access-denied-403.http") : undefined,
    );
    const refused = await analyzed(refusing);
    expect(checkOf(refused, "security.env_file_exposed").status).toBe("pass");
    expect(refused.not_checked).toEqual([]);
    expect(refused.summary?.not_checked).toBe(0);
    expect(controls(refusing)).toEqual([expect.stringMatching(/^GET \/\.wpreport-[0-9a-f]{8}$/)]);
  }, 40_000);

  test("a 429 that persists after its Retry-After, a server error and a timeout: each not checked with its reason", async () => {
    const target = startFirewalled(async (path) => {
      if (path === "/.git/HEAD")
        return new Response("Too Many Requests", { status: 429, headers: { "retry-after": "1" } });
      if (path === "/.env") return new Response("<h1>Internal Server Error</h1>", { status: 500 });
      if (path === "/wp-content/debug.log") {
        await Bun.sleep(6_000);
        return new Response(DEBUG_LOG);
      }
      return undefined;
    });
    const result = await analyzed(target, 2_000);
    expect(checkOf(result, "security.git_exposed")).toMatchObject({
      status: "skip",
      message:
        "The site answered 429 (too many requests) for /.git/HEAD, again after waiting as it asked: not checked.",
    });
    // Asked once more after the Retry-After, not more.
    // (HEAD first: a 429 needs no page, so both asks are HEADs.)
    expect(target.hits.filter((hit) => hit.endsWith(" /.git/HEAD")).length).toBe(2);
    expect(checkOf(result, "security.env_file_exposed")).toMatchObject({
      status: "skip",
      message: "The site answered /.env with a server error (HTTP 500): not checked.",
    });
    expect(checkOf(result, "security.debug_log_exposed")).toMatchObject({
      status: "skip",
      message: "The request for /wp-content/debug.log timed out: not checked.",
    });
    expect((result.not_checked ?? []).map((entry) => entry.check).sort()).toEqual([...FILE_CHECKS].sort());
    expect(result.summary?.not_checked).toBe(3);
    // No firewall page was seen: no control was asked, and no WAF is named.
    expect(controls(target)).toEqual([]);
    expect(result.hosting?.waf).toBeNull();
  }, 30_000);

  test("a 429 asked to wait longer than a report can: not asked again, not checked", async () => {
    const target = startFirewalled((path) =>
      path === "/.env" ? new Response("slow down", { status: 429, headers: { "retry-after": "120" } }) : undefined,
    );
    const result = await analyzed(target);
    expect(target.hits.filter((hit) => hit.endsWith(" /.env")).length).toBe(1);
    expect(checkOf(result, "security.env_file_exposed").message).toBe(
      "The site answered 429 (too many requests) for /.env and asked to wait 120 s, longer than a report waits: not checked.",
    );
  }, 30_000);

  test("a site that answers 429 to every probe: at most RATE_LIMIT_RETRIES of them are asked again", async () => {
    const everything = (wait: string) =>
      startFirewalled((path) =>
        path === "/" ? undefined : new Response("slow down", { status: 429, headers: { "retry-after": wait } }),
      );
    // Asked to wait longer than a report can: nothing is asked again — the requests of a report.
    const patient = everything("120");
    await analyzed(patient);
    const asked = patient.hits.length;
    patient.stop();
    const target = everything("0");
    const result = await analyzed(target);
    const retried = target.hits.length - asked;
    expect(retried).toBe(RATE_LIMIT_RETRIES);
    for (const id of FILE_CHECKS) expect(checkOf(result, id).status).toBe("skip");
    expect(result.checks.filter((check) => check.status === "pass").map((check) => check.id)).not.toContain(
      "security.xmlrpc_enabled",
    );
  }, 30_000);

  test("a 429 that clears after its Retry-After: asked again, and the file behind it is found", async () => {
    const target = startFirewalled((path, seen) =>
      path === "/.env" && seen === 1
        ? new Response("slow down", { status: 429, headers: { "retry-after": "1" } })
        : undefined,
    );
    const result = await analyzed(target);
    // A HEAD met the 429, the HEAD asked again after it found the file, and a GET read it.
    expect(target.hits.filter((hit) => hit.endsWith(" /.env"))).toEqual(["HEAD /.env", "HEAD /.env", "GET /.env"]);
    expect(checkOf(result, "security.env_file_exposed").status).toBe("fail");
    expect(result.not_checked).toEqual([]);
    expect(result.summary?.not_checked).toBe(0);
  }, 30_000);
});

describe("an ordinary site", () => {
  test("nothing met: no control request, nothing not checked, the files' checks pass", async () => {
    const target = startFirewalled(() => undefined);
    const result = await analyzed(target);
    expect(controls(target)).toEqual([]);
    expect(result.hosting?.waf).toBeNull();
    // The files are there and nothing stands before them: read, and found.
    for (const id of FILE_CHECKS) expect(checkOf(result, id).status).toBe("fail");
    expect(result.not_checked).toEqual([]);
    expect(result.summary?.not_checked).toBe(0);
  }, 30_000);
});

describe.skipIf(!hasOpenssl)("HEAD first over HTTP/2", () => {
  test("a HEAD with a vendor's challenge header needs no GET; a 403 HEAD without one is read with GET to see its page", async () => {
    const certificate = makeCertificate();
    const challenge = loadAnswer("cloudflare-challenge.http");
    const captcha = loadAnswer("generic-captcha-429.http");
    const h2 = await startRemoteTlsSite(certificate, (method, path) => {
      if (path === "/.git/HEAD") {
        return new Response(method === "HEAD" ? null : challenge.body, { status: 403, headers: challenge.headers });
      }
      // A firewall whose HEAD says nothing but 403: only its page says it is a captcha.
      if (path === "/.env" || /^\/\.wpreport-/.test(path)) {
        return new Response(method === "HEAD" ? null : captcha.body, {
          status: 403,
          headers: { "content-type": "text/html" },
        });
      }
      return undefined;
    });
    try {
      const h2Policy = new TargetPolicy([`localhost:${new URL(h2.url).port}`]);
      const agent = createSafeAgent(h2Policy, undefined, [], { extraCa: [certificate.cert] });
      const result = await analyze(
        h2.url,
        { agent, policy: h2Policy, userAgent: "wpreport-test" },
        AbortSignal.timeout(25_000),
      );
      await agent.close();
      expect(result.performance?.http_version).toBe("2");
      const asked = (path: string) => h2.log.filter((entry) => entry.path === path).map((entry) => entry.method);
      expect(asked("/.git/HEAD")).toEqual(["HEAD"]);
      expect(asked("/.env")).toEqual(["HEAD", "GET"]);
      expect(checkOf(result, "security.git_exposed").message).toStartWith(
        "A Cloudflare firewall challenge answered /.git/HEAD",
      );
      expect(checkOf(result, "security.env_file_exposed").message).toStartWith("A firewall challenge answered /.env");
      expect(result.hosting?.waf).toBe("Cloudflare");
    } finally {
      h2.stop();
    }
  }, 40_000);
});
