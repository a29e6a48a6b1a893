/**
 * Staging TLS (tls: "insecure", tls_ca): the real WordPress fixture served over HTTPS with a
 * self-signed certificate, by a TLS proxy on loopback. Without either option the report is a
 * clear error naming the certificate's problem and the way out; with one, a report that says
 * which was used, with its TLS checks skipped rather than passed. The rule covers the site's
 * own origin only: a redirect to another self-signed origin is still refused, and a later
 * report of the same site without the option does not ride a connection the relaxed rule made.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  hasOpenssl,
  makeSelfSignedCertificate,
  type SelfSignedCertificate,
} from "../../scripts/self-signed-certificate.ts";
import type { Report } from "../../shared/report.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/** An HTTPS front for the fixture: every request forwarded with the fixture's own Host, answers passed back. */
function startTlsProxy(certificate: SelfSignedCertificate, upstream: string) {
  const upstreamUrl = new URL(upstream);
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: certificate.cert, key: certificate.key },
    async fetch(request) {
      const url = new URL(request.url);
      hits.push(url.pathname);
      const headers = new Headers(request.headers);
      headers.set("host", upstreamUrl.host);
      headers.set("accept-encoding", "identity");
      const answer = await fetch(new URL(`${url.pathname}${url.search}`, upstreamUrl), {
        method: request.method,
        headers,
        body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer(),
        redirect: "manual",
      });
      const out = new Headers(answer.headers);
      out.delete("content-encoding");
      out.delete("content-length");
      return new Response(await answer.arrayBuffer(), { status: answer.status, headers: out });
    },
  });
  return { url: `https://127.0.0.1:${server.port}/`, hits, stop: () => server.stop(true) };
}

