/**
 * Issue 21, row 7: a Free account runs one analysis at a time, also when two worker processes
 * fetch its jobs at the same moment. Deployed as it runs: one API and two worker processes
 * (WPREPORT_ROLE) on one PostgreSQL. 10 Free accounts each send 3 async reports at once, each
 * of its own site (its own loopback address, so no per-target limit gets in the way); every
 * site counts the analyses of it that overlap — an analysis holds robots.txt for 400 ms.
 * pg-boss's group concurrency alone let two run at once in 3 of 12 tries; the account's slot
 * in the database never does.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createPostgresDatabase, type TestDatabase } from "../../helpers/databases.ts";
import { HAS_POSTGRES } from "../../helpers/env.ts";
import { runCli, type ServerProcess, startServerProcess } from "../../helpers/processes.ts";
import { blogHomepage } from "../../helpers/sites.ts";

setDefaultTimeout(120_000);

const ACCOUNTS = 10;
const REPORTS_EACH = 3;
const HOLD_MS = 400;

interface CountingSite {
  url: string;
  maxConcurrent(): number;
  stop(): void;
}

function startCountingSite(hostname: string): CountingSite {
  let current = 0;
  let max = 0;
  const server = Bun.serve({
    hostname,
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/robots.txt")
        return new Response(blogHomepage(url.origin), { headers: { "content-type": "text/html" } });
      current++;
      max = Math.max(max, current);
      try {
        await Bun.sleep(HOLD_MS);
        return new Response("User-agent: *\nDisallow:\n", { headers: { "content-type": "text/plain" } });
      } finally {
        current--;
      }
    },
  });
  return { url: `http://${hostname}:${server.port}/`, maxConcurrent: () => max, stop: () => server.stop(true) };
}

describe.skipIf(!HAS_POSTGRES)("Free plan concurrency across two worker processes", () => {
  let db: TestDatabase | undefined;
  const processes: ServerProcess[] = [];
  const sites: CountingSite[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop("SIGKILL").catch(() => 0)));
    for (const site of sites) site.stop();
    await db?.destroy();
  });

  test("10 Free accounts × 3 async reports: never 2 of one account at once", async () => {
    db = await createPostgresDatabase();
    for (let i = 0; i < ACCOUNTS; i++) sites.push(startCountingSite(`127.0.0.${60 + i}`));
    const env = {
      DATABASE_URL: db.url as string,
      TARGET_ALLOWLIST: "127.0.0.0/24",
      WORKER_CONCURRENCY: "8",
      HOST_CONCURRENCY: "10",
      TARGET_MAX_RPS: "0",
      ANALYSIS_TIMEOUT_MS: "15000",
      LOG_LEVEL: "error",
    };
    const started = await Promise.all([
      startServerProcess({ ...env, WPREPORT_ROLE: "api" }),
      startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
      startServerProcess({ ...env, WPREPORT_ROLE: "worker" }),
    ]);
    processes.push(...started);
    const api = started[0]?.url as string;
    const tokens: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const created = await runCli(["token", "create", "--email", `free${i}@example.com`, "--plan", "free"], env);
      expect(created.code).toBe(0);
      tokens.push(created.stdout.trim().split("\n").at(-1) as string);
    }
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });
    const ids = await Promise.all(
      tokens.flatMap((token, account) =>
        Array.from({ length: REPORTS_EACH }, async () => {
          const response = await fetch(`${api}/api/generate-report`, {
            method: "POST",
            headers: { ...auth(token), "content-type": "application/json", prefer: "respond-async" },
            body: JSON.stringify({ url: sites[account]?.url }),
          });
          expect(response.status).toBe(202);
          return { token, id: ((await response.json()) as { id: string }).id };
        }),
      ),
    );
    const deadline = Date.now() + 90_000;
    for (const { token, id } of ids) {
      for (;;) {
        const report = (await (await fetch(`${api}/api/report/${id}`, { headers: auth(token) })).json()) as {
          status: string;
        };
        if (report.status === "completed") break;
        expect(report.status === "failed" || Date.now() > deadline).toBe(false);
        await Bun.sleep(200);
      }
    }
    const overlaps = sites.map((site) => site.maxConcurrent());
    console.log(`[account concurrency] most analyses of one Free account at once, per account: ${overlaps.join(" ")}`);
    expect(overlaps).toEqual(Array.from({ length: ACCOUNTS }, () => 1));
  });
});
