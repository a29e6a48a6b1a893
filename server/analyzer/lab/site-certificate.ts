/**
 * Staging TLS in the lab (tls: "insecure" or tls_ca, shared/site-tls.ts): Chromium has no
 * per-origin "trust this CA" switch, and Playwright's ignoreHTTPSErrors would drop certificate
 * checks for every origin the page touches (its CDN, its fonts, its trackers). Instead the worker
 * fetches the certificate the site's own origin presents (through the target policy, like every
 * connection), checks it as the request asked (not at all for "insecure"; against the public
 * roots plus the given CA, with the host name, for tls_ca), and tells Chromium to accept that
 * one key despite errors (--ignore-certificate-errors-spki-list). Every other certificate is
 * verified as usual, and a site that changes its key between the check and the load fails.
 */
import { createHash, X509Certificate } from "node:crypto";
import type dns from "node:dns";
import net from "node:net";
import tls from "node:tls";
import { pemCertificates, type SiteTls } from "../../../shared/site-tls.ts";
import { policyLookup } from "../fetch/safe-agent.ts";
import type { TargetPolicy } from "../fetch/target-policy.ts";

export type SitePin = { ok: true; spki: string } | { ok: false; reason: string };

/** The base64 SHA-256 of the DER SubjectPublicKeyInfo of a certificate (Chromium's SPKI hash). */
export function spkiHash(certificateDer: Buffer): string {
  const spki = new X509Certificate(certificateDer).publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(spki).digest("base64");
}

/**
 * The key the lab's browser may accept for the site's own origin, or why there is none. Only for
 * https:// URLs (an http:// site has no certificate to relax).
 */
export function siteCertificatePin(
  url: string,
  siteTls: SiteTls,
  policy: TargetPolicy,
  resolve: typeof dns.lookup | undefined,
  timeoutMs: number,
): Promise<SitePin> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, "");
  const port = Number(target.port) || 443;
  if (net.isIP(host)) {
    const reason = policy.blockReason(host, port);
    if (reason) return Promise.resolve({ ok: false, reason: `the site's address is not allowed (${reason})` });
  }
  const verify = siteTls.mode === "private_ca";
  return new Promise<SitePin>((resolvePin) => {
    const socket = tls.connect({
      host,
      port,
      ...(net.isIP(host) ? {} : { servername: host }),
      lookup: policyLookup(policy, resolve, port) as never,
      rejectUnauthorized: verify,
      ...(siteTls.mode === "private_ca" ? { ca: [...tls.rootCertificates, ...pemCertificates(siteTls.ca)] } : {}),
      ALPNProtocols: ["http/1.1"],
    });
    const done = (pin: SitePin) => {
      clearTimeout(timer);
      socket.destroy();
      resolvePin(pin);
    };
    const timer = setTimeout(
      () => done({ ok: false, reason: "the site's certificate could not be read in time" }),
      timeoutMs,
    );
    socket.once("secureConnect", () => {
      const certificate = socket.getPeerCertificate();
      if (!certificate?.raw) return done({ ok: false, reason: "the site presented no certificate" });
      try {
        done({ ok: true, spki: spkiHash(certificate.raw) });
      } catch {
        done({ ok: false, reason: "the site's certificate could not be read" });
      }
    });
    socket.once("error", (error: Error & { code?: string }) => {
      const why = error.code ?? error.message;
      done({
        ok: false,
        reason: verify
          ? `the site's certificate did not verify against the CA given with tls_ca (${why})`
          : `the site's certificate could not be read (${why})`,
      });
    });
  });
}
