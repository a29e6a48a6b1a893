/**
 * End to end on the real WordPress fixture (akismet 5.0.2, WordPress 6.1.9, twentytwentyone
 * 1.7 — checked with curl): with WordPress.org answered by a local stub, a first report
 * knows latest versions but no vulnerabilities; after importing the sample Wordfence feed
 * (an advisory for akismet <= 5.0.2, fixed in 5.0.3, CVSS 6.4 Medium), the next report of
 * the unchanged site lists it, fails components.plugins_vulnerable at its CVSS severity,
 * and the diff between the two flags it as a `new_vulnerability`.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { importWordfenceFile } from "../../../server/intel/importer.ts";
import type { Diff } from "../../../shared/diff-schema.ts";
import type { Report } from "../../../shared/report.ts";
import { REPORT_SCHEMA_VERSION } from "../../../shared/report.ts";
import { BACKENDS } from "../../helpers/databases.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../../helpers/env.ts";
import { expectValidReport } from "../../helpers/report-schema.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { SAMPLE_AKISMET_ID, SAMPLE_FEED_FILE } from "./feed-builder.ts";
import { type IntelStub, startIntelStub } from "./wporg-stub.ts";

const check = (report: Report, id: string) => report.checks.find((item) => item.id === id);

describe.skipIf(!HAS_WORDPRESS).each(BACKENDS)("component intelligence on the real fixture on %s", (backend) => {
  let stub: IntelStub;
  let service: TestService;
  let token: string;
  let before: Report;
  let after: Report;
  beforeAll(async () => {
    stub = startIntelStub();
    service = await startTestService({ backend, env: { WPORG_API_URL: stub.url, INTEL_LOOKUP_BUDGET_MS: "3000" } });
    ({ token } = await service.token());
    const first = await service.call<Report>("POST", "/api/generate-report", { token, body: { url: WORDPRESS_URL } });
    expect(first.status).toBe(201);
    before = first.body;
    await importWordfenceFile(service.running.services.intel.store, SAMPLE_FEED_FILE);
    const second = await service.call<Report>("POST", "/api/generate-report", { token, body: { url: WORDPRESS_URL } });
    expect(second.status).toBe(201);
    after = second.body;
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    stub?.stop();
  });

  test("both reports validate against the published schema", () => {
    for (const report of [before, after]) {
      expectValidReport(report);
      expect(report.schema_version).toBe(REPORT_SCHEMA_VERSION);
    }
  });

  test("without vulnerability data: latest versions from WordPress.org, the vulnerable checks skip", () => {
    const akismet = before.plugins.find((plugin) => plugin.slug === "akismet");
    expect(akismet).toMatchObject({ version: "5.0.2", latest_version: "5.3.5", outdated: true, vulnerabilities: [] });
    expect(before.wordpress).toMatchObject({ version: "6.1.9", latest_version: "6.8.3", outdated: true });
    expect(before.theme).toMatchObject({ latest_version: "2.6", outdated: true });
    expect(check(before, "components.plugins_outdated")?.status).toBe("fail");
    expect(check(before, "components.plugins_vulnerable")?.status).toBe("skip");
    // No Wordfence key and WPVulnerability off (this test's service): the report says so.
    expect(before.intel?.vulnerability_data?.status).toBe("none");
    expect(after.intel?.vulnerability_data?.status).toBe("complete");
    expect(before.intel?.sources.map((source) => source.id)).toEqual(["wordpress.org"]);
  });

  test("after the import: akismet's advisory with its range, CVSS and fix; the check fails at medium", () => {
    const akismet = after.plugins.find((plugin) => plugin.slug === "akismet");
    expect(akismet?.vulnerabilities).toEqual([
      {
        id: SAMPLE_AKISMET_ID,
        title: "Akismet <= 5.0.2 - Test Record: Authenticated Stored Cross-Site Scripting",
        severity: "medium",
        cvss: 6.4,
        cvss_rating: "Medium",
        cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N",
        cve: ["CVE-2099-10001"],
        affected: "<= 5.0.2",
        fixed_in: "5.0.3",
        references: [
          "https://www.wordfence.com/threat-intel/vulnerabilities/id/0b1c6a1e-5d3f-4c2e-9a57-3f0d8c1e2a01?source=api-prod",
        ],
        source: "wordfence",
        sources: ["wordfence"],
        unfixed: false,
      },
    ]);
    const vulnerable = check(after, "components.plugins_vulnerable");
    expect(vulnerable).toMatchObject({ status: "fail", severity: "medium" });
    expect(vulnerable?.evidence[0]).toContain("update akismet to 5.0.3");
    // Core 6.1.9 is in the sample's critical 6.1 – 6.1.9 range, fixed on its branch in 6.1.10.
    expect(after.wordpress?.vulnerabilities.map((entry) => [entry.severity, entry.fixed_in])).toEqual([
      ["critical", "6.1.10"],
    ]);
    expect(check(after, "components.core_vulnerable")).toMatchObject({ status: "fail", severity: "critical" });
    // twentytwentyone 1.7 is exactly the sample advisory's (exclusive) fix: not affected.
    expect(check(after, "components.theme_vulnerable")?.status).toBe("pass");
  });

  test("the report names its sources with Wordfence's required attribution", () => {
    const wordfence = after.intel?.sources.find((source) => source.id === "wordfence");
    expect(wordfence).toMatchObject({ name: "Wordfence Intelligence", as_of: "2026-11-12T10:00:00.000Z" });
    expect(wordfence?.attribution).toContain("Copyright 2012-2026 Defiant Inc.");
    expect(wordfence?.attribution).toContain("Copyright 1999-2026 The MITRE Corporation");
    expect(after.intel?.sources.map((source) => source.id).sort()).toEqual(["wordfence", "wordpress.org"]);
  });

  test("the diff of the unchanged site flags the advisories as new_vulnerability and fails at high", async () => {
    const result = await service.call<Diff>("GET", `/api/report/${after.id}/diff?base=${before.id}&fail_on=high`, {
      token,
    });
    expect(result.status).toBe(200);
    expect(result.body.components).toEqual([]);
    const found = result.body.new_vulnerabilities.map((change) => [
      change.kind,
      change.slug,
      change.vulnerability.id,
      change.vulnerability.severity,
    ]);
    expect(found).toContainEqual(["new_vulnerability", "akismet", SAMPLE_AKISMET_ID, "medium"]);
    expect(found).toContainEqual([
      "new_vulnerability",
      "wordpress",
      "6f2e0d4b-2a8c-4b8e-8d1f-6c4a9e7b3c02",
      "critical",
    ]);
    // The critical core advisory fails the gate; the medium akismet one alone would not.
    expect(result.body.verdict.result).toBe("fail");
    expect(result.body.verdict.reasons.join("\n")).toContain("new_vulnerability");
  });
});
