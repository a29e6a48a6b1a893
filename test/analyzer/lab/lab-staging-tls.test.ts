/**
 * Staging TLS in the lab (tls: "insecure" or tls_ca): the browser accepts the certificate key the
 * site's own origin presented (checked as asked: not at all, or against the given CA) and no
 * other. A page on a self-signed HTTPS origin that loads an image from a second self-signed
 * origin: without the option the load fails on the certificate; with it the page loads and the
 * second origin is still refused (its server is never asked); a CA that did not issue the site's
 * certificate fails the run before the browser starts, with that reason.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import {
  hasOpenssl,
  makeSelfSignedCertificate,
  type SelfSignedCertificate,
} from "../../../scripts/self-signed-certificate.ts";
import { TargetPolicy } from "../../../server/analyzer/fetch/target-policy.ts";
import { runLab } from "../../../server/analyzer/lab/lab-run.ts";
import type { SiteTls } from "../../../shared/site-tls.ts";

const CHROMIUM = "/usr/bin/chromium";

describe.skipIf(!existsSync(CHROMIUM) || !hasOpenssl)("lab run of a staging site over HTTPS", () => {
  let siteCertificate: SelfSignedCertificate;
  let otherCertificate: SelfSignedCertificate;
  let site: ReturnType<typeof Bun.serve>;
  let other: ReturnType<typeof Bun.serve>;
  let otherHits = 0;

  beforeAll(() => {
    siteCertificate = makeSelfSignedCertificate("wpreport-lab-site-");
    otherCertificate = makeSelfSignedCertificate("wpreport-lab-other-");
    other = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: otherCertificate.cert, key: otherCertificate.key },
      fetch: () => {
        otherHits++;
        return new Response("GIF89a", { headers: { "content-type": "image/gif" } });
      },
    });
    site = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: siteCertificate.cert, key: siteCertificate.key },
      fetch: () =>
        new Response(
          `<!doctype html><title>Staging</title><h1>Staging</h1><img src="https://127.0.0.1:${other.port}/pixel.gif" alt="">`,
          { headers: { "content-type": "text/html; charset=utf-8" } },
        ),
    });
  });
  afterAll(() => {
    site?.stop(true);
    other?.stop(true);
  });

  const lab = (siteTls?: SiteTls) =>
    runLab(`https://127.0.0.1:${site.port}/`, {
      executablePath: CHROMIUM,
      policy: new TargetPolicy([`127.0.0.1:${site.port}`, `127.0.0.1:${other.port}`]),
      device: "desktop",
      throttling: "none",
      runs: 1,
      timeoutMs: 60_000,
      maxMemoryMb: 4096,
      maxBytes: 8 * 1024 * 1024,
      userAgentName: "wpreport-lab-test",
      ...(siteTls ? { siteTls } : {}),
    });

  test("without tls or tls_ca the load fails on the certificate", async () => {
    const capture = await lab();
    expect(capture.status).toBe("failed");
    expect(capture.reason).toContain("ERR_CERT");
  }, 90_000);

  test('tls: "insecure" loads the page; the other self-signed origin is still refused', async () => {
    otherHits = 0;
    const capture = await lab({ mode: "insecure" });
    expect(capture.reason).toBeNull();
    expect(capture.status).toBe("complete");
    expect(capture.runs).toHaveLength(1);
    expect(otherHits).toBe(0);
  }, 90_000);

  test("tls_ca: the CA that issued the site's certificate loads it; another CA fails the run with that reason", async () => {
    const trusted = await lab({ mode: "private_ca", ca: siteCertificate.cert });
    expect(trusted.status).toBe("complete");
    const wrong = await lab({ mode: "private_ca", ca: otherCertificate.cert });
    expect(wrong.status).toBe("failed");
    expect(wrong.reason).toContain("did not verify against the CA given with tls_ca");
    expect(wrong.runs).toHaveLength(0);
  }, 90_000);
});
