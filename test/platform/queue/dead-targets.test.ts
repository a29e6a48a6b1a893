/**
 * Issue 30, item 2: dead targets fail fast. A site that accepts connections and never answers
 * runs its first analysis to the deadline; for DEAD_TARGET_WINDOW_MS afterwards, analyses of it
 * make one quick check (a connect and the first byte within DEAD_TARGET_CHECK_MS) and end
 * `site_unreachable` saying so — uncharged and counted in the per-minute dead-site limit. A live
 * site on the same address passes the check and completes; the dead site's own origin stays
 * checked though the live answer cleared the shared host and address.
 * No timings are asserted: what each report says is.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Report } from "../../../shared/report.ts";
import { HAS_POSTGRES } from "../../helpers/env.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { startDeadSite, startLiveSite } from "./dead-sites.ts";

setDefaultTimeout(120_000);

const ADDRESS = "127.0.0.223";

describe("dead targets fail fast", () => {
  let service: TestService | undefined;
  const stops: (() => void)[] = [];
  afterAll(async () => {
    for (const stop of stops) stop();
    await service?.stop();
  });

  test("after a dead site's analysis ran out its deadline, the next ones make a quick check and say so", async () => {
    const dead = await startDeadSite(ADDRESS);
    const live = startLiveSite(ADDRESS);
    stops.push(dead.stop, live.stop);
    service = await startTestService({
      backend: HAS_POSTGRES ? "postgres" : "pglite",
      env: {
        TARGET_ALLOWLIST: ADDRESS,
        ANALYSIS_TIMEOUT_MS: "6000",
        DEAD_TARGET_CHECK_MS: "2000",
        DEAD_TARGET_WINDOW_MS: "600000",
      },
    });
    const s = service;
    const { token, accountId } = await s.token(undefined, "enterprise");
    const analyze = async (url: string): Promise<Report> => {
      const posted = await s.call<{ id: string }>("POST", "/api/generate-report", {
        token,
        body: { url },
        headers: { prefer: "respond-async" },
      });
      expect(posted.status).toBe(202);
      for (;;) {
        const report = (await s.call<Report>("GET", `/api/report/${posted.body.id}`, { token })).body;
        if (report.status !== "queued" && report.status !== "running") return report;
        await Bun.sleep(100);
      }
    };

    // First: no answer until the analysis deadline; the report says the site did not answer.
    const first = await analyze(dead.url);
    expect(first.status).toBe("failed");
    expect(first.errors[0]).toMatchObject({ kind: "site_unreachable" });
    expect(first.errors[0]?.message).not.toContain("quick check");

    // Next: one quick check, and the report says why the analysis ended there.
    const second = await analyze(dead.url);
    expect(second.status).toBe("failed");
    expect(second.errors[0]).toMatchObject({ kind: "site_unreachable" });
    expect(second.errors[0]?.message).toContain("did not answer a quick check");
    expect(second.errors[0]?.message).toContain("gave no answer to the service's analyses");

    // A live site on the same host and address passes the check and completes.
    const other = await analyze(live.url);
    expect(other.status).toBe("completed");

    // Its answer cleared the shared host and address, not the dead site's own origin.
    const third = await analyze(dead.url);
    expect(third.errors[0]?.message).toContain("did not answer a quick check");

    // Uncharged, and each counted toward the dead-site limit (unreachablePerMinute).
    const failures = await s.db.sql<{ n: number }[]>`
      select count(*)::int as n from unreachable_failures where account_id = ${accountId}`;
    expect(failures[0]?.n).toBe(3);
    expect((await s.call("GET", "/api/usage", { token })).body).toMatchObject({ used: 1 });
  });
});