describe.skipIf(!HAS_WORDPRESS || !hasOpenssl)("a staging WordPress over HTTPS with a self-signed certificate", () => {
  let service: TestService;
  let token: string;
  let certificate: SelfSignedCertificate;
  let site: ReturnType<typeof startTlsProxy>;
  let elsewhere: ReturnType<typeof Bun.serve>;
  let redirecting: ReturnType<typeof Bun.serve>;

  const generate = (body: Record<string, unknown>) =>
    service.call<Report & { code?: string; detail?: string; errors?: { pointer: string }[] }>(
      "POST",
      "/api/generate-report",
      { token, body },
    );

  beforeAll(async () => {
    certificate = makeSelfSignedCertificate();
    site = startTlsProxy(certificate, WORDPRESS_URL);
    // Another self-signed origin, and a site of the first kind that sends its homepage there.
    elsewhere = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: certificate.cert, key: certificate.key },
      fetch: () => new Response("<html><body>elsewhere</body></html>", { headers: { "content-type": "text/html" } }),
    });
    redirecting = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: certificate.cert, key: certificate.key },
      fetch: () => Response.redirect(`https://localhost:${elsewhere.port}/`, 302),
    });
    service = await startTestService();
    ({ token } = await service.token(undefined, "business"));
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    site?.stop();
    elsewhere?.stop(true);
    redirecting?.stop(true);
  });

  test("without tls options: a clear error that names the certificate's problem and the way out, nothing charged", async () => {
    const before = await service.call<{ used: number }>("GET", "/api/usage", { token });
    const answer = await generate({ url: site.url });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe("site_unreachable");
    expect(answer.body.detail).toContain("its TLS certificate could not be verified: it is self-signed");
    expect(answer.body.detail).toContain('tls: "insecure"');
    expect(answer.body.detail).toContain("tls_ca");
    const after = await service.call<{ used: number }>("GET", "/api/usage", { token });
    expect(after.body.used).toBe(before.body.used);
  });

  test('tls: "insecure": a report of the WordPress behind it, saying the certificate was not verified; TLS checks skip', async () => {
    const answer = await generate({ url: site.url, tls: "insecure" });
    expect(answer.status).toBe(201);
    const report = answer.body;
    expect(report.final_url).toBe(site.url);
    expect(report.wordpress?.detected).toBe(true);
    expect(report.security?.https).toBe(true);
    expect(report.security?.tls_verification).toBe("insecure");
    const check = (id: string) => report.checks.find((item) => item.id === id);
    for (const id of ["security.https", "security.hsts"]) {
      expect({ id, status: check(id)?.status }).toEqual({ id, status: "skip" });
      expect(check(id)?.message).toContain("certificate was not verified");
    }
    expect(check("security.login_over_https")?.status).not.toBe("pass");
    // Listed with what else could not be checked, and counted.
    expect(report.not_checked?.map((entry) => entry.check)).toEqual(
      expect.arrayContaining(["security.https", "security.hsts"]),
    );
    expect(report.summary?.not_checked).toBeGreaterThanOrEqual(2);
    expect(site.hits.length).toBeGreaterThan(5);
  });

  test("tls_ca with the site's own certificate: verified against it, and the report says a private CA was used", async () => {
    const answer = await generate({ url: site.url, tls_ca: certificate.cert });
    expect(answer.status).toBe(201);
    expect(answer.body.security?.tls_verification).toBe("private_ca");
    expect(answer.body.checks.find((item) => item.id === "security.https")?.status).toBe("skip");
    expect(answer.body.checks.find((item) => item.id === "security.https")?.message).toContain("private CA");
  });

  test("the relaxed rule is the site's own origin only: a redirect to another self-signed origin is refused", async () => {
    const answer = await generate({ url: `https://127.0.0.1:${redirecting.port}/`, tls: "insecure" });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toContain("its TLS certificate could not be verified");
  });

  test("a report without the option after one with it does not reuse a connection the relaxed rule made", async () => {
    expect((await generate({ url: site.url, tls: "insecure" })).status).toBe(201);
    const plain = await generate({ url: site.url });
    expect(plain.status).toBe(422);
    expect(plain.body.detail).toContain("self-signed");
  });

  /** Runs a monitor now and waits for its report to end. */
  const runMonitor = async (monitorId: string): Promise<Report> => {
    const ran = await service.call<Report>("POST", `/api/monitors/${monitorId}/run`, { token });
    expect(ran.status).toBe(202);
    for (let attempt = 0; attempt < 240; attempt++) {
      const read = await service.call<Report>("GET", `/api/report/${ran.body.id}`, { token });
      if (read.body.status === "completed" || read.body.status === "failed") return read.body;
      await Bun.sleep(250);
    }
    throw new Error("the monitor's report did not end");
  };

  test("monitors: no relaxed rule unless it is set on the monitor; set, its runs use it; PATCH changes it", async () => {
    const plain = await service.call<{ id: string; tls: string; tls_ca: string | null }>("POST", "/api/monitors", {
      token,
      body: { url: site.url, schedule: "weekly" },
    });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ tls: "verify", tls_ca: null });
    const refused = await runMonitor(plain.body.id);
    expect(refused.status).toBe("failed");
    expect(JSON.stringify(refused.errors)).toContain("self-signed");

    const staged = await service.call<{ id: string; tls: string }>("POST", "/api/monitors", {
      token,
      body: { url: site.url, schedule: "weekly", tls: "insecure" },
    });
    expect(staged.status).toBe(201);
    expect(staged.body.tls).toBe("insecure");
    const report = await runMonitor(staged.body.id);
    expect(report.status).toBe("completed");
    expect(report.security?.tls_verification).toBe("insecure");

    const withCa = await service.call<{ tls: string; tls_ca: string | null }>(
      "PATCH",
      `/api/monitors/${staged.body.id}`,
      {
        token,
        body: { tls: "verify", tls_ca: certificate.cert },
      },
    );
    expect(withCa.status).toBe(200);
    expect(withCa.body.tls).toBe("verify");
    expect(withCa.body.tls_ca).toContain("BEGIN CERTIFICATE");
    expect((await runMonitor(staged.body.id)).security?.tls_verification).toBe("private_ca");
    const contradictory = await service.call<{ errors?: { pointer: string }[] }>(
      "PATCH",
      `/api/monitors/${staged.body.id}`,
      { token, body: { tls: "insecure" } },
    );
    expect(contradictory.status).toBe(400);
    expect(contradictory.body.errors?.[0]?.pointer).toBe("/tls_ca");
  });

  test("bad tls_ca, and tls_ca with tls: insecure, are 400s naming the field", async () => {
    for (const body of [
      { url: site.url, tls_ca: "not a certificate" },
      { url: site.url, tls_ca: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----" },
      { url: site.url, tls: "insecure", tls_ca: certificate.cert },
    ]) {
      const answer = await generate(body);
      expect(answer.status).toBe(400);
      expect(answer.body.errors?.[0]?.pointer).toBe("/tls_ca");
    }
    const wrong = await generate({ url: site.url, tls: "off" });
    expect(wrong.status).toBe(400);
  });
});
