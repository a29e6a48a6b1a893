/**
 * Monitor schedules (monitoring/monitors/schedule.ts): keywords and 5-field cron expressions
 * accepted, anything else refused with a sentence naming the field; each run at its slot plus a
 * per-monitor jitter that is deterministic, within 10 % of the interval (at most 15 minutes),
 * and spreads monitors of one schedule apart.
 */
import { describe, expect, test } from "bun:test";
import {
  checkSchedule,
  jitterMs,
  MAX_JITTER_MS,
  nextRun,
  nextSlot,
} from "../../server/monitoring/monitors/schedule.ts";

const at = (iso: string) => new Date(iso);

describe("monitor schedules", () => {
  test("keywords and 5-field cron expressions are schedules; the rest is refused, naming schedule", () => {
    expect(checkSchedule("daily")).toEqual({ ok: true, cron: "0 0 * * *" });
    expect(checkSchedule(" Hourly ")).toEqual({ ok: true, cron: "0 * * * *" });
    expect(checkSchedule("weekly")).toEqual({ ok: true, cron: "0 0 * * 1" });
    expect(checkSchedule("*/15 6-18 * * 1-5")).toEqual({ ok: true, cron: "*/15 6-18 * * 1-5" });
    for (const bad of ["", "sometimes", "0 6 * *", "0 0 6 * * *", "@daily", "61 * * * *", "0 25 * * *"]) {
      const checked = checkSchedule(bad);
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(checked.detail).toStartWith("schedule");
    }
  });

  test("slots follow the expression in UTC", () => {
    expect(nextSlot("daily", at("2026-11-26T13:00:00Z")).toISOString()).toBe("2026-11-27T00:00:00.000Z");
    expect(nextSlot("weekly", at("2026-11-26T13:00:00Z")).toISOString()).toBe("2026-11-30T00:00:00.000Z");
    expect(nextSlot("30 6 * * *", at("2026-11-26T06:30:00Z")).toISOString()).toBe("2026-11-27T06:30:00.000Z");
    expect(nextSlot("* * * * *", at("2026-11-26T06:30:10Z")).toISOString()).toBe("2026-11-26T06:31:00.000Z");
  });

  test("the jitter is the monitor's own, within 10 % of the interval and at most 15 minutes", () => {
    // Fixed ids (of the shape newId makes), so that the spread checked below is the same every run.
    const ids = Array.from({ length: 60 }, (_, i) => `mon_${i.toString(32).padStart(26, "0")}`);
    for (const id of ids) {
      expect(jitterMs(id, 60_000)).toBe(jitterMs(id, 60_000));
      expect(jitterMs(id, 60_000)).toBeLessThan(6_000);
      expect(jitterMs(id, 86_400_000)).toBeLessThan(MAX_JITTER_MS);
    }
    // Sixty daily monitors start at sixty different seconds (or nearly: a collision of two is
    // possible, not of many).
    const seconds = new Set(ids.map((id) => Math.floor(jitterMs(id, 86_400_000) / 1000)));
    expect(seconds.size).toBeGreaterThan(55);
    const run = nextRun(ids[0] as string, "daily", at("2026-11-26T13:00:00Z"));
    expect(run.slot.toISOString()).toBe("2026-11-27T00:00:00.000Z");
    expect(run.runAt.getTime() - run.slot.getTime()).toBe(jitterMs(ids[0] as string, 86_400_000));
  });
});
