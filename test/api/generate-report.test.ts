/**
 * POST /api/generate-report end to end on both backends: validation of the target URL,
 * the happy path with Location and stored report, metadata, async mode, unreachable
 * sites (not charged) and the quota.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { REPORT_SCHEMA_VERSION } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { expectValidReport } from "../helpers/report-schema.ts";
import { freePort, startTestService, type TestService } from "../helpers/service.ts";
import { BLOG_VERSION, startBlog, startSlowSite, type TestSite } from "../helpers/sites.ts";

describe.each(BACKENDS)("generate-report on %s", (backend) => {
  let service: TestService;
  let blog: TestSite;

  beforeAll(async () => {
    service = await startTestService({ backend });
    blog = startBlog();
  });
  afterAll(async () => {
    await service.stop();
    blog.stop();
  });

  const usage = async (token: string) => (await service.call("GET", "/api/usage", { token })).body;

  test("201 with Location; the stored report is the same and validates against the schema", async () => {
    const { token } = await service.token();
    const metadata = {
      git_sha: "abc123",
      git_ref: "refs/heads/main",
      environment: "staging",
      ci_run_url: "https://ci.example/1",
    };
    const created = await service.call("POST", "/api/generate-report", { token, body: { url: blog.url, metadata } });
    expect(created.status).toBe(201);
    const report = created.body;
    expect(report.id).toMatch(/^rep_[0-9a-z]{26}$/);
    expect(created.headers.get("location")).toBe(`${service.url}/api/report/${report.id}`);
    expect(report.status).toBe("completed");
    expect(report.schema_version).toBe(REPORT_SCHEMA_VERSION);
    expect(report.url).toBe(blog.url);
    expect(report.final_url).toBe(blog.url);
    expect(report.metadata).toEqual(metadata);
    expect(report.wordpress).toMatchObject({ detected: true, version: BLOG_VERSION });
    expect(typeof report.duration_ms).toBe("number");
    expectValidReport(report);

    const fetched = await service.call("GET", `/api/report/${report.id}`, { token });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(report);
    expect((await usage(token)).used).toBe(1);
  });

  test("report ids are unguessable and unique", async () => {
    const { token } = await service.token();
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      ids.add(
        (await service.call("POST", "/api/generate-report", { token, body: { url: blog.url } })).body.id as string,
      );
    }
    expect(ids.size).toBe(3);
    // 80 random bits after the time prefix: consecutive ids share no random suffix.
    const suffixes = [...ids].map((id) => id.slice(-16));
    expect(new Set(suffixes).size).toBe(3);
  });

  test.each([
    ["not a url", "invalid_url"],
    ["", "invalid_url"],
    [`https://example.com/${"a".repeat(2100)}`, "invalid_url"],
    ["ftp://example.com/", "url_not_allowed"],
    ["javascript:alert(1)", "url_not_allowed"],
    ["file:///etc/passwd", "url_not_allowed"],
    ["https://user:pass@example.com/", "url_not_allowed"],
    ["http://10.1.2.3/", "url_not_allowed"],
    ["http://169.254.169.254/latest/meta-data/", "url_not_allowed"],
    ["http://[fd00::1]/", "url_not_allowed"],
    ["http://2130706433/", "url_not_allowed"],
    ["http://0x7f000001/", "url_not_allowed"],
    ["http://intranet/", "url_not_allowed"],
  ])("%s → 422 %s, not charged", async (url, code) => {
    const { token } = await service.token();
    const response = await service.call("POST", "/api/generate-report", { token, body: { url } });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe(code);
    expect((await usage(token)).used).toBe(0);
  });

  test("without an allowlist, loopback targets are refused before any request", async () => {
    const strict = await startTestService({ backend, env: { TARGET_ALLOWLIST: "" } });
    try {
      const { token } = await strict.token();
      const hitsBefore = blog.hits.length;
      const viaName = await strict.call("POST", "/api/generate-report", {
        token,
        body: { url: blog.url.replace("127.0.0.1", "localhost") },
      });
      expect(viaName.status).toBe(422);
      expect(viaName.body.code).toBe("url_not_allowed");
      const viaIp = await strict.call("POST", "/api/generate-report", { token, body: { url: blog.url } });
      expect(viaIp.status).toBe(422);
      expect(viaIp.body.detail).toBe("The url points to a loopback address, which cannot be analyzed.");
      expect(blog.hits.length).toBe(hitsBefore);
      expect((await strict.call("GET", "/api/usage", { token })).body.used).toBe(0);
    } finally {
      await strict.stop();
    }
  });

  // Valid JSON that spells text PostgreSQL cannot store. Before the fix, each of these crawled
  // the site (about 32 requests), then failed to store with a 500 — free crawling.
  const UNSTORABLE: [string, (url: string) => string][] = [
    ["a NUL in url", (url) => `{"url":${JSON.stringify(`${url}?a=`).slice(0, -1)}\\u0000"}`],
    ["a lone high surrogate in url", (url) => `{"url":${JSON.stringify(`${url}?a=`).slice(0, -1)}\\ud800"}`],
    ["a NUL in metadata", (url) => `{"url":${JSON.stringify(url)},"metadata":{"environment":"prod\\u0000"}}`],
    ["a lone low surrogate in metadata", (url) => `{"url":${JSON.stringify(url)},"metadata":{"git_ref":"\\udc00x"}}`],
    ["a NUL in a metadata key", (url) => `{"url":${JSON.stringify(url)},"metadata":{"k\\u0000":"v"}}`],
  ];
  for (const [name, body] of UNSTORABLE) {
    test(`${name}: 400 invalid_request before any credit or request to the site`, async () => {
      const { token } = await service.token();
      const hitsBefore = blog.hits.length;
      for (const respondAsync of [false, true]) {
        const response = await service.call("POST", "/api/generate-report", {
          token,
          body: body(blog.url),
          headers: respondAsync ? { prefer: "respond-async" } : {},
        });
        expect({ name, status: response.status, code: response.body.code }).toEqual({
          name,
          status: 400,
          code: "invalid_request",
        });
        expect(response.body.detail).toMatch(/NUL character .* unpaired UTF-16 surrogate/);
      }
      expect(blog.hits.length).toBe(hitsBefore);
      expect(await usage(token)).toMatchObject({ used: 0, in_progress: 0 });
      expect((await service.call("GET", "/api/reports", { token })).body.data).toEqual([]);
    });
  }

  test("a NUL in a query parameter of the report listing is 400, not a database error", async () => {
    const { token } = await service.token();
    for (const query of ["url=http%3A%2F%2Fa.example%2F%00", "environment=%00", "git_ref=a%00b"]) {
      const response = await service.call("GET", `/api/reports?${query}`, { token });
      expect({ query, status: response.status, code: response.body.code }).toEqual({
        query,
        status: 400,
        code: "invalid_request",
      });
    }
  });

  test("an unreachable site is 422 site_unreachable and costs nothing", async () => {
    const { token } = await service.token();
    const closedPort = await freePort();
    const response = await service.call("POST", "/api/generate-report", {
      token,
      body: { url: `http://127.0.0.1:${closedPort}/` },
    });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe("site_unreachable");
    expect(response.body.reason).toBe("refused");
    const after = await usage(token);
    expect(after).toMatchObject({ used: 0, in_progress: 0 });
  });

  test("a site slower than the analysis deadline is site_unreachable (timeout), not charged", async () => {
    const slow = startSlowSite(5_000);
    const quick = await startTestService({ backend, env: { ANALYSIS_TIMEOUT_MS: "1000" } });
    try {
      const { token } = await quick.token();
      const started = performance.now();
      const response = await quick.call("POST", "/api/generate-report", { token, body: { url: slow.url } });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe("site_unreachable");
      expect(performance.now() - started).toBeLessThan(3_000);
      expect((await quick.call("GET", "/api/usage", { token })).body).toMatchObject({ used: 0, in_progress: 0 });
    } finally {
      slow.stop();
      await quick.stop();
    }
  });

  test("Prefer: respond-async answers 202 with a queued report that completes", async () => {
    const { token } = await service.token();
    const accepted = await service.call("POST", "/api/generate-report", {
      token,
      body: { url: blog.url },
      headers: { prefer: "respond-async" },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body.status).toBe("queued");
    expect(accepted.headers.get("preference-applied")).toBe("respond-async");
    expectValidReport(accepted.body);
    const location = accepted.headers.get("location") as string;
    let report = accepted.body;
    for (let i = 0; i < 50 && report.status !== "completed"; i++) {
      await Bun.sleep(50);
      report = (await service.call("GET", new URL(location).pathname, { token })).body;
    }
    expect(report.status).toBe("completed");
    expectValidReport(report);
    expect((await usage(token)).used).toBe(1);
  });

  test("async analysis of an unreachable site ends failed and is not charged", async () => {
    const { token } = await service.token();
    const closedPort = await freePort();
    const accepted = await service.call("POST", "/api/generate-report", {
      token,
      body: { url: `http://127.0.0.1:${closedPort}/` },
      headers: { prefer: "respond-async" },
    });
    expect(accepted.status).toBe(202);
    let report = accepted.body;
    for (let i = 0; i < 50 && report.status !== "failed"; i++) {
      await Bun.sleep(50);
      report = (await service.call("GET", `/api/report/${accepted.body.id}`, { token })).body;
    }
    expect(report.status).toBe("failed");
    expect(report.errors).toEqual([expect.objectContaining({ kind: "site_unreachable" })]);
    expectValidReport(report);
    expect(await usage(token)).toMatchObject({ used: 0, in_progress: 0, remaining: 50 });
  });

  test("the quota: Free gets 3 reports, then 402 quota_exhausted with the reset time", async () => {
    const { token, accountId } = await service.token(undefined, "free");
    for (let i = 0; i < 3; i++) {
      expect((await service.call("POST", "/api/generate-report", { token, body: { url: blog.url } })).status).toBe(201);
    }
    const refused = await service.call("POST", "/api/generate-report", { token, body: { url: blog.url } });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe("quota_exhausted");
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(refused.body.resets_at).toBe(nextMonth);
    expect(refused.body.detail).toContain(nextMonth);
    expect(await usage(token)).toMatchObject({ quota: 3, used: 3, remaining: 0, resets_at: nextMonth });

    // Plan changes take effect at once: remaining = new quota − used.
    await service.running.services.accounts.setPlan(accountId, "starter");
    expect(await usage(token)).toMatchObject({
      quota: 50,
      used: 3,
      remaining: 47,
      plan: { id: "starter", name: "Starter" },
    });
    expect((await service.call("POST", "/api/generate-report", { token, body: { url: blog.url } })).status).toBe(201);
    await service.running.services.accounts.setPlan(accountId, "free");
    expect(await usage(token)).toMatchObject({ quota: 3, used: 4, remaining: 0 });
  });

  test("usage describes the period and the rate limit", async () => {
    const { token } = await service.token(undefined, "business");
    const response = await service.call("GET", "/api/usage", { token });
    const now = new Date();
    expect(response.body).toEqual({
      plan: { id: "business", name: "Business" },
      quota: 150,
      used: 0,
      in_progress: 0,
      remaining: 150,
      period_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      period_end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      rate_limit: { limit: 60, window_seconds: 60, remaining: 59 },
    });
  });
});
