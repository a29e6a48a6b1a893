/**
 * A monitor's schedule: `hourly`, `daily`, `weekly` or a 5-field cron expression (UTC), read
 * with cron-parser (as server/platform/cron.ts checks the configuration's), and the run times it
 * makes. Each run starts at its slot plus the monitor's jitter: a fixed offset from a hash of the
 * monitor's id, within a window proportional to the schedule's interval (10 % of it, at most 15
 * minutes), so sixty `daily` monitors do not all start at midnight's first second, and a
 * monitor's runs stay evenly spaced.
 */
import { createHash } from "node:crypto";
import { CronExpressionParser } from "cron-parser";
import type { SCHEDULE_KEYWORDS } from "../../../shared/monitors-api.ts";
import { cronProblem } from "../../platform/cron.ts";

/** What each keyword runs as: on the hour, at midnight, Monday at midnight (UTC). */
const KEYWORD_CRON: Record<(typeof SCHEDULE_KEYWORDS)[number], string> = {
  hourly: "0 * * * *",
  daily: "0 0 * * *",
  weekly: "0 0 * * 1",
};

/** The share of the interval the jitter may take, and its cap. */
export const JITTER_SHARE = 0.1;
export const MAX_JITTER_MS = 15 * 60_000;

export type ScheduleCheck = { ok: true; cron: string } | { ok: false; detail: string };

/** The schedule as a cron expression, or why it is not one a monitor can have. */
export function checkSchedule(schedule: string): ScheduleCheck {
  const text = schedule.trim();
  const keyword = KEYWORD_CRON[text.toLowerCase() as keyof typeof KEYWORD_CRON];
  if (keyword) return { ok: true, cron: keyword };
  const fields = text.split(/\s+/).length;
  // Monitors take minutes at the finest: no seconds field, no @aliases besides the keywords.
  if (text.startsWith("@") || fields !== 5)
    return {
      ok: false,
      detail: `schedule must be hourly, daily, weekly or a cron expression of 5 fields (minute hour day-of-month month day-of-week, UTC), got "${text.slice(0, 100)}"`,
    };
  const problem = cronProblem(text);
  if (problem) return { ok: false, detail: `schedule "${text.slice(0, 100)}" is not a cron expression: ${problem}` };
  return { ok: true, cron: text };
}

function cronOf(schedule: string): string {
  const checked = checkSchedule(schedule);
  if (!checked.ok) throw new Error(checked.detail);
  return checked.cron;
}

/** The first slot of the schedule strictly after `after`. */
export function nextSlot(schedule: string, after: Date): Date {
  return CronExpressionParser.parse(cronOf(schedule), { tz: "UTC", currentDate: after }).next().toDate();
}

/** The time from `slot` to the slot after it: the interval the jitter is a share of. */
export function intervalAfter(schedule: string, slot: Date): number {
  return nextSlot(schedule, slot).getTime() - slot.getTime();
}

/** The monitor's offset within [0, window): the same for every run, different across monitors. */
export function jitterMs(monitorId: string, intervalMs: number): number {
  const window = Math.min(Math.floor(intervalMs * JITTER_SHARE), MAX_JITTER_MS);
  if (window <= 0) return 0;
  const hash = createHash("sha256").update(monitorId).digest().readUInt32BE(0);
  return hash % window;
}

/** The next run after `after`: its slot and when it starts (the slot plus the monitor's jitter). */
export function nextRun(monitorId: string, schedule: string, after: Date): { slot: Date; runAt: Date } {
  const slot = nextSlot(schedule, after);
  const runAt = new Date(slot.getTime() + jitterMs(monitorId, intervalAfter(schedule, slot)));
  return { slot, runAt };
}
