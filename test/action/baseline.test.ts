/**
 * The baseline ("latest") is the service's one rule: the newest earlier completed report of the
 * same site and the same environment (ReportHistoryService.previous), asked for through the diff
 * endpoint by the Action's and the CLI's check pipeline (action/src/check.ts). Reproduces the bug of the client's old rule, which listed
 * the 10 newest earlier reports of the site and filtered them by environment itself: more than
 * 10 newer reports of another environment hid the baseline of a run without an environment.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { check } from "../../action/src/check.ts";
import { WpreportClient } from "../../shared/client.ts";
import { parseDiffOptions } from "../../shared/diff-options.ts";
import type { Report } from "../../shared/report.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startBlog, type TestSite } from "../helpers/sites.ts";

describe("the baseline is the service's rule", () => {
  let service: TestService;
  let site: TestSite;
  let client: WpreportClient;
  let token: string;

  beforeAll(async () => {
    service = await startTestService();
    ({ token } = await service.token(undefined, "business"));
    client = new WpreportClient({ apiUrl: service.url, token });
    site = startBlog();
  });
  afterAll(async () => {
    client.close();
    site.stop();
    await service.stop();
  });

  const generate = async (environment?: string): Promise<Report> =>
    (await client.generateReport({ url: site.url, metadata: environment ? { environment } : {} })).report;

  test("more than 10 newer reports of another environment between a run and its baseline", async () => {
    const baseline = await generate();
    const staging: Report[] = [];
    for (let i = 0; i < 11; i++) staging.push(await generate("staging"));
    // The next run without an environment, through the Action's and the CLI's check pipeline.
    const lines: string[] = [];
    const result = await check(
      client,
      {
        apiUrl: service.url,
        url: site.url,
        mode: "passive",
        baseline: "latest",
        diffOptions: parseDiffOptions({}),
        env: {},
      },
      { log: (line) => lines.push(line), warn: (line) => lines.push(line), reported: () => {} },
    );
    const head = result.report;
    // The old client rule's first page: the 10 newest earlier reports of the site, all staging's.
    const page = await service.call<{ data: { id: string }[] }>(
      "GET",
      `/api/reports?url=${encodeURIComponent(site.url)}&status=completed&before=${head.id}&limit=10`,
      { token },
    );
    expect(page.body.data.map((item) => item.id)).not.toContain(baseline.id);

    expect(result.diff.base_id).toBe(baseline.id);
    expect(result.failing).toEqual([]); // there is a baseline: the regressions tell
    // Nothing but the notice that this test service has no vulnerability source (docs/intel.md).
    expect(lines).toEqual([expect.stringContaining("No vulnerability data source is available")]);
    // Within an environment, too: staging's newest earlier report, whatever came in between.
    expect((await client.diff((staging.at(-1) as Report).id, "latest")).base_id).toBe((staging.at(-2) as Report).id);
    expect((await client.diff(baseline.id, "latest")).base_id).toBeNull();
  }, 120_000);
});
