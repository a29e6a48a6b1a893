/**
 * Issue 30, item 4: one Enterprise account queues 40 reports of a site that accepts
 * connections and never answers; another account then asks for a report of a different site
 * on the same address. On 1 API and 2 worker processes on PostgreSQL, the other account's
 * report is handed the target's next free slot (fair slot order, decided in the database) and
 * completes while most of the flood is still unfinished, and the flood's later analyses end
 * after a quick check (dead targets fail fast). Two floods:
 * - one host: the dead site and the other site on one IP (one `host:` key, the port ignored);
 * - one address, two hosts: two dead names and the other site's name on one address, through a
 *   real DNS server, so the flood fills the address's slots (2 hosts × HOST_CONCURRENCY).
 * Before: every slot that freed went to whichever job polled first, a lottery with the flood
 * holding 38 tickets, and every dead analysis ran to its deadline.
 * No timings are asserted: the order of events is. The figure is bench/fair-slots.ts's.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { getPlan } from "../../../server/billing/plans.ts";
import type { Report } from "../../../shared/report.ts";
import { type DnsServer, startDnsServer } from "../../analyzer/hostile/dns-server.ts";
import { createPostgresDatabase, type TestDatabase } from "../../helpers/databases.ts";
import { HAS_POSTGRES } from "../../helpers/env.ts";
import { runCli, type ServerProcess, startServerProcess } from "../../helpers/processes.ts";
import { startDeadSite, startLiveSite } from "./dead-sites.ts";

setDefaultTimeout(300_000);

const ONE_HOST = "127.0.0.224";
const ONE_ADDRESS = "127.0.0.225";
const HOST_CONCURRENCY = 2;
const ADDRESS_CONCURRENCY = 4;
const FLOOD = getPlan("enterprise").maxQueued;

describe.skipIf(!HAS_POSTGRES)("fair target slots under a dead-site flood, 1 API + 2 workers", () => {
  let db: TestDatabase | undefined;
  let dns: DnsServer | undefined;
  const processes: ServerProcess[] = [];
  const stops: (() => void)[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop().catch(() => 0)));
    for (const stop of stops) stop();
    await dns?.stop();
    await db?.destroy();
  });

  let env: Record<string, string> = {};
  let api = "";
  /** The dead site on the shared address, named dead-a.test and dead-b.test. */
  let deadPort = "";
  const start = async () => {
    if (api) return;
    const deadAddress = await startDeadSite(ONE_ADDRESS);
    stops.push(deadAddress.stop);
    deadPort = new URL(deadAddress.url).port;
    dns = await startDnsServer({
      "dead-a.test": { A: [ONE_ADDRESS] },
      "dead-b.test": { A: [ONE_ADDRESS] },
      "dead-c.test": { A: [ONE_ADDRESS] },
      "live.test": { A: [ONE_ADDRESS] },
    });
    db = await createPostgresDatabase();
    env = {
      DATABASE_URL: db.url as string,
      TARGET_ALLOWLIST: `${ONE_HOST},${ONE_ADDRESS}`,
      DNS_SERVERS: dns.address,
      HOST_CONCURRENCY: String(HOST_CONCURRENCY),
      TARGET_ADDRESS_CONCURRENCY: String(ADDRESS_CONCURRENCY),
      WORKER_CONCURRENCY: "4",
      TARGET_MAX_RPS: "0",
      // A dead site's analysis runs to this deadline; the quick check to 3 s (the other site
      // on the dead host's address passes it too, on a loaded machine).
      ANALYSIS_TIMEOUT_MS: "8000",
      DEAD_TARGET_CHECK_MS: "3000",
      QUEUE_WAIT_MS: "600000",
      WPORG_API_URL: "off",
      WPVULNERABILITY_API_URL: "off",
      INTEL_REFRESH_CRON: "off",
    };
    // The API first (it runs the migrations), then both workers: three processes starting
    // together on a loaded machine missed the start-up deadline.
    const apiProcess = await startServerProcess({ ...env, WPREPORT_ROLE: "api" });
    processes.push(apiProcess);
    processes.push(
      ...(await Promise.all([
        startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
        startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
      ])),
    );
    api = apiProcess.url;
  };

  const account = async (email: string, plan: string) => {
    const created = await runCli(["token", "create", "--email", email, "--plan", plan], env);
    expect(created.code).toBe(0);
    const token = created.stdout.trim().split("\n").at(-1) as string;
    const [row] = await (db as TestDatabase).sql<{ id: string }[]>`select id from accounts where email = ${email}`;
    expect((await runCli(["account", "rate-limit", "--email", email, "--rpm", "100000"], env)).code).toBe(0);
    return { token, accountId: row?.id as string };
  };
  const post = async (token: string, url: string) => {
    const response = await fetch(`${api}/api/generate-report`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", prefer: "respond-async" },
      body: JSON.stringify({ url }),
    });
    return { status: response.status, body: (await response.json()) as { id: string } };
  };

  /**
   * The flood, then the other account's report once the flood holds every slot it can; returns
   * what happened while that report waited and ran.
   */
  async function floodThenOther(
    floodUrls: string[],
    otherUrl: string,
    contested: { key: string; limit: number },
    label: string,
  ) {
    const floodHolds = contested.limit;
    const sql = (db as TestDatabase).sql;
    const slug = label.replaceAll(" ", "-");
    const flooder = await account(`flood-${slug}@example.com`, "enterprise");
    const other = await account(`other-${slug}@example.com`, "starter");
    const answers = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) => post(flooder.token, floodUrls[i % floodUrls.length] as string)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(FLOOD).fill(202));
    const running = async () =>
      (
        await sql<{ n: number }[]>`
          select count(*)::int as n from reports where account_id = ${flooder.accountId} and status = 'running'`
      )[0]?.n ?? 0;
    const deadline = Date.now() + 60_000;
    while ((await running()) < floodHolds && Date.now() < deadline) await Bun.sleep(20);
    expect(await running()).toBe(floodHolds);

    const mine = await post(other.token, otherUrl);
    expect(mine.status).toBe(202);
    // Watches the contested key's slots while the other report waits for them: from the
    // moment its job first found the target busy (its job carries targetWaitSince) until it
    // holds a slot. A flood job that takes a slot between two looks that both saw the other
    // report waiting was served before it.
    let servedBefore = 0;
    let looksWaiting = 0;
    let watching = true;
    const watcher = (async () => {
      let last: { waiting: boolean; flood: string[] } | undefined;
      while (watching) {
        const [look] = await sql<{ waiting: boolean; flood: string[] }[]>`
          select
            exists (select 1 from pgboss.job where name = 'analysis' and data ->> 'reportId' = ${mine.body.id}
                and data ? 'targetWaitSince')
              and exists (select 1 from reports where id = ${mine.body.id} and status = 'queued')
              and not exists (select 1 from host_slots where host = ${contested.key} and report_id = ${mine.body.id})
              as waiting,
            coalesce((select array_agg(report_id) from host_slots
              where host = ${contested.key} and report_id in (
                select id from reports where account_id = ${flooder.accountId})), '{}') as flood`;
        const now = { waiting: look?.waiting === true, flood: look?.flood ?? [] };
        if (now.waiting) looksWaiting++;
        if (last?.waiting && now.waiting) servedBefore += now.flood.filter((id) => !last?.flood.includes(id)).length;
        last = now;
        await Bun.sleep(20);
      }
    })();
    let report: Report;
    for (;;) {
      const response = await fetch(`${api}/api/report/${mine.body.id}`, {
        headers: { authorization: `Bearer ${other.token}` },
      });
      report = (await response.json()) as Report;
      if (report.status !== "queued" && report.status !== "running") break;
      await Bun.sleep(100);
    }
    watching = false;
    await watcher;
    const unfinished =
      (
        await sql<{ n: number }[]>`
          select count(*)::int as n from reports
          where account_id = ${flooder.accountId} and status in ('queued', 'running')`
      )[0]?.n ?? 0;
    // The flood's analyses that started while the other report waited for its slots and was
    // starting: the wait began when its job first found the target busy (waited_ms before its
    // start). Once granted, its job starts at its next offer; meanwhile the flood may use the
    // contested key's other slots.
    const [times] = await sql<{ started_at: Date }[]>`select started_at from reports where id = ${mine.body.id}`;
    const startedAt = times ? times.started_at.getTime() : 0;
    const waitedMs = report.target_limits?.waited_ms ?? 0;
    const startedAhead =
      (
        await sql<{ n: number }[]>`
          select count(*)::int as n from reports
          where account_id = ${flooder.accountId}
            and started_at > ${new Date(startedAt - waitedMs)} and started_at < ${new Date(startedAt)}`
      )[0]?.n ?? 0;
    const failures = await sql<{ failure: { code: string; detail: string; extensions?: Record<string, unknown> } }[]>`
      select failure from reports where account_id = ${flooder.accountId} and status = 'failed'`;
    console.log(
      `[fair slots, ${label}] the other report: ${report.status}${report.status === "completed" ? "" : ` ${JSON.stringify(report.errors)}`}, waited ${waitedMs} ms (${looksWaiting} looks); ${servedBefore} flood jobs served before it, ${startedAhead} flood analyses started while it waited; ${unfinished} of the flood's ${FLOOD} unfinished; ${failures.filter((row) => row.failure.extensions?.quick_check_ms).length} of ${failures.length} flood failures after a quick check`,
    );
    return { report, waitedMs, servedBefore, looksWaiting, startedAhead, unfinished, failures, other, flooder };
  }

  test("one host: the other account's report takes the host's next free slot, before the flood's 38 waiting jobs", async () => {
    await start();
    const dead = await startDeadSite(ONE_HOST);
    const live = startLiveSite(ONE_HOST);
    stops.push(dead.stop, live.stop);
    const seen = await floodThenOther(
      [dead.url],
      live.url,
      { key: `host:${ONE_HOST}`, limit: HOST_CONCURRENCY },
      "one host",
    );
    expect(seen.report.status).toBe("completed");
    expect(seen.report.target_limits?.hit).toContain("analyses_at_once");
    // Handed the first slot that freed after it began waiting: no flood job went before it.
    expect(seen.looksWaiting).toBeGreaterThan(0);
    expect(seen.servedBefore).toBe(0);
    expect(seen.unfinished).toBeGreaterThan(FLOOD / 2);
    // The flood's later analyses end after the quick check, saying so, uncharged.
    const sql = (db as TestDatabase).sql;
    for (let tries = 0; ; tries++) {
      const quick = await sql<{ failure: { code: string; detail: string } }[]>`
        select failure from reports where account_id = ${seen.flooder.accountId}
          and (failure -> 'extensions' ->> 'quick_check_ms')::int = 3000 limit 1`;
      if (quick[0]) {
        expect(quick[0].failure).toMatchObject({ code: "site_unreachable" });
        expect(quick[0].failure.detail).toContain("did not answer a quick check");
        break;
      }
      expect(tries).toBeLessThan(1200);
      await Bun.sleep(50);
    }
    const [usage] = await sql<{ used: number }[]>`
      select coalesce(sum(used), 0)::int as used from usage_periods where account_id = ${seen.flooder.accountId}`;
    expect(usage?.used ?? 0).toBe(0);
  });

  test("one address, two hosts: the flood keeps at most half the address's slots while the other account waits", async () => {
    await start();
    const live = startLiveSite(ONE_ADDRESS);
    stops.push(live.stop);
    const otherUrl = `http://live.test:${new URL(live.url).port}/`;
    const seen = await floodThenOther(
      [`http://dead-a.test:${deadPort}/`, `http://dead-b.test:${deadPort}/`],
      otherUrl,
      { key: `addr:${ONE_ADDRESS}`, limit: ADDRESS_CONCURRENCY },
      "one address",
    );
    expect(seen.report.status).toBe("completed");
    expect(seen.report.target_limits?.hit).toContain("analyses_at_once");
    expect(seen.looksWaiting).toBeGreaterThan(0);
    expect(seen.servedBefore).toBe(0);
    expect(seen.unfinished).toBeGreaterThan(FLOOD / 2);

    // The address is remembered as giving no answer (the flood's quick checks keep it so after
    // the other report's answer cleared it): a third dead name on it, never analysed before,
    // fails after the quick check on its first analysis instead of running to the deadline.
    const sql = (db as TestDatabase).sql;
    const completedAt = new Date(seen.report.completed_at as string);
    for (let tries = 0; ; tries++) {
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from reports where account_id = ${seen.flooder.accountId}
          and failure -> 'extensions' ? 'quick_check_ms' and completed_at > ${completedAt}`;
      if ((row?.n ?? 0) > 0) break;
      expect(tries).toBeLessThan(1200);
      await Bun.sleep(50);
    }
    const third = await post(seen.other.token, `http://dead-c.test:${deadPort}/`);
    expect(third.status).toBe(202);
    let failed: Report;
    for (;;) {
      const response = await fetch(`${api}/api/report/${third.body.id}`, {
        headers: { authorization: `Bearer ${seen.other.token}` },
      });
      failed = (await response.json()) as Report;
      if (failed.status !== "queued" && failed.status !== "running") break;
      await Bun.sleep(100);
    }
    expect(failed.status).toBe("failed");
    expect(failed.errors[0]).toMatchObject({ kind: "site_unreachable" });
    expect(failed.errors[0]?.message).toContain("did not answer a quick check");
  });
});
