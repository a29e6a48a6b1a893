/**
 * `"mode": "aggressive"` through the API, on both backends, against the real WordPress
 * fixture: the service builds the plan from its intel database (an INTEL_FILE with an
 * advisory for shibboleth, which the fixture has installed but inactive, so only enumeration
 * can find it), runs it on an analysis thread within AGGRESSIVE_MAX_REQUESTS, and stores a
 * report that says it was aggressive, what enumeration found and which found plugins' files it
 * read before probing slugs. The default stays passive;
 * an unknown mode is a 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Report } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { expectValidReport } from "../helpers/report-schema.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

const intelFile = path.join(mkdtempSync(path.join(tmpdir(), "wpreport-enum-")), "intel.json");
writeFileSync(
  intelFile,
  JSON.stringify({
    format: 1,
    updated: "2026-11-20",
    source: "wpreport test data: invented advisory",
    wordpress: { latest_version: "6.8.3", vulnerabilities: [] },
    plugins: {
      shibboleth: {
        latest_version: "2.5.2",
        vulnerabilities: [
          { id: "TEST-0901", title: "Test advisory", severity: "critical", cvss: 9.1, affected: [{ fixed_in: "9" }] },
        ],
      },
    },
  }),
);

describe.skipIf(!HAS_WORDPRESS).each(BACKENDS)("aggressive mode through the API on %s", (backend) => {
  let service: TestService;
  let token: string;
  beforeAll(async () => {
    service = await startTestService({
      backend,
      env: { INTEL_FILE: intelFile, AGGRESSIVE_MAX_REQUESTS: "40" },
    });
    ({ token } = await service.token());
  });
  afterAll(async () => {
    await service?.stop();
  });

  test("mode aggressive: the vulnerable slug is probed first and found; the report says how", async () => {
    const created = await service.call<Report>("POST", "/api/generate-report", {
      token,
      body: { url: WORDPRESS_URL, mode: "aggressive" },
    });
    expect(created.status).toBe(201);
    const report = created.body;
    expectValidReport(report);
    expect(report.mode).toBe("aggressive");
    expect(report.plugins.find((plugin) => plugin.slug === "shibboleth")).toMatchObject({ found_by: "aggressive" });
    expect(report.enumeration).toMatchObject({
      budget: { max_requests: 40 },
      requests: 40,
      stopped_by: "request_budget",
      plugins: { method: "directory", vulnerable_candidates: 1 },
    });
    expect(report.enumeration?.plugins.found).toContain("shibboleth");
    // What was found is read first: xrds-simple (on the page, no version) before any slug, then
    // shibboleth (no readme) as soon as it was found, both within the 40 requests.
    expect(report.enumeration?.version_files).toMatchObject({ plugins: ["shibboleth", "xrds-simple"], not_read: [] });
    expect(report.errors.find((error) => error.stage === "enumeration")?.message).toContain(
      "after reading the files of the 2 plugins found without a version",
    );
    const stored = await service.call<Report>("GET", `/api/report/${report.id}`, { token });
    expect(stored.body.mode).toBe("aggressive");
    expect(stored.body.enumeration).toEqual(report.enumeration);
  });

  test("the default is passive: no enumeration, nothing found by it", async () => {
    const created = await service.call<Report>("POST", "/api/generate-report", {
      token,
      body: { url: WORDPRESS_URL },
    });
    expect(created.status).toBe(201);
    expect(created.body.mode).toBe("passive");
    expect(created.body.enumeration).toBeNull();
    expect(created.body.plugins.some((plugin) => plugin.found_by)).toBe(false);
  });

  test("an unknown mode is refused with 400 and nothing is charged", async () => {
    const refused = await service.call("POST", "/api/generate-report", {
      token,
      body: { url: WORDPRESS_URL, mode: "brutal" },
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect((await service.call("GET", "/api/usage", { token })).body.used).toBe(2);
  });
});
