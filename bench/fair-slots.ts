/**
 * Fair target slots under a dead-site flood (issue 30; docs/target-policy.md, "Fair slot
 * order" and "Dead targets fail fast"). The service as deployed — 1 API and 2 worker processes
 * on PostgreSQL, every limit at its default (ANALYSIS_TIMEOUT_MS 30 s, HOST_CONCURRENCY 2,
 * TARGET_ADDRESS_CONCURRENCY 4, DEAD_TARGET_*): one Enterprise account queues 40 reports of a
 * site that accepts connections and never answers; once the flood holds the host's slots,
 * another account asks for a report of another site on the same address (another port of the
 * same IP, so the same host key). Prints how long that report took from its request to its
 * completion, how long the flood's analyses held their slots (at the deadline, or after the
 * quick check), and how much of the flood was still unfinished. Figures, never assertions.
 *
 *   npm run bench:fair-slots                  # needs PostgreSQL
 *   BENCH_RUNS=3 npm run bench:fair-slots     # one deployment per run
 */
import { getPlan } from "../server/billing/plans.ts";
import type { Report } from "../shared/report.ts";
import { createPostgresDatabase } from "../test/helpers/databases.ts";
import { runCli, startServerProcess } from "../test/helpers/processes.ts";
import { startDeadSite, startLiveSite } from "../test/platform/queue/dead-sites.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const ADDRESS = "127.0.0.226";
const FLOOD = getPlan("enterprise").maxQueued;

const seconds = (ms: number) => +(ms / 1000).toFixed(1);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.floor(sorted.length / 2)] as number);
};

async function run(index: number): Promise<void> {
  const db = await createPostgresDatabase();
  const dead = await startDeadSite(ADDRESS);
  const live = startLiveSite(ADDRESS);
  const env = {
    DATABASE_URL: db.url as string,
    TARGET_ALLOWLIST: ADDRESS,
    WPORG_API_URL: "off",
    WPVULNERABILITY_API_URL: "off",
    INTEL_REFRESH_CRON: "off",
    LOG_LEVEL: "error",
  };
  const processes = [await startServerProcess({ ...env, WPREPORT_ROLE: "api" })];
  processes.push(
    ...(await Promise.all([
      startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
      startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
    ])),
  );
  try {
    const api = processes[0]?.url as string;
    const account = async (email: string, plan: string) => {
      const created = await runCli(["token", "create", "--email", email, "--plan", plan], env);
      await runCli(["account", "rate-limit", "--email", email, "--rpm", "100000"], env);
      const [row] = await db.sql<{ id: string }[]>`select id from accounts where email = ${email}`;
      return { token: created.stdout.trim().split("\n").at(-1) as string, accountId: row?.id as string };
    };
    const flooder = await account(`bench-flood-${index}@example.com`, "enterprise");
    const other = await account(`bench-other-${index}@example.com`, "starter");
    const post = (token: string, url: string) =>
      fetch(`${api}/api/generate-report`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", prefer: "respond-async" },
        body: JSON.stringify({ url }),
      }).then(async (response) => ({ status: response.status, id: ((await response.json()) as { id: string }).id }));

    const flood = await Promise.all(Array.from({ length: FLOOD }, () => post(flooder.token, dead.url)));
    const admitted = flood.filter((answer) => answer.status === 202).length;
    // Wait until the flood holds the host's slots (HOST_CONCURRENCY analyses running).
    for (;;) {
      const [row] = await db.sql<{ n: number }[]>`
        select count(*)::int as n from reports where account_id = ${flooder.accountId} and status = 'running'`;
      if ((row?.n ?? 0) >= 2) break;
      await Bun.sleep(20);
    }
    const asked = performance.now();
    const mine = await post(other.token, live.url);
    let report: Report;
    for (;;) {
      const response = await fetch(`${api}/api/report/${mine.id}`, {
        headers: { authorization: `Bearer ${other.token}` },
      });
      report = (await response.json()) as Report;
      if (report.status !== "queued" && report.status !== "running") break;
      await Bun.sleep(50);
    }
    const tookMs = performance.now() - asked;
    const rows = await db.sql<{ status: string; held_ms: number; quick: boolean }[]>`
      select status, extract(epoch from (completed_at - started_at)) * 1000 as held_ms,
        (failure -> 'extensions' ->> 'quick_check_ms') is not null as quick
      from reports where account_id = ${flooder.accountId}`;
    const ended = rows.filter((row) => row.status === "failed");
    const full = ended.filter((row) => !row.quick).map((row) => Number(row.held_ms));
    const quick = ended.filter((row) => row.quick).map((row) => Number(row.held_ms));
    console.log(
      JSON.stringify({
        run: index + 1,
        flood_admitted: admitted,
        other_report: report.status,
        other_report_s: seconds(tookMs),
        other_waited_for_slots_s: seconds(report.target_limits?.waited_ms ?? 0),
        flood_unfinished_then: rows.filter((row) => row.status === "queued" || row.status === "running").length,
        flood_ended_then: ended.length,
        flood_held_at_deadline: { n: full.length, median_s: seconds(median(full)) },
        flood_held_after_quick_check: { n: quick.length, median_s: seconds(median(quick)) },
      }),
    );
  } finally {
    await Promise.all(processes.map((process) => process.stop().catch(() => 0)));
    dead.stop();
    live.stop();
    await db.destroy();
  }
}

for (let i = 0; i < RUNS; i++) await run(i);
