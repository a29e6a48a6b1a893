/**
 * Unknown reads as unknown (issue 29, item 5) in the portfolio API, on both backends: with real
 * reports of the WordPress fixture whose vulnerability data is "none" (no source answered) and
 * "partial" (akismet's lookup failed; one check could not run), GET /api/sites, GET
 * /api/sites/{id} and GET /api/components state the data's status beside the counts
 * (`vulnerability_data`, `vulnerabilities_unchecked`, `vulnerabilities_checked`, and
 * `latest.not_checked`), and an incomplete report is flagged as such.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { siteId } from "../../server/platform/ids.ts";
import {
  type ComponentSites,
  ComponentSitesSchema,
  type SiteDetail,
  SiteDetailSchema,
  type SiteList,
  SiteListSchema,
} from "../../shared/portfolio-api.ts";
import type { Report } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { expectSchema } from "../helpers/expect-schema.ts";
import { generateReport } from "../helpers/generate.ts";
import type { TestService } from "../helpers/service.ts";
import { startSite } from "../helpers/sites.ts";
import {
  NONE_ENVIRONMENT,
  PARTIAL_ENVIRONMENT,
  startServiceWithStub,
  uncheckedReports,
  type WpvulnerabilityStub,
} from "../helpers/unchecked-reports.ts";

setDefaultTimeout(90_000);

describe.skipIf(!HAS_WORDPRESS).each(BACKENDS)("the portfolio API states what was not checked, on %s", (backend) => {
  let stub: WpvulnerabilityStub;
  let service: TestService;
  let token = "";
  let accountId = "";
  let none: Report;
  let partial: Report;
  const host = new URL(WORDPRESS_URL).host;

  beforeAll(async () => {
    ({ stub, service } = await startServiceWithStub({ backend }));
    ({ token, accountId } = await service.token(undefined, "business"));
    ({ none, partial } = await uncheckedReports(service, stub, token, { notChecked: true }));
  });
  afterAll(async () => {
    await service?.stop();
    stub?.stop();
  });

  test("GET /api/sites: vulnerability_data beside the counts, the unchecked components, the checks that could not run", async () => {
    const response = await service.call<SiteList>("GET", "/api/sites", { token });
    expect(response.status).toBe(200);
    expectSchema(SiteListSchema, response.body);
    const noneSite = response.body.data.find((site) => site.environment === NONE_ENVIRONMENT);
    const partialSite = response.body.data.find((site) => site.environment === PARTIAL_ENVIRONMENT);
    expect(noneSite).toMatchObject({
      latest: { report_id: none.id, not_checked: 0 },
      vulnerability_data: "none",
      vulnerabilities_unchecked: [],
      last_report: { id: none.id, incomplete: false },
    });
    expect(partialSite).toMatchObject({
      latest: { report_id: partial.id, not_checked: 1 },
      vulnerability_data: "partial",
      vulnerabilities_unchecked: [{ type: "plugin", slug: "akismet" }],
    });
    // What was found is still counted (the stub lists advisories for core and the theme).
    expect(partialSite?.vulnerabilities.total).toBe(2);
  });

  test("GET /api/sites/{id}: each component says whether a source checked it", async () => {
    const nonePage = await service.call<SiteDetail>("GET", `/api/sites/${siteId(accountId, host, NONE_ENVIRONMENT)}`, {
      token,
    });
    expect(nonePage.status).toBe(200);
    expectSchema(SiteDetailSchema, nonePage.body);
    expect(nonePage.body.vulnerability_data).toBe("none");
    expect(nonePage.body.components.length).toBeGreaterThan(2);
    expect(nonePage.body.components.every((component) => !component.vulnerabilities_checked)).toBe(true);

    const partialPage = await service.call<SiteDetail>(
      "GET",
      `/api/sites/${siteId(accountId, host, PARTIAL_ENVIRONMENT)}`,
      { token },
    );
    expect(partialPage.body.vulnerability_data).toBe("partial");
    expect(
      partialPage.body.components.filter((component) => !component.vulnerabilities_checked).map((c) => c.slug),
    ).toEqual(["akismet"]);
  });

  test("GET /api/components: akismet is not 'not vulnerable' where no source checked it", async () => {
    const response = await service.call<ComponentSites>("GET", "/api/components?slug=akismet&type=plugin", { token });
    expect(response.status).toBe(200);
    expectSchema(ComponentSitesSchema, response.body);
    expect(response.body.data).toHaveLength(2);
    for (const row of response.body.data) {
      expect(row).toMatchObject({ vulnerable: false, vulnerabilities_checked: false, vulnerabilities: [] });
    }
  });

  test("an incomplete report (the homepage asks for credentials) is flagged, and its site has no vulnerability data", async () => {
    // A staging site behind basic auth, analyzed without credentials.
    const site = startSite(
      {},
      () =>
        new Response("<html><body>Authorization required</body></html>", {
          status: 401,
          headers: { "content-type": "text/html", "www-authenticate": 'Basic realm="staging"' },
        }),
    );
    try {
      const report = await generateReport(service, token, { url: site.url });
      expect(report.status).toBe("completed");
      expect(report.summary).toBeNull();
      const response = await service.call<SiteList>("GET", `/api/sites?url=${encodeURIComponent(site.url)}`, {
        token,
      });
      expect(response.body.data[0]).toMatchObject({
        last_report: { id: report.id, status: "completed", incomplete: true },
        latest: null,
        vulnerability_data: "none",
      });
    } finally {
      site.stop();
    }
  });
});
