/**
 * HTTP/2 where the site offers it, for real: a local HTTPS server (node:http2 under Bun, ALPN
 * h2 + http/1.1, a certificate made with openssl for this run and trusted through
 * createSafeAgent's extraCa) and the real WordPress fixture over plain HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { analyze } from "../../server/analyzer/analyze.ts";
import { enumerationPlan } from "../../server/analyzer/enumeration/plan.ts";
import { TargetNotAllowedError } from "../../server/analyzer/errors.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { FetchFailure, SafeClient } from "../../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { type Certificate, hasOpenssl, makeCertificate, type RemoteSite, startRemoteTlsSite } from "./remote-site.ts";

const UA = "wpreport-test";
const FIXTURE = "http://127.0.0.1:8088/";

describe.skipIf(!hasOpenssl)("HTTP/2 over TLS (ALPN)", () => {
  let certificate: Certificate;
  let site: RemoteSite;
  let policy: TargetPolicy;
  beforeAll(async () => {
    certificate = makeCertificate();
    site = await startRemoteTlsSite(certificate);
    // Only the site's port: the probe of http://localhost/ (port 80) must be refused.
    policy = new TargetPolicy([`localhost:${new URL(site.url).port}`]);
  });
  afterAll(() => site.stop());

  test('a site offering h2 is analyzed over HTTP/2 on one connection, and the report says http_version "2"', async () => {
    site.log.length = 0;
    const agent = createSafeAgent(policy, undefined, [], { extraCa: [certificate.cert] });
    // Every probe the homepage alone determines is asked at once: answers wait until 25 are
    // in flight together — on one connection, as streams.
    const wave = site.hold(
      (log) => log.filter((entry) => entry.path !== "/").length >= 25,
      (entry) => entry.path !== "/",
    );
    const report = await analyze(site.url, { agent, policy, userAgent: UA }, AbortSignal.timeout(20_000));
    await agent.close();

    expect(await wave).toBe(true);
    expect(report.performance?.http_version).toBe("2");
    expect(new Set(site.log.map((entry) => entry.httpVersion))).toEqual(new Set(["2.0"]));
    expect(site.connections()).toBe(1);
    expect(site.log.length).toBeGreaterThan(30);
    // The chains still ran: the parent theme named by the child's style.css, oEmbed of the feed's item.
    expect(site.log.some((entry) => entry.path === "/wp-content/themes/parent/style.css")).toBe(true);
    expect(site.log.some((entry) => entry.path.startsWith("/wp-json/oembed/1.0/embed?url="))).toBe(true);
    expect(report.theme?.slug).toBe("child");
    // Over HTTP/2 a HEAD costs no connection: the exposed-file probes ask HEAD first.
    expect(site.log.filter((entry) => entry.method === "HEAD").length).toBeGreaterThanOrEqual(10);
    // The policy still decides every connection: http://localhost/ (port 80) is refused.
    expect(report.errors).toContainEqual(expect.objectContaining({ stage: "http_redirect", kind: "blocked" }));
  });

  test("aggressive enumeration over HTTP/2 asks with HEAD, on the same one connection", async () => {
    site.log.length = 0;
    const agent = createSafeAgent(policy, undefined, [], { extraCa: [certificate.cert] });
    const plan = enumerationPlan({ plugins: [], themes: [] }, { maxRequests: 60, timeBudgetMs: 10_000 });
    const report = await analyze(
      site.url,
      { agent, policy, userAgent: UA, enumerate: plan },
      AbortSignal.timeout(20_000),
    );
    await agent.close();
    // Plugin directories and themes' style.css of the candidates (the page's own themes are passive GETs).
    const enumerated = site.log.filter(
      (entry) =>
        /^\/wp-content\/plugins\/[^/]+\/$/.test(entry.path) ||
        (/^\/wp-content\/themes\/[^/]+\/style\.css$/.test(entry.path) && !/\/(child|parent)\//.test(entry.path)),
    );
    // (The version files of the plugins the page shows go first, within a third of the budget.)
    expect(enumerated.length).toBeGreaterThanOrEqual(35);
    expect(new Set(enumerated.map((entry) => entry.method))).toEqual(new Set(["HEAD"]));
    expect(site.connections()).toBe(1);
    expect(report.enumeration).toMatchObject({ requests: 60, stopped_by: "request_budget" });
  });

  test("the policy applies to h2 connections: a name resolving to loopback without an allowlist is refused in the lookup", async () => {
    const strict = new TargetPolicy([]);
    const agent = createSafeAgent(strict, undefined, [], { extraCa: [certificate.cert] });
    const before = site.connections();
    const failure = await new SafeClient(agent, strict, AbortSignal.timeout(5_000), UA)
      .fetch(site.url)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FetchFailure);
    expect((failure as FetchFailure).kind).toBe("blocked");
    await expect(
      analyze(site.url, { agent, policy: strict, userAgent: UA }, AbortSignal.timeout(5_000)),
    ).rejects.toBeInstanceOf(TargetNotAllowedError);
    expect(site.connections()).toBe(before);
    await agent.close();
  });

  test("without the test CA the self-signed certificate is refused (extraCa is what trusts it)", async () => {
    const agent = createSafeAgent(policy);
    const failure = await new SafeClient(agent, policy, AbortSignal.timeout(5_000), UA)
      .fetch(site.url)
      .catch((error: unknown) => error);
    expect((failure as FetchFailure).kind).toBe("tls");
    await agent.close();
  });
});

test('the plain-HTTP WordPress fixture is analyzed over HTTP/1.1: http_version "1.1"', async () => {
  const policy = new TargetPolicy(["127.0.0.1:8088"]);
  const agent = createSafeAgent(policy);
  const report = await analyze(FIXTURE, { agent, policy, userAgent: UA }, AbortSignal.timeout(20_000));
  await agent.close();
  expect(report.wordpress?.detected).toBe(true);
  expect(report.performance?.http_version).toBe("1.1");
});
