/**
 * Scale-out on real parts: 2 API processes (WPREPORT_ROLE=api) and 2 worker processes
 * (WPREPORT_ROLE=worker) on one PostgreSQL and one Redis. 100 reports across 10 accounts,
 * one worker SIGKILLed in the middle: every report completes, each is stored once, and the
 * credits used are exactly 100. Idempotency keys hold across the two API processes.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createPostgresDatabase, type TestDatabase } from "../../helpers/databases.ts";
import { HAS_POSTGRES, HAS_REDIS, REDIS_URL } from "../../helpers/env.ts";
import { runCli, type ServerProcess, startServerProcess } from "../../helpers/processes.ts";
import { startBlog, type TestSite } from "../../helpers/sites.ts";

const REPORTS = 100;
const ACCOUNTS = 10;

describe.skipIf(!HAS_POSTGRES || !HAS_REDIS)("2 API + 2 worker processes on one PostgreSQL and Redis", () => {
  let db: TestDatabase | undefined;
  let blog: TestSite | undefined;
  const processes: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop("SIGKILL").catch(() => 0)));
    blog?.stop();
    await db?.destroy();
  });

  test("100 reports, one worker killed mid-run: each completes once and exactly 100 credits are used", async () => {
    db = await createPostgresDatabase();
    blog = startBlog();
    const env = {
      DATABASE_URL: db.url as string,
      REDIS_URL,
      ANALYSIS_TIMEOUT_MS: "3000",
      HOST_CONCURRENCY: "8",
      // Every report is of one site: no per-target pace (8 analyses would share 60 requests a second).
      TARGET_MAX_RPS: "0",
      WORKER_CONCURRENCY: "4",
      SWEEP_INTERVAL_MS: "1000",
    };
    const [apiA, apiB, workerA, workerB] = await Promise.all([
      startServerProcess({ ...env, WPREPORT_ROLE: "api" }),
      startServerProcess({ ...env, WPREPORT_ROLE: "api" }),
      startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
      startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
    ]);
    processes.push(apiA, apiB, workerA, workerB);
    if (!apiA || !apiB || !workerA || !workerB) throw new Error("processes did not start");
    // A worker process serves no API.
    expect((await fetch(`${workerA.url}/api/usage`)).status).toBe(404);
    expect(await (await fetch(`${workerA.url}/healthz`)).json()).toMatchObject({ status: "ok", role: "worker" });

    const tokens: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const created = await runCli(
        ["token", "create", "--email", `scale${i}@example.com`, "--plan", "enterprise"],
        env,
      );
      tokens.push(created.stdout.trim());
    }
    const apis = [apiA.url, apiB.url];
    const post = (api: string, token: string, headers: Record<string, string> = {}) =>
      fetch(`${api}/api/generate-report`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
        body: JSON.stringify({ url: blog?.url }),
      });

    const ids = await Promise.all(
      Array.from({ length: REPORTS }, async (_, i) => {
        const response = await post(apis[i % 2] as string, tokens[i % ACCOUNTS] as string, {
          prefer: "respond-async",
        });
        expect(response.status).toBe(202);
        return { id: ((await response.json()) as { id: string }).id, token: tokens[i % ACCOUNTS] as string };
      }),
    );
    const statuses = async () =>
      Promise.all(
        ids.map(async ({ id, token }, i) => {
          const response = await fetch(`${apis[i % 2]}/api/report/${id}`, {
            headers: { authorization: `Bearer ${token}` },
          });
          return ((await response.json()) as { status: string }).status;
        }),
      );

    // Kill a worker once a good part of the work is done, while it is busy.
    for (let i = 0; i < 300; i++) {
      const done = (await statuses()).filter((status) => status === "completed").length;
      if (done >= 30) break;
      await Bun.sleep(100);
    }
    workerA.child.kill("SIGKILL");
    await workerA.child.exited;

    let final = await statuses();
    for (let i = 0; i < 600 && final.some((status) => status !== "completed"); i++) {
      await Bun.sleep(100);
      final = await statuses();
    }
    expect(final.filter((status) => status === "completed")).toHaveLength(REPORTS);

    const [counts] = await db.sql<{ reports: number; used: number; reserved: number }[]>`
      select (select count(*)::int from reports) as reports,
             (select coalesce(sum(used), 0)::int from usage_periods) as used,
             (select coalesce(sum(reserved), 0)::int from usage_periods) as reserved`;
    expect(counts).toEqual({ reports: REPORTS, used: REPORTS, reserved: 0 });
    expect((await db.sql`select 1 from credit_reservations`).length).toBe(0);

    // Idempotency across the split: the same key on the other API process replays, uncharged.
    const token = tokens[0] as string;
    const first = await post(apiA.url, token, { "idempotency-key": "deploy-42" });
    expect(first.status).toBe(201);
    const replay = await post(apiB.url, token, { "idempotency-key": "deploy-42" });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(((await replay.json()) as { id: string }).id).toBe(((await first.json()) as { id: string }).id);
    const [after] = await db.sql<{ used: number }[]>`select coalesce(sum(used), 0)::int as used from usage_periods`;
    expect(after?.used).toBe(REPORTS + 1);
  }, 120_000);
});
