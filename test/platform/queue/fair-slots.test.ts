/**
 * Issue 30, item 1: the fair order of a target's slots, decided in the database on both
 * backends (Slots.claimTargets, reports/fair-order.ts):
 * - the next free slot goes to the waiting account holding the fewest of the target's slots,
 *   whichever job asks — a flood's 38 waiting jobs do not outdraw another account's one;
 * - ties go to the oldest job;
 * - while another account waits, no account takes more than half of the target's slots;
 * - claims made at once (as by several worker processes) never put more than the limit on a key.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { fairGrants } from "../../../server/reports/fair-order.ts";
import { Slots } from "../../../server/reports/slots.ts";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../../helpers/databases.ts";

setDefaultTimeout(120_000);

const HOST = "host:shared.test";
const ADDRESS = "addr:10.0.0.7";
const limitOf = (key: string) => (key.startsWith("addr:") ? 4 : 2);

describe.each(BACKENDS)("fair target slots on %s", (backend) => {
  let db: TestDatabase;
  let slots: Slots;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    slots = new Slots(db.sql, 60_000);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  const clear = async () => {
    await db.sql`delete from host_slots`;
    await db.sql`delete from target_waits`;
  };
  let clock = Date.parse("2026-01-01T00:00:00Z");
  /** A job of `account` created now (each one a second after the last: older first). */
  const job = (reportId: string, accountId: string) => {
    clock += 1000;
    return { reportId, accountId, since: new Date(clock) };
  };
  const holders = async (key: string) =>
    (
      await db.sql<{ report_id: string }[]>`select report_id from host_slots where host = ${key} order by report_id`
    ).map((row) => row.report_id);

  test("a freed slot goes to the account holding none, not to the flood's next job, whoever asks", async () => {
    await clear();
    const keys = [HOST, ADDRESS];
    const flood = Array.from({ length: 38 }, (_, i) => job(`flood_${String(i).padStart(2, "0")}`, "acc_flood"));
    expect(await slots.claimTargets(keys, limitOf, flood[0] as (typeof flood)[number])).toBe(true);
    expect(await slots.claimTargets(keys, limitOf, flood[1] as (typeof flood)[number])).toBe(true);
    for (const claimant of flood.slice(2)) expect(await slots.claimTargets(keys, limitOf, claimant)).toBe(false);
    // Another account's job arrives last, behind 36 waiting jobs of the flood.
    const victim = job("victim", "acc_victim");
    expect(await slots.claimTargets(keys, limitOf, victim)).toBe(false);

    // One flood analysis ends. Every waiting flood job polls before the victim's job does:
    // none of them gets the slot, which is the victim's.
    await slots.releaseAll(keys, "flood_00");
    for (const claimant of flood.slice(2)) expect(await slots.claimTargets(keys, limitOf, claimant)).toBe(false);
    expect(await slots.claimTargets(keys, limitOf, victim)).toBe(true);
    expect(await holders(HOST)).toEqual(["flood_01", "victim"]);
    // With the victim running, the flood takes the next free slot again, oldest job first.
    await slots.releaseAll(keys, "flood_01");
    expect(await slots.claimTargets(keys, limitOf, flood[37] as (typeof flood)[number])).toBe(false);
    expect(await slots.claimTargets(keys, limitOf, flood[2] as (typeof flood)[number])).toBe(true);
  });

  test("ties between accounts holding as many slots go to the oldest job", async () => {
    await clear();
    const keys = [HOST];
    const older = job("older", "acc_b");
    const newer = job("newer", "acc_c");
    expect(await slots.claimTargets(keys, limitOf, job("first", "acc_a"))).toBe(true);
    expect(await slots.claimTargets(keys, limitOf, job("second", "acc_a"))).toBe(true);
    expect(await slots.claimTargets(keys, limitOf, newer)).toBe(false);
    expect(await slots.claimTargets(keys, limitOf, older)).toBe(false);
    await slots.releaseAll(keys, "first");
    expect(await slots.claimTargets(keys, limitOf, newer)).toBe(false);
    expect(await slots.claimTargets(keys, limitOf, older)).toBe(true);
  });

  test("while another account waits, no account takes more than half of an address's slots", async () => {
    await clear();
    // Two dead hosts of one account on one address (4 slots), and another account's site on
    // the same address whose own host is busy for now (held by a third account's analyses).
    const floodA = [HOST.replace("shared", "dead-a"), ADDRESS];
    const floodB = [HOST.replace("shared", "dead-b"), ADDRESS];
    const other = ["host:live.test", ADDRESS];
    expect(await slots.claimTargets(["host:live.test"], limitOf, job("busy_1", "acc_third"))).toBe(true);
    expect(await slots.claimTargets(["host:live.test"], limitOf, job("busy_2", "acc_third"))).toBe(true);
    const victim = job("victim", "acc_victim");
    expect(await slots.claimTargets(other, limitOf, victim)).toBe(false);
    // The flood asks for 4 analyses on the address: it gets 2, half, though 4 are free.
    const flood = [
      [floodA, job("flood_1", "acc_flood")],
      [floodA, job("flood_2", "acc_flood")],
      [floodB, job("flood_3", "acc_flood")],
      [floodB, job("flood_4", "acc_flood")],
    ] as const;
    const granted: boolean[] = [];
    for (const [keys, claimant] of flood) granted.push(await slots.claimTargets(keys, limitOf, claimant));
    expect(granted.filter(Boolean)).toHaveLength(2);
    expect(await holders(ADDRESS)).toHaveLength(2);
    // The victim's host frees: it takes one of the two address slots the flood could not.
    await slots.releaseAll(["host:live.test"], "busy_1");
    expect(await slots.claimTargets(other, limitOf, victim)).toBe(true);
    // No one else waits now: the flood may use the address's last slot.
    const waiting = flood.filter((_, i) => !granted[i]);
    const more: boolean[] = [];
    for (const [keys, claimant] of waiting) more.push(await slots.claimTargets(keys, limitOf, claimant));
    expect(more.filter(Boolean)).toHaveLength(1);
    expect(await holders(ADDRESS)).toHaveLength(4);
  });

  test("claims at once never put more than the limit on a key", async () => {
    await clear();
    const keys = [HOST, ADDRESS];
    const claimants = Array.from({ length: 12 }, (_, i) => job(`at_once_${i}`, `acc_${i % 3}`));
    // Separate Slots objects, as separate worker processes have.
    const results = await Promise.all(
      claimants.map((claimant) => new Slots(db.sql, 60_000).claimTargets(keys, limitOf, claimant)),
    );
    expect(results.filter(Boolean)).toHaveLength(2);
    const host = await holders(HOST);
    expect(host).toHaveLength(2);
    expect(new Set(host).size).toBe(2);
    expect(await holders(ADDRESS)).toEqual(host);
    // The other ten wait, each once.
    const waits = await db.sql<{ n: number }[]>`select count(distinct report_id)::int as n from target_waits`;
    expect(waits[0]?.n).toBe(10);
  });
});

test("fair order, pure: each grant is counted before the next is chosen (one slot per account per round)", () => {
  const since = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  const waiters = [
    { reportId: "a1", accountId: "a", since: since(1), keys: ["addr:x"] },
    { reportId: "a2", accountId: "a", since: since(2), keys: ["addr:x"] },
    { reportId: "a3", accountId: "a", since: since(3), keys: ["addr:x"] },
    { reportId: "b1", accountId: "b", since: since(4), keys: ["addr:x"] },
    { reportId: "c1", accountId: "c", since: since(5), keys: ["addr:x"] },
  ];
  // 4 free slots, three accounts waiting: a, b, c, then a's second (a's third would pass half).
  const grants = fairGrants(waiters, [], () => 4);
  expect(grants.map((grant) => grant.reportId)).toEqual(["a1", "b1", "c1", "a2"]);
  expect(grants.map((grant) => grant.slots[0]?.slot)).toEqual([0, 1, 2, 3]);
});
