/**
 * Staging TLS: how the analyzer treats the certificate of a site that public roots do not vouch
 * for — a staging site with a self-signed certificate, or one issued by the agency's own CA
 * (`tls` and `tls_ca` in POST /api/generate-report and on a monitor; the Action's `tls` and
 * `tls-ca` inputs; the CLI's `--tls` and `--tls-ca`).
 *
 * - `tls: "insecure"`: the site's certificate is not verified at all (WPScan's
 *   `--disable-tls-checks`).
 * - `tls_ca`: a PEM of the private CA (one or more certificates) trusted for the site besides
 *   the public roots.
 *
 * Either applies to the site's own origin only (scheme, host and port of the URL given): never
 * to a redirect to another origin, an asset CDN, or the vulnerability and directory sources,
 * which the service asks itself. Off by default. A report made with either says so
 * (`security.tls_verification`) and its TLS checks skip with that reason, never pass.
 */
import { Type } from "@sinclair/typebox";

/** The longest `tls_ca` accepted: a CA chain of a few certificates fits many times over. */
export const MAX_TLS_CA_BYTES = 64 * 1024;

export const TLS_MODES = ["verify", "insecure"] as const;
export type TlsMode = (typeof TLS_MODES)[number];

export const TlsModeSchema = Type.Union(
  TLS_MODES.map((mode) => Type.Literal(mode)),
  {
    description:
      'How the site\'s TLS certificate is checked: "verify" (the default: public roots, or tls_ca) or "insecure" (not verified: a staging site with a self-signed certificate). Applies to the site\'s own origin only; the report says so and its TLS checks skip. Since 1.5.0.',
    // No `default` keyword: generated clients (openapi-typescript) read a default as a required field.
  },
);

export const TlsCaSchema = Type.String({
  minLength: 1,
  maxLength: MAX_TLS_CA_BYTES,
  description:
    "PEM of a private CA (one or more CERTIFICATE blocks) to trust for the site's own origin besides the public roots, for a staging site whose certificate an internal CA issued. Not with tls: insecure. Since 1.5.0.",
});

/** What an analysis is told (plain data: it crosses to an analysis thread). */
export type SiteTls = { mode: "insecure" } | { mode: "private_ca"; ca: string };

/** As the report states it, `security.tls_verification`. */
export type TlsVerification = SiteTls["mode"];

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/g;

/** The CERTIFICATE blocks of a PEM text, as written (whitespace around them dropped). */
export function pemCertificates(pem: string): string[] {
  return [...pem.matchAll(PEM_BLOCK)].map((match) => match[0]);
}

/** A one-line statement of what was not verified, for checks that skip and for logs. */
export function tlsVerificationNote(mode: TlsVerification): string {
  return mode === "insecure"
    ? 'the site\'s certificate was not verified (tls: "insecure" was asked)'
    : "the site's certificate was verified against a private CA given with the request (tls_ca), not the public roots browsers trust";
}
