/**
 * Report history on both backends: GET /api/reports (filters, cursor paging), the server-side
 * diff (GET /api/report/{id}/diff) and SARIF output by content negotiation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Diff } from "../../shared/diff-schema.ts";
import type { Report } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { expectValidSarif } from "../helpers/sarif.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type SwitchableBlog, startSwitchableBlog } from "../helpers/sites.ts";

interface Page {
  data: {
    id: string;
    url: string;
    site: string;
    status: string;
    score: number | null;
    metadata: Record<string, string>;
  }[];
  next_cursor: string | null;
}

describe.each(BACKENDS)("report history on %s", (backend) => {
  let service: TestService;
  let site: SwitchableBlog;
  let token: string;

  beforeAll(async () => {
    service = await startTestService({ backend });
    ({ token } = await service.token(undefined, "business"));
    site = startSwitchableBlog();
  });
  afterAll(async () => {
    await service.stop();
    site.stop();
  });

  const generate = async (url: string, metadata: Record<string, string>) => {
    const response = await service.call<Report>("POST", "/api/generate-report", { token, body: { url, metadata } });
    expect(response.status).toBe(201);
    return response.body;
  };

  test("lists newest first with filters and cursor paging", async () => {
    const a = await generate(site.url, { environment: "staging", git_ref: "refs/heads/main" });
    // The same site spelled with a query string: still the same site.
    const b = await generate(`${site.url}?utm=1`, { environment: "production", git_ref: "refs/heads/main" });
    const c = await generate(site.url, { environment: "staging", git_ref: "refs/heads/feature" });

    const all = await service.call<Page>("GET", "/api/reports", { token });
    expect(all.status).toBe(200);
    expect(all.body.data.slice(0, 3).map((item) => item.id)).toEqual([c.id, b.id, a.id]);
    expect(all.body.data[0]).toMatchObject({
      url: site.url,
      status: "completed",
      metadata: { environment: "staging" },
    });

    const staging = await service.call<Page>(
      "GET",
      `/api/reports?url=${encodeURIComponent(site.url)}&environment=staging`,
      { token },
    );
    expect(staging.body.data.map((item) => item.id)).toEqual([c.id, a.id]);
    const feature = await service.call<Page>("GET", "/api/reports?git_ref=refs/heads/feature", { token });
    expect(feature.body.data.map((item) => item.id)).toEqual([c.id]);

    const first = await service.call<Page>("GET", "/api/reports?limit=2", { token });
    expect(first.body.data.map((item) => item.id)).toEqual([c.id, b.id]);
    expect(first.body.next_cursor).toBe(b.id);
    const link = first.headers.get("link") ?? "";
    expect(link).toContain(`before=${b.id}`);
    expect(link).toContain('rel="next"');
    const second = await service.call<Page>(
      "GET",
      new URL(/<([^>]+)>/.exec(link)?.[1] ?? "").pathname + new URL(/<([^>]+)>/.exec(link)?.[1] ?? "").search,
      { token },
    );
    expect(second.body.data.map((item) => item.id)).toEqual([a.id]);
    expect(second.body.next_cursor).toBeNull();
  });

  test("bad filters are 400; another account sees none of these reports", async () => {
    expect((await service.call("GET", "/api/reports?limit=0", { token })).status).toBe(400);
    expect((await service.call("GET", "/api/reports?status=done", { token })).status).toBe(400);
    expect((await service.call("GET", "/api/reports?url=notaurl", { token })).status).toBe(400);
    expect((await service.call("GET", "/api/reports?before=rep_00000000000000000000000000", { token })).status).toBe(
      400,
    );
    const other = await service.token();
    const theirs = await service.call<Page>("GET", "/api/reports", { token: other.token });
    expect(theirs.body.data).toEqual([]);
  });

  test("server-side diff: latest baseline of the same site and environment, thresholds from the query", async () => {
    site.compressed = true;
    const before = await generate(site.url, { environment: "diff-env" });
    site.compressed = false;
    const after = await generate(site.url, { environment: "diff-env" });
    site.compressed = true;

    const result = await service.call<Diff>("GET", `/api/report/${after.id}/diff?base=latest&fail_on=medium`, {
      token,
    });
    expect(result.status).toBe(200);
    expect(result.body.base_id).toBe(before.id);
    expect(result.body.regressions.map((change) => [change.id, change.before, change.after])).toContainEqual([
      "performance.html_compression",
      "pass",
      "fail",
    ]);
    expect(result.body.verdict.result).toBe("fail");

    const lenient = await service.call<Diff>("GET", `/api/report/${after.id}/diff?base=${before.id}&fail_on=high`, {
      token,
    });
    expect(lenient.body.regressions.map((change) => change.id)).toContain("performance.html_compression");
    expect(lenient.body.verdict.reasons.join(" ")).not.toContain("performance.html_compression");

    const none = await service.call<Diff>("GET", `/api/report/${before.id}/diff?base=none`, { token });
    expect(none.body).toMatchObject({ base_id: null, regressions: [], verdict: { result: "pass" } });

    // The first report of an environment has no earlier one.
    const first = await generate(site.url, { environment: "brand-new" });
    expect(
      (await service.call<Diff>("GET", `/api/report/${first.id}/diff?base=latest`, { token })).body.base_id,
    ).toBeNull();

    expect(
      (await service.call("GET", `/api/report/${after.id}/diff?base=rep_00000000000000000000000000`, { token })).status,
    ).toBe(404);
    expect(
      (await service.call("GET", `/api/report/${after.id}/diff?base=latest&fail_on=severe`, { token })).status,
    ).toBe(400);
    expect(
      (await service.call("GET", `/api/report/${after.id}/diff?base=latest&budgets=lcp=1`, { token })).status,
    ).toBe(400);
    // Without base: the default rule, last-passing (test/api/baseline-rule.test.ts).
    const byDefault = await service.call<Diff>("GET", `/api/report/${after.id}/diff`, { token });
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.baseline.rule).toBe("last-passing");
    expect((await service.call("GET", `/api/report/${after.id}/diff?base=previous`, { token })).status).toBe(400);

    // Budgets with units, parsed as the Action and the CLI parse them.
    const budgeted = await service.call<Diff>(
      "GET",
      `/api/report/${after.id}/diff?base=none&budgets=${encodeURIComponent("html_bytes=1kB, ttfb_ms=30s")}`,
      { token },
    );
    expect(budgeted.status).toBe(200);
    expect(budgeted.body.budgets.map((budget) => [budget.metric, budget.unit, budget.limit, budget.exceeded])).toEqual([
      ["html_bytes", "bytes", 1000, true],
      ["ttfb_ms", "ms", 30_000, false],
    ]);
    expect(budgeted.body.verdict.reasons[0]).toMatch(/^HTML size is \d+(\.\d)? kB, over the budget of 1 kB$/);
    const wrongUnit = await service.call<{ code: string; detail: string }>(
      "GET",
      `/api/report/${after.id}/diff?base=none&budgets=ttfb_ms=1kB`,
      { token },
    );
    expect(wrongUnit.status).toBe(400);
    expect(wrongUnit.body).toMatchObject({
      code: "invalid_request",
      detail: 'budgets: budget "ttfb_ms=1kB": "kB" is not a unit of ttfb_ms, which is a time; use ms, s.',
      errors: [{ location: "query", pointer: "/budgets" }],
    });
    // The query schema (the published contract) speaks first for the typed parameters.
    const badDrop = await service.call<{ detail: string }>(
      "GET",
      `/api/report/${after.id}/diff?base=none&max_score_drop=101`,
      { token },
    );
    expect(badDrop.status).toBe(400);
    expect(badDrop.body.detail).toStartWith("Invalid query string field max_score_drop:");
  });

  test("Accept: application/sarif+json returns SARIF 2.1.0 with one result per failed or warned check", async () => {
    site.compressed = false;
    const report = await generate(site.url, {});
    site.compressed = true;
    const response = await fetch(`${service.url}/api/report/${report.id}`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/sarif+json" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/sarif+json; charset=utf-8");
    const sarif = (await response.json()) as {
      version: string;
      runs: {
        tool: { driver: { name: string; rules: { id: string; properties: { tags: string[] } }[] } };
        results: { ruleId: string; level: string; locations: unknown[] }[];
      }[];
    };
    expect(sarif.version).toBe("2.1.0");
    expectValidSarif(sarif); // the official schema and GitHub's requirements (test/api/sarif.test.ts has more)
    const run = sarif.runs[0];
    expect(run?.tool.driver.name).toBe("wpreport");
    const failing = report.checks.filter((check) => check.status === "fail" || check.status === "warn");
    expect(run?.results.map((result) => result.ruleId).sort()).toEqual(failing.map((check) => check.id).sort());
    expect(run?.results.find((result) => result.ruleId === "performance.html_compression")?.level).toBe("warning");
    for (const result of run?.results ?? [])
      expect(run?.tool.driver.rules.some((rule) => rule.id === result.ruleId)).toBe(true);
    // SARIF 2.1.0 requires unique tags; code scanning refuses a file that repeats one.
    for (const rule of run?.tool.driver.rules ?? [])
      expect(new Set(rule.properties.tags).size).toBe(rule.properties.tags.length);
    expect(run?.tool.driver.rules.some((rule) => rule.properties.tags.includes("security"))).toBe(true);

    const json = await fetch(`${service.url}/api/report/${report.id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(json.headers.get("content-type")).toContain("application/json");
  });
});
