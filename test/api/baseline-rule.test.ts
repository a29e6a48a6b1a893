/**
 * The baseline rule and the gate verdicts it rests on (docs/diff.md#the-baseline), through
 * GET /api/report/{id}/diff on both backends, with reports made by the real service of a real
 * site on loopback that a bad deploy leaves a `.env` on:
 * last-passing and its fallbacks (never judged, all failed, none), the first judgement that
 * stands, base=none that records nothing, the default branch preferred on a pull request,
 * `latest`, and assertions given as a query parameter.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ReportList } from "../../shared/api.ts";
import type { Diff } from "../../shared/diff-schema.ts";
import type { Report, ReportMetadata } from "../../shared/report.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type EnvExposingBlog, startEnvExposingBlog } from "../helpers/sites.ts";

describe.each(BACKENDS)("the baseline rule on %s", (backend) => {
  let service: TestService;
  let site: EnvExposingBlog;
  let token: string;

  beforeAll(async () => {
    service = await startTestService({ backend });
    ({ token } = await service.token(undefined, "business"));
    site = startEnvExposingBlog();
  });
  afterAll(async () => {
    await service.stop();
    site.stop();
  });

  const generate = async (metadata: ReportMetadata, exposed = false, down = false): Promise<Report> => {
    site.envExposed = exposed;
    site.down = down;
    try {
      const response = await service.call<Report>("POST", "/api/generate-report", {
        token,
        body: { url: site.url, metadata },
      });
      expect(response.status).toBe(201);
      return response.body;
    } finally {
      site.down = false;
    }
  };
  const judge = async (id: string, query = "") => {
    const response = await service.call<Diff>("GET", `/api/report/${id}/diff${query ? `?${query}` : ""}`, { token });
    expect(response.status).toBe(200);
    return response.body;
  };
  const where = (environment: string) => `127.0.0.1:${new URL(site.url).port} (environment ${environment})`;

  test("reports no gate judged (API, web) are the baseline until one passes; a regression stays one until fixed", async () => {
    const env = { environment: "api-only" };
    const clean = await generate(env);
    const broken = await generate(env, true);
    const first = await judge(broken.id);
    expect(first.baseline).toEqual({
      rule: "last-passing",
      id: clean.id,
      reason: `no earlier report of ${where("api-only")} passed the gate; ${clean.id} (${clean.created_at}) is the newest earlier one no gate judged (made without a diff against a baseline)`,
    });
    expect(first.verdict.result).toBe("fail");
    expect(first.gate).toMatchObject({ result: "fail", base_id: clean.id, rule: "last-passing" });

    // Still broken: compared with the clean report again, not with the failing one.
    const again = await generate(env, true);
    expect((await judge(again.id)).base_id).toBe(clean.id);
    expect((await judge(again.id)).verdict.result).toBe("fail");

    const fixed = await generate(env);
    const passing = await judge(fixed.id);
    expect(passing.base_id).toBe(clean.id);
    expect(passing.verdict.result).toBe("pass");
    const next = await judge((await generate(env)).id);
    expect(next.baseline).toEqual({
      rule: "last-passing",
      id: fixed.id,
      reason: `${fixed.id} (${fixed.created_at}) is the newest earlier report of ${where("api-only")} that passed the gate`,
    });
  });

  test("a report with no grade (the site was down) is never the baseline, even when its own gate had nothing to compare", async () => {
    const env = { environment: "went-down" };
    // The very first report: the site is down. Nothing to compare, so its gate passes — yet it
    // says nothing about the site, so the next report has no baseline rather than that one.
    const downFirst = await generate(env, false, true);
    expect(downFirst.summary).toBeNull();
    expect(downFirst.errors[0]).toMatchObject({ kind: "incomplete" });
    expect((await judge(downFirst.id)).verdict.result).toBe("pass");
    const clean = await generate(env);
    const first = await judge(clean.id);
    expect(first.base_id).toBeNull();
    expect(first.baseline?.reason).toContain("has no earlier graded report");
    // Down after a good report: the gate fails, and the next report is compared with the good one.
    const down = await generate(env, false, true);
    expect((await judge(down.id)).verdict.result).toBe("fail");
    const back = await generate(env);
    const after = await judge(back.id);
    expect(after.base_id).toBe(clean.id);
    expect(after.verdict.result).toBe("pass");
  });

  test("the first judgement stands: asking again with laxer thresholds, or with latest, does not make a failed report a baseline", async () => {
    const env = { environment: "first-wins" };
    const clean = await generate(env);
    expect((await judge(clean.id)).gate?.result).toBe("pass"); // the first report: nothing to compare with
    const broken = await generate(env, true);
    expect((await judge(broken.id)).gate?.result).toBe("fail");
    const lax = await judge(broken.id, "fail_on=none");
    expect(lax.verdict.result).toBe("pass");
    expect(lax.gate).toMatchObject({ result: "fail", base_id: clean.id });
    expect((await judge(broken.id, "base=latest")).gate?.result).toBe("fail");
    // So the next report is still compared with the clean one, and still fails.
    const later = await judge((await generate(env, true)).id);
    expect(later.base_id).toBe(clean.id);
    expect(later.verdict.result).toBe("fail");

    // base=none compares nothing and records nothing; the report's first real judgement does.
    const unjudged = await generate(env);
    const none = await judge(unjudged.id, "base=none");
    expect(none.baseline).toMatchObject({ rule: "none", id: null });
    expect(none.gate).toBeNull();
    expect((await judge(unjudged.id)).gate).toMatchObject({ result: "pass", base_id: clean.id });

    // What it was judged with is kept beside the verdict.
    const [row] = await service.db.sql<{ gate_options: Record<string, unknown> }[]>`
      select gate_options from reports where id = ${broken.id}`;
    expect(row?.gate_options).toEqual({ fail_on: "high", max_score_drop: null, budgets: {}, assert: "" });

    // The listing shows each report's verdict; null for one no gate judged.
    const list = await service.call<ReportList>("GET", "/api/reports?environment=first-wins", { token });
    const gates = new Map(list.body.data.map((item) => [item.id, item.gate?.result ?? null]));
    expect([clean.id, broken.id, unjudged.id].map((id) => gates.get(id))).toEqual(["pass", "fail", "pass"]);
  });

  test("when every earlier report failed the gate, the first of them is the baseline", async () => {
    const env = { environment: "always-failing" };
    // The blog is served over http: security.https fails, and an error assertion on it fails every report.
    const strict = "assert=security.https:error";
    const first = await generate(env);
    const judged = await judge(first.id, strict);
    expect(judged.verdict.reasons).toEqual(["1 check fails under an error assertion: security.https (security.https)"]);
    expect(judged.baseline.reason).toBe(
      `${where("always-failing")} has no earlier graded report: this is the first, and nothing is compared`,
    );
    const second = await generate(env);
    expect((await judge(second.id, strict)).verdict.result).toBe("fail");
    const broken = await generate(env, true);
    const third = await judge(broken.id, strict);
    expect(third.baseline).toEqual({
      rule: "last-passing",
      id: first.id,
      reason: `no earlier report of ${where("always-failing")} passed the gate (each one failed it); ${first.id} (${first.created_at}) is the first of them, so every regression since then still counts`,
    });
    expect(third.verdict.reasons).toContain("1 check regressed at severity high or above: security.env_file_exposed");
  });

  test("on a pull request the default branch's passing report is preferred, where there is one", async () => {
    const env = "previews";
    const main = await generate({ environment: env, git_ref: "refs/heads/main" });
    expect((await judge(main.id)).gate?.result).toBe("pass");
    const pr = await generate({ environment: env, git_ref: "refs/pull/7/merge" });
    expect((await judge(pr.id, "prefer_ref=refs/heads/main")).gate?.result).toBe("pass");
    const next = await generate({ environment: env, git_ref: "refs/pull/7/merge" });
    const preferred = await judge(next.id, `prefer_ref=${encodeURIComponent("refs/heads/main")}`);
    expect(preferred.baseline).toEqual({
      rule: "last-passing",
      id: main.id,
      reason: `${main.id} (${main.created_at}) is the newest earlier report of ${where(env)} on refs/heads/main (the default branch) that passed the gate`,
    });
    // Without a preference, or with a branch none of whose reports passed: the newest passing one.
    expect((await judge(next.id)).base_id).toBe(pr.id);
    const elsewhere = await judge(next.id, "prefer_ref=refs/heads/trunk");
    expect(elsewhere.base_id).toBe(pr.id);
    expect(elsewhere.baseline.reason).toEndWith("that passed the gate (none on refs/heads/trunk has passed it)");
    // latest ignores the gate and the preference.
    const latest = await judge(next.id, "base=latest&prefer_ref=refs/heads/main");
    expect(latest.baseline).toEqual({
      rule: "latest",
      id: pr.id,
      reason: `baseline latest: ${pr.id} (${pr.created_at}) is the newest earlier completed report of ${where(env)}, whether or not it passed the gate`,
    });
  });

  test("bad base and assert values are 400s naming the parameter", async () => {
    const report = await generate({ environment: "bad-values" });
    const base = await service.call<{ detail: string; errors: { pointer: string }[] }>(
      "GET",
      `/api/report/${report.id}/diff?base=previous`,
      { token },
    );
    expect(base.status).toBe(400);
    expect(base.body.detail).toBe(
      'base must be "last-passing", "latest", "none" or a report id (rep_…), got "previous".',
    );
    expect(base.body.errors[0]?.pointer).toBe("/base");
    const assert = await service.call<{ detail: string; errors: { pointer: string }[] }>(
      "GET",
      `/api/report/${report.id}/diff?assert=${encodeURIComponent("security.https: fatal")}`,
      { token },
    );
    expect(assert.status).toBe(400);
    expect(assert.body.detail).toBe(
      'assert: "security.https: fatal": the level must be error, warn or off, got "fatal".',
    );
    expect(assert.body.errors[0]?.pointer).toBe("/assert");
    // Neither judged the report.
    expect((await judge(report.id, "base=none")).gate).toBeNull();
  });
});
