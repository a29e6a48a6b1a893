/**
 * A monitor's `lab` field: kept with the monitor (migration 0022), changed and turned off by
 * PATCH, and asked for by each of its runs — the report's analysis gets the lab options, so the
 * monitor regresses on Core Web Vitals like on any check.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AnalysisResult } from "../../server/analyzer/analyze.ts";
import type { AnalyzeRequest } from "../../server/reports/reports.service.ts";
import type { Problem } from "../../shared/api.ts";
import type { Monitor } from "../../shared/monitors-api.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

describe.each(BACKENDS)("a monitor's lab on %s", (backend) => {
  let service: TestService;
  let token: string;
  const asked: (AnalyzeRequest["lab"] | undefined)[] = [];
  beforeAll(async () => {
    service = await startTestService({
      backend,
      analyze: async (url: string, _signal: AbortSignal, request: AnalyzeRequest) => {
        asked.push(request.lab);
        return { final_url: url, redirects: [], checks: [], errors: [], summary: null } as unknown as AnalysisResult;
      },
    });
    ({ token } = await service.token(undefined, "business"));
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
  });

  test("created with lab, changed, run with it, turned off", async () => {
    const created = await service.call<Monitor>("POST", "/api/monitors", {
      token,
      body: { url: "http://127.0.0.1:9/", schedule: "daily", lab: true, lab_throttling: "none" },
    });
    expect(created.status).toBe(201);
    expect(created.body.lab).toEqual({ device: "mobile", throttling: "none", runs: 1 });
    const id = created.body.id;

    const changed = await service.call<Monitor>("PATCH", `/api/monitors/${id}`, {
      token,
      body: { lab_device: "desktop", lab_runs: 3 },
    });
    expect(changed.body.lab).toEqual({ device: "desktop", throttling: "none", runs: 3 });

    const run = await service.call<{ id: string }>("POST", `/api/monitors/${id}/run`, { token });
    expect(run.status).toBe(202);
    for (let attempt = 0; attempt < 300 && asked.length === 0; attempt++) await Bun.sleep(100);
    expect(asked).toEqual([{ device: "desktop", throttling: "none", runs: 3 }]);

    const off = await service.call<Monitor>("PATCH", `/api/monitors/${id}`, { token, body: { lab: false } });
    expect(off.body.lab).toBeNull();
    const refused = await service.call<Problem>("PATCH", `/api/monitors/${id}`, {
      token,
      body: { lab: false, lab_runs: 2 },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect((await service.call<Monitor>("GET", `/api/monitors/${id}`, { token })).body.lab).toBeNull();
  }, 60_000);

  test("lab options without lab on create are refused", async () => {
    const refused = await service.call<Problem>("POST", "/api/monitors", {
      token,
      body: { url: "http://127.0.0.1:9/", schedule: "daily", lab_runs: 2 },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
  });
});
