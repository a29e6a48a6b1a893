/**
 * Run as a child process by postgres-driver.test.ts: one way of losing a connection under
 * postgres.js, then proof that the pool still works. Prints one JSON line and exits 0 — or
 * dies, which is what the unpatched driver does (an uncaught TypeError from a timer).
 *
 *   bun test/platform/faults/driver-scenarios.ts <scenario> <database url>
 */
import postgres from "postgres";

const [scenario, url] = process.argv.slice(2);
if (!scenario || !url) throw new Error("usage: driver-scenarios.ts <scenario> <database url>");

const sql = postgres(url, { max: 2, onnotice: () => {}, connect_timeout: 5 });
const admin = postgres(url, { max: 1, onnotice: () => {} });
const kill = (pid: number) => admin`select pg_terminate_backend(${pid})`;
const codeOf = (error: unknown) => (error as { code?: string }).code ?? String(error);

async function transactionKilledMidQuery() {
  let pid = 0;
  const tx = sql.begin(async (t) => {
    pid = (await t<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]?.pid ?? -1;
    await t`select pg_sleep(3)`;
  });
  while (pid === 0) await Bun.sleep(20);
  await Bun.sleep(100);
  await kill(pid);
  return { begin: await tx.then(() => "resolved", codeOf) };
}

/** The callback goes on after its connection died: its next statement must not run anywhere. */
async function transactionKilledBetweenQueries() {
  await sql`create table if not exists driver_probe (note text)`;
  let pid = 0;
  let later = "not reached";
  const tx = sql.begin(async (t) => {
    pid = (await t<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]?.pid ?? -1;
    await Bun.sleep(600); // killed meanwhile; the pool reconnects for the queries below
    later = await t`insert into driver_probe values ('after the kill')`.then(() => "ran", codeOf);
  });
  const outside = tx.then(() => "resolved", codeOf);
  while (pid === 0) await Bun.sleep(20);
  await kill(pid);
  // Keep the pool busy so that the dead connection is reconnected for someone else.
  await Promise.all(Array.from({ length: 4 }, () => sql`select pg_sleep(0.2)`));
  await Bun.sleep(800);
  const [counted] = await sql<{ n: number }[]>`select count(*)::int as n from driver_probe`;
  return { begin: await outside, later, rows: counted?.n };
}

async function reservationKilled() {
  const reserved = await sql.reserve();
  const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
  await kill(row?.pid ?? -1);
  await Bun.sleep(200);
  const first = await reserved`select 1`.then(() => "resolved", codeOf);
  const second = await reserved`select 2`.then(() => "resolved", codeOf);
  reserved.release();
  return { first, second };
}

/** The first row of a query on a pool of one connection, and how many rows it held ("holes": leading gaps). */
async function nextQueryOn(one: postgres.Sql): Promise<{ first: unknown; length: number; holes: number }> {
  const rows = await one<{ one: number }[]>`select 1 as one`;
  return { first: rows[0]?.one ?? null, length: rows.length, holes: rows.findIndex((row) => row !== undefined) };
}

/** A query that fails after some of its rows arrived (upstream #1119, #1181); then another on the same connection. */
async function errorMidStream() {
  const one = postgres(url as string, { max: 1, onnotice: () => {} });
  const failed = await one`select i, 1 / (300 - i) as boom from generate_series(1, 1000) i`.then(
    () => "resolved",
    codeOf,
  );
  const next = await nextQueryOn(one);
  await one.end({ timeout: 2 });
  return { failed, next };
}

/** A query cancelled while its rows stream (as statement_timeout does); then another on the same connection. */
async function cancelledMidStream() {
  const one = postgres(url as string, { max: 1, onnotice: () => {} });
  const [row] = await one<{ pid: number }[]>`select pg_backend_pid() as pid`;
  const streaming = one`select i, repeat('x', 200) as pad, pg_sleep(0.002) from generate_series(1, 3000) i`.then(
    () => "resolved",
    codeOf,
  );
  await Bun.sleep(1_500); // a few 8 KB flushes of rows have reached the client
  await admin`select pg_cancel_backend(${row?.pid ?? -1})`;
  const failed = await streaming;
  const next = await nextQueryOn(one);
  await one.end({ timeout: 2 });
  return { failed, next };
}

const scenarios: Record<string, () => Promise<Record<string, unknown>>> = {
  "error-mid-stream": errorMidStream,
  "cancelled-mid-stream": cancelledMidStream,
  "transaction-killed-mid-query": transactionKilledMidQuery,
  "transaction-killed-between-queries": transactionKilledBetweenQueries,
  "reservation-killed": reservationKilled,
};
const run = scenarios[scenario];
if (!run) throw new Error(`unknown scenario ${scenario}`);
const outcome = await run();
// Let any deferred write of the dead session fire: unpatched, this is where the process dies.
await Bun.sleep(300);
// The pool recovers: every connection answers again.
const after = await Promise.all(Array.from({ length: 4 }, () => sql`select 1 as one`.then(() => "ok", codeOf)));
console.log(JSON.stringify({ ...outcome, after }));
await Promise.all([sql.end({ timeout: 2 }), admin.end({ timeout: 2 })]);
process.exit(0);
