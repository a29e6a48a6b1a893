/**
 * Through the API, against the real WordPress site from ../shared/wordpress/setup.sh
 * (Debian's WordPress 6.1.9 on nginx + php-fpm + MariaDB). The facts asserted here were
 * checked on that site with curl: generator meta "WordPress 6.1.9", RSS generator
 * "https://wordpress.org/?v=6.1.9", REST link header, gzip, plain HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Report } from "../shared/report.ts";
import { BACKENDS } from "./helpers/databases.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "./helpers/env.ts";
import { expectValidReport } from "./helpers/report-schema.ts";
import { startTestService, type TestService } from "./helpers/service.ts";

describe.skipIf(!HAS_WORDPRESS).each(BACKENDS)("the real WordPress fixture through the API on %s", (backend) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ backend });
  });
  afterAll(() => service.stop());

  test("WordPress 6.1.9 is detected with its evidence; the report validates and is stored", async () => {
    const { token } = await service.token();
    const created = await service.call<Report>("POST", "/api/generate-report", { token, body: { url: WORDPRESS_URL } });
    expect(created.status).toBe(201);
    const report = created.body;
    expectValidReport(report);
    expect(report.final_url).toBe(WORDPRESS_URL);
    expect(report.wordpress).toMatchObject({
      detected: true,
      confidence: 100,
      version: "6.1.9",
      rest_api_url: `${WORDPRESS_URL}wp-json/`,
    });
    const evidence = report.wordpress?.evidence;
    expect(evidence).toContainEqual({ source: "meta_generator", value: "WordPress 6.1.9" });
    expect(evidence).toContainEqual({
      source: "rss_generator",
      value: "<generator>https://wordpress.org/?v=6.1.9</generator>",
      url: `${WORDPRESS_URL}feed/`,
    });
    const { checks } = report;
    expect(checks.find((check) => check.id === "security.https")?.status).toBe("fail");
    expect(checks.find((check) => check.id === "security.wp_version_disclosed")?.status).toBe("fail");
    expect(checks.find((check) => check.id === "performance.html_compression")?.status).toBe("pass");
    expect(report.performance?.compression).toBe("gzip");
    expect(report.performance?.requests.map((row) => [row.url, row.status])).toEqual([
      [WORDPRESS_URL, 200],
      [`${WORDPRESS_URL}feed/`, 200],
    ]);
    const stored = await service.call<Report>("GET", `/api/report/${report.id}`, { token });
    expect(stored.body).toEqual(report);
  });
});
