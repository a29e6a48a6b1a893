/**
 * A throwaway self-signed certificate for localhost and 127.0.0.1, made with Debian's openssl:
 * for the tests and benches that serve HTTPS (and h2) on loopback. Trusted only by the agents
 * given it as `extraCa`; the service never uses it.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface SelfSignedCertificate {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export const hasOpenssl = Bun.which("openssl") !== null;

export function makeSelfSignedCertificate(prefix = "wpreport-tls-"): SelfSignedCertificate {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-keyout",
      keyFile,
      "-out",
      certFile,
    ],
    { stdio: "ignore" },
  );
  return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8"), certFile, keyFile };
}
