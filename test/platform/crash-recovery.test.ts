/**
 * A process killed mid-analysis (SIGKILL, no chance to clean up) loses no credit and leaves
 * nothing half-done: its jobs expire and another process's worker takes them over (here the
 * site never answers, so they end failed, not charged) — or, past every deadline, the sweeper
 * releases the credit and fails the report. The Idempotency-Key of the killed request is freed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { BACKENDS, createPostgresDatabase, preparePgliteDataDir, type TestDatabase } from "../helpers/databases.ts";
import { runCli, type ServerProcess, startServerProcess } from "../helpers/processes.ts";
import { startSlowSite, type TestSite } from "../helpers/sites.ts";

describe.each(BACKENDS)("crash recovery on %s", (backend) => {
  let db: TestDatabase | undefined;
  let dataDir: string | undefined;
  let site: TestSite | undefined;
  let survivor: ServerProcess | undefined;
  afterAll(async () => {
    await survivor?.stop();
    await db?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    site?.stop();
  });

  test("SIGKILL during analyses: the sweeper gives the credits back", async () => {
    const env: Record<string, string> = {
      ANALYSIS_TIMEOUT_MS: "1500",
      SWEEP_INTERVAL_MS: "200",
      // Long enough for the retry below to end in its analysis timeout even when it first waits
      // for the site's slots, which the survivor's take-over analyses release a moment after
      // they end (at 2000 it answered 202 in about one run in five).
      SYNC_WAIT_MS: "6000",
      // Bounds the sweeper's path too (a credit reserved just before the kill, with no report yet).
      QUEUE_WAIT_MS: "3000",
    };
    if (backend === "postgres") {
      db = await createPostgresDatabase();
      env.DATABASE_URL = db.url as string;
    } else {
      dataDir = await preparePgliteDataDir();
      env.DATA_DIR = dataDir;
    }
    site = startSlowSite(60_000); // answers long after every deadline
    const victim = await startServerProcess(env);
    const token = (
      await runCli(["token", "create", "--email", "crash@example.com", "--plan", "starter"], env)
    ).stdout.trim();
    await runCli(["account", "rate-limit", "--email", "crash@example.com", "--rpm", "100000"], env);
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const body = JSON.stringify({ url: site.url });

    // One synchronous analysis (with an Idempotency-Key) and one async, both stuck on the site.
    void fetch(`${victim.url}/api/generate-report`, {
      method: "POST",
      headers: { ...auth, "idempotency-key": "run-7" },
      body,
    }).catch(() => {});
    const accepted = await fetch(`${victim.url}/api/generate-report`, {
      method: "POST",
      headers: { ...auth, prefer: "respond-async" },
      body,
    });
    expect(accepted.status).toBe(202);
    const asyncId = ((await accepted.json()) as { id: string }).id;
    let inProgress = 0;
    for (let i = 0; i < 50 && inProgress < 2; i++) {
      const usage = (await (await fetch(`${victim.url}/api/usage`, { headers: auth })).json()) as {
        in_progress: number;
      };
      inProgress = usage.in_progress;
      if (inProgress < 2) await Bun.sleep(20);
    }
    expect(inProgress).toBe(2);

    victim.child.kill("SIGKILL");
    await victim.child.exited;

    survivor = await startServerProcess(env);
    const readUsage = async () =>
      (await (await fetch(`${survivor?.url}/api/usage`, { headers: auth })).json()) as {
        used: number;
        in_progress: number;
        remaining: number;
      };
    // Right after the crash the credits are still held (the analyses could be running elsewhere)...
    expect((await readUsage()).in_progress).toBe(2);
    // ...until the survivor's worker takes the expired jobs over (or the sweeper gives up on them).
    let usage = await readUsage();
    for (let i = 0; i < 600 && usage.in_progress > 0; i++) {
      await Bun.sleep(100);
      usage = await readUsage();
    }
    expect(usage).toMatchObject({ used: 0, in_progress: 0, remaining: 50 });

    // The report is stored failed, once, with the reason it ended.
    const readReport = async () =>
      (await (await fetch(`${survivor?.url}/api/report/${asyncId}`, { headers: auth })).json()) as {
        status: string;
        errors: { kind: string }[];
      };
    let report = await readReport();
    for (let i = 0; i < 50 && report.status !== "failed"; i++) {
      await Bun.sleep(100);
      report = await readReport();
    }
    expect(report.status).toBe("failed");
    expect(report.errors).toHaveLength(1);
    expect(["site_unreachable", "interrupted", "overloaded"]).toContain(report.errors[0]?.kind as string);

    // The key of the killed request is free again: a retry runs (and times out on this site) instead of 409.
    const retry = await fetch(`${survivor.url}/api/generate-report`, {
      method: "POST",
      headers: { ...auth, "idempotency-key": "run-7" },
      body,
    });
    expect(retry.status).toBe(422);
    expect(((await retry.json()) as { code: string }).code).toBe("site_unreachable");
    expect((await readUsage()).used).toBe(0);
  }, 120_000);
});
