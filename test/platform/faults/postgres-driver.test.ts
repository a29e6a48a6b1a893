/**
 * postgres.js with our fix (patches/postgres+3.4.9.patch): a connection terminated under a
 * transaction or a reservation rejects that work with a connection error, never throws from a
 * timer (which ended the process: upstream porsager/postgres#1208), never runs a dead
 * transaction's statement in another session (#1216), and the pool serves again afterwards.
 * Each scenario runs in a child process, so the unpatched driver's crash fails one test
 * instead of ending the test run.
 */
import { afterAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { createPostgresDatabase, type TestDatabase } from "../../helpers/databases.ts";
import { HAS_POSTGRES } from "../../helpers/env.ts";
import { ROOT, runProcess } from "../../helpers/processes.ts";

const SCRIPT = path.join(import.meta.dir, "driver-scenarios.ts");
const CLOSED = ["CONNECTION_CLOSED", "57P01"];

describe.skipIf(!HAS_POSTGRES)("postgres.js when its connections are terminated or its queries fail", () => {
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await db?.destroy();
  });

  async function run(scenario: string): Promise<Record<string, unknown>> {
    db ??= await createPostgresDatabase();
    const result = await runProcess([process.execPath, SCRIPT, scenario, db.url as string], {
      cwd: ROOT,
      env: process.env,
    });
    expect(result.stderr).not.toContain("TypeError");
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout.trim().split("\n").at(-1) as string);
  }

  test("a transaction killed mid-query rejects with a connection error, and the pool recovers", async () => {
    const outcome = await run("transaction-killed-mid-query");
    expect(CLOSED).toContain(outcome.begin as string);
    expect(outcome.after).toEqual(["ok", "ok", "ok", "ok"]);
  });

  test("a transaction's statement after its connection died is refused, not run in another session", async () => {
    const outcome = await run("transaction-killed-between-queries");
    expect(CLOSED).toContain(outcome.begin as string);
    expect(outcome.later).toBe("CONNECTION_CLOSED");
    expect(outcome.rows).toBe(0);
    expect(outcome.after).toEqual(["ok", "ok", "ok", "ok"]);
  });

  test("a query that fails while its rows stream leaves the next query's result whole (upstream #1119, #1181)", async () => {
    const outcome = await run("error-mid-stream");
    expect(outcome.failed).toBe("22012"); // division_by_zero, after 299 rows
    // Unpatched, the row counter stood at 299: `[row]` of the next result was undefined.
    expect(outcome.next).toEqual({ first: 1, length: 1, holes: 0 });
  });

  test("a query cancelled while its rows stream leaves the next query's result whole (issue 30: 401 for a valid token)", async () => {
    const outcome = await run("cancelled-mid-stream");
    expect(outcome.failed).toBe("57014"); // query_canceled, as statement_timeout
    expect(outcome.next).toEqual({ first: 1, length: 1, holes: 0 });
  });

  test("a reserved connection killed: its queries reject, release() leaves it to the pool, which recovers", async () => {
    const outcome = await run("reservation-killed");
    expect(CLOSED).toContain(outcome.first as string);
    expect(outcome.second).toBe("CONNECTION_CLOSED");
    expect(outcome.after).toEqual(["ok", "ok", "ok", "ok"]);
  });
});
