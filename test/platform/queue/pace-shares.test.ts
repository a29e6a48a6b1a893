/**
 * The shares of a target's requests per second (server/reports/pace-shares.ts): whatever
 * analyses hold a key's slots, their shares add up to at most TARGET_MAX_RPS.
 */
import { expect, test } from "bun:test";
import { analysisShare, slotShare, slotShares } from "../../../server/reports/pace-shares.ts";

test("a key's slot shares add up to the rate; slot 0 gets half, the others share the rest", () => {
  expect(slotShares(60, 2)).toEqual([30, 30]);
  expect(slotShares(60, 4)).toEqual([30, 10, 10, 10]);
  expect(slotShares(20, 4)).toEqual([11, 3, 3, 3]);
  expect(slotShares(60, 1)).toEqual([60]);
  for (const rate of [1, 2, 3, 7, 20, 59, 60, 61, 1000, 10_000]) {
    for (const limit of [1, 2, 3, 4, 5, 10, 50, 200]) {
      const shares = slotShares(rate, limit);
      const sum = shares.reduce((a, b) => a + b, 0);
      expect(shares).toHaveLength(limit);
      expect(Math.min(...shares)).toBeGreaterThanOrEqual(1);
      expect(shares.every(Number.isInteger)).toBe(true);
      // Exactly the rate, unless every slot's one request a second is already more.
      expect(sum).toBe(Math.max(rate, limit));
      // The analysis alone on the target keeps half the rate (when there is a rate to halve).
      if (rate >= 2 * (limit - 1)) expect(shares[0] as number).toBeGreaterThanOrEqual(Math.floor(rate / 2));
    }
  }
});

test("a slot numbered past the limit (the limit was lowered) gets the smallest share", () => {
  expect(slotShare(60, 4, 7)).toBe(10);
  expect(slotShare(60, 4, 0)).toBe(30);
});

test("an analysis keeps the smallest share of its keys; an unknown slot counts as the smallest", () => {
  const limitOf = (key: string) => (key.startsWith("addr:") ? 4 : 2);
  const keys = ["host:a.test", "addr:10.0.0.1"];
  // Alone on its host and address: half the rate.
  expect(
    analysisShare(
      60,
      keys,
      new Map([
        ["host:a.test", 0],
        ["addr:10.0.0.1", 0],
      ]),
      limitOf,
    ),
  ).toBe(30);
  // Second on the address: its address share.
  expect(
    analysisShare(
      60,
      keys,
      new Map([
        ["host:a.test", 1],
        ["addr:10.0.0.1", 1],
      ]),
      limitOf,
    ),
  ).toBe(10);
  expect(analysisShare(60, keys, new Map([["host:a.test", 0]]), limitOf)).toBe(10);
  expect(analysisShare(0, keys, new Map(), limitOf)).toBe(0);
});
