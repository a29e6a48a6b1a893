/**
 * When a failed webhook delivery is tried again: the delays after the first attempt, one per
 * retry. The default is 8 retries over about 23 hours, each delay 3–5 times the one before
 * (exponential backoff), so a short outage costs seconds and a long one is not hammered.
 * WEBHOOK_RETRY_SCHEDULE replaces it (tests use seconds).
 */
export const DEFAULT_RETRY_SCHEDULE = "30s,2m,10m,30m,1h,3h,6h,12h";

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;
const MAX_RETRIES = 20;
const MAX_DELAY_MS = 48 * 3_600_000;

/** `30s,2m,1h` → delays in ms; a problem sentence for anything else. */
export function parseRetrySchedule(text: string): { delaysMs: number[]; problem?: string } {
  const parts = text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const problem = `must be 1–${MAX_RETRIES} delays such as "30s,2m,10m,1h" (s, m or h; each at most 48h), got "${text}"`;
  if (parts.length === 0 || parts.length > MAX_RETRIES) return { delaysMs: [], problem };
  const delaysMs: number[] = [];
  for (const part of parts) {
    const match = /^(\d{1,6})(s|m|h)$/.exec(part);
    if (!match) return { delaysMs: [], problem };
    const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
    if (ms < 1_000 || ms > MAX_DELAY_MS) return { delaysMs: [], problem };
    delaysMs.push(ms);
  }
  return { delaysMs };
}
