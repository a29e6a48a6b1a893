/**
 * The tls and tls-ca inputs (flags --tls, --tls-ca): read and checked before any request, then
 * sent as the request's tls / tls_ca (what the service does with them, on the real fixture behind
 * a self-signed TLS front: test/api/staging-tls.test.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { InputError, readInputs } from "../../action/src/inputs.ts";
import { hasOpenssl, makeSelfSignedCertificate } from "../../scripts/self-signed-certificate.ts";

const runnerOf = (inputs: Record<string, string>) => ({
  getInput: (name: string) => inputs[name] ?? "",
  setSecret: () => {},
});
const base = { "api-url": "http://127.0.0.1:1", "api-token": "wpr_x", url: "https://staging.example/" };

describe.skipIf(!hasOpenssl)("tls inputs", () => {
  let pemFile: string;
  let pem: string;
  beforeAll(() => {
    const certificate = makeSelfSignedCertificate();
    pem = certificate.cert;
    pemFile = path.join(mkdtempSync(path.join(tmpdir(), "wpreport-ca-")), "ca.pem");
    writeFileSync(pemFile, pem);
  });

  test("tls: insecure, or verify / empty for the default", () => {
    expect(readInputs(runnerOf({ ...base, tls: "insecure" })).tls).toBe("insecure");
    expect(readInputs(runnerOf({ ...base, tls: "INSECURE" })).tls).toBe("insecure");
    expect(readInputs(runnerOf({ ...base, tls: "verify" })).tls).toBeUndefined();
    expect(readInputs(runnerOf(base)).tls).toBeUndefined();
    expect(() => readInputs(runnerOf({ ...base, tls: "off" }))).toThrow(InputError);
    expect(() => readInputs(runnerOf({ ...base, tls: "off" }))).toThrow("Input tls must be verify or insecure");
  });

  test("tls-ca: a PEM, or a file holding one; anything else, or with tls: insecure, fails before any request", () => {
    expect(readInputs(runnerOf({ ...base, "tls-ca": pem })).tlsCa).toBe(pem.trim());
    expect(readInputs(runnerOf({ ...base, "tls-ca": pemFile })).tlsCa).toBe(pem);
    expect(() => readInputs(runnerOf({ ...base, "tls-ca": "/no/such/file.pem" }))).toThrow(
      "Input tls-ca is neither a PEM nor a readable file",
    );
    expect(() => readInputs(runnerOf({ ...base, tls: "insecure", "tls-ca": pemFile }))).toThrow(
      "cannot be given with tls: insecure",
    );
  });
});
