/**
 * The web compare page reads fail_on with the parser the API, the Action and the CLI use
 * (shared/diff-options.ts): the same values, and a bad one is a 400 that says what would do.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Report } from "../../shared/report.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type SwitchableBlog, startSwitchableBlog } from "../helpers/sites.ts";
import { WebSession } from "../helpers/web-session.ts";

describe("the web compare page's options", () => {
  let service: TestService;
  let site: SwitchableBlog;
  let web: WebSession;
  let base: Report;
  let head: Report;

  beforeAll(async () => {
    service = await startTestService();
    site = startSwitchableBlog();
    web = await WebSession.signup(service.url);
    const { token } = await service.token(web.email);
    const generate = async () =>
      (await service.call<Report>("POST", "/api/generate-report", { token, body: { url: site.url } })).body;
    site.compressed = true;
    base = await generate();
    site.compressed = false; // a medium-severity regression: performance.html_compression
    head = await generate();
  });
  afterAll(async () => {
    site.stop();
    await service.stop();
  });

  const compare = (query: string) => web.get(`/reports/${head.id}/compare?base=${base.id}${query}`);

  test("fail_on decides the verdict shown; high by default", async () => {
    const byDefault = await (await compare("")).text();
    expect(byDefault).toContain('<option value="high" selected');
    expect(byDefault).toContain("<strong>Pass</strong>");
    const medium = await compare("&fail_on=medium");
    expect(medium.status).toBe(200);
    const html = await medium.text();
    expect(html).toContain('<option value="medium" selected');
    expect(html).toContain("<strong>Fail</strong>");
    expect(html).toContain("performance.html_compression");
  });

  test("a fail_on the parser refuses is a 400 with its message, not a quiet default", async () => {
    const response = await compare("&fail_on=severe");
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      "fail_on must be one of critical, high, medium, low, info, none, got &quot;severe&quot;.",
    );
  });
});
