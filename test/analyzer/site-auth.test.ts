/**
 * Site credentials in the analyzer: a site that answers 401 to anything without basic auth, a
 * cookie and a header is analyzed fully with them, and they go to its origin only — each
 * redirect hop checked on its own, another port or another name for the same address being
 * another origin — never to an asset host or a redirect target elsewhere.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { analyze } from "../../server/analyzer/analyze.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { SafeClient } from "../../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { siteAuthHeaders } from "../../shared/site-auth.ts";
import {
  newSecrets,
  type ProtectedSite,
  type Recorder,
  secretForms,
  siteAuthOf,
  startProtectedBlog,
  startRecorder,
} from "../helpers/protected-site.ts";
import { BLOG_VERSION } from "../helpers/sites.ts";

const UA = "wpreport-test";
const policy = new TargetPolicy(["127.0.0.1", "localhost"]);

/** Every secret form found anywhere in what the recorder received (header lines and URLs). */
function leaks(recorder: Recorder, forms: string[]): string[] {
  const received = recorder.requests.map((request) => JSON.stringify(request)).join("\n");
  return forms.filter((form) => received.includes(form));
}

describe("site credentials in the analyzer", () => {
  const secrets = newSecrets();
  let other: Recorder;
  let site: ProtectedSite;

  beforeAll(() => {
    other = startRecorder();
    site = startProtectedBlog(secrets, other);
    // Redirects from the other origin back to the site: the hop home gets the credentials again.
    other.redirects["/back"] = `${site.origin}/feed/`;
    other.redirects["/home"] = site.url;
  });
  afterAll(() => {
    site.stop();
    other.stop();
  });

  test("a request to the site's origin carries them; other origins, and redirect hops there, do not", async () => {
    const credentials = { origin: site.origin, headers: siteAuthHeaders(siteAuthOf(secrets)) };
    const client = new SafeClient(
      createSafeAgent(policy),
      policy,
      AbortSignal.timeout(10_000),
      UA,
      undefined,
      credentials,
    );
    expect((await client.fetch(site.url)).status).toBe(200);
    // The site's robots.txt redirects to the other origin: that hop goes bare.
    const robots = await client.fetch(`${site.origin}/robots.txt`);
    expect(robots.redirects.map((hop) => hop.status)).toEqual([302]);
    expect(robots.url).toBe(`${other.origin}/robots.txt`);
    // From the other origin back to the site: the site gets them again.
    const back = await client.fetch(`${other.origin}/back`);
    expect(back.url).toBe(`${site.origin}/feed/`);
    expect(back.status).toBe(200);
    // The same server under another name (localhost) or the other origin's port is another origin.
    const port = new URL(site.origin).port;
    expect((await client.fetch(`http://localhost:${port}/`)).status).toBe(401);
    expect((await client.fetch(`${other.origin}/cdn/app.js`)).status).toBe(200);
    expect(site.refused).toEqual(["GET /"]);
    expect(other.requests.length).toBe(3);
    expect(leaks(other, secretForms(secrets))).toEqual([]);
  });

  test("analyze() with them: every request to the site is admitted, the report is complete, the other origin sees none", async () => {
    site.refused.length = 0;
    site.admitted.length = 0;
    other.requests.length = 0;
    const result = await analyze(
      site.url,
      { agent: createSafeAgent(policy), policy, userAgent: UA, siteAuth: siteAuthOf(secrets) },
      AbortSignal.timeout(20_000),
    );
    expect(site.refused).toEqual([]);
    expect(site.admitted.length).toBeGreaterThan(10);
    expect(result.wordpress?.detected).toBe(true);
    expect(result.wordpress?.version).toBe(BLOG_VERSION);
    expect(result.summary?.score).toBeGreaterThan(0);
    expect(result.errors.filter((error) => error.kind === "site_auth_not_sent")).toEqual([]);
    // The robots.txt redirect (at least) reached the other origin, without a trace of the secrets.
    expect(other.requests.some((request) => request.url.endsWith("/robots.txt"))).toBe(true);
    expect(leaks(other, secretForms(secrets))).toEqual([]);
  }, 30_000);

  test("without them the site is refused; when the site lives on another origin than the URL given, the report says they were not sent there", async () => {
    site.refused.length = 0;
    const bare = await analyze(
      site.url,
      { agent: createSafeAgent(policy), policy, userAgent: UA },
      AbortSignal.timeout(20_000),
    );
    expect(site.refused.length).toBeGreaterThan(0);
    expect(site.refused).toContain("GET /");
    expect(bare.wordpress?.detected).toBe(false);
    // Incomplete, saying the site asks for credentials — and not "not WordPress": a 401 page
    // is no evidence of what the site runs.
    expect(bare.summary).toBeNull();
    expect(bare.errors[0]).toMatchObject({ kind: "incomplete" });
    expect(bare.errors[0]?.message).toContain("asks for credentials (HTTP 401)");
    expect(bare.errors.filter((error) => error.kind === "not_wordpress")).toEqual([]);

    // The URL given redirects to the site: the credentials are for the URL's origin, not the site's.
    site.refused.length = 0;
    const elsewhere = await analyze(
      `${other.origin}/home`,
      { agent: createSafeAgent(policy), policy, userAgent: UA, siteAuth: siteAuthOf(secrets) },
      AbortSignal.timeout(20_000),
    );
    expect(site.refused).toContain("GET /");
    const notice = elsewhere.errors.find((error) => error.kind === "site_auth_not_sent");
    expect(notice?.message).toContain(`redirected to ${site.origin}`);
    expect(notice?.message).toContain(`(${other.origin})`);
  }, 40_000);

  test("credentials the site refuses: incomplete, saying they were refused (not that the site wants some)", async () => {
    const wrong = await analyze(
      site.url,
      { agent: createSafeAgent(policy), policy, userAgent: UA, siteAuth: siteAuthOf(newSecrets()) },
      AbortSignal.timeout(20_000),
    );
    expect(wrong.summary).toBeNull();
    expect(wrong.errors[0]?.kind).toBe("incomplete");
    expect(wrong.errors[0]?.message).toContain("refused the site credentials that were sent (HTTP 401)");
    expect(wrong.errors.filter((error) => error.kind === "not_wordpress")).toEqual([]);
  }, 30_000);
});
