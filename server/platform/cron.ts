/**
 * Cron expressions of the configuration (INTEL_REFRESH_CRON, …), checked at start-up with
 * cron-parser — the parser pg-boss evaluates schedules with, called the way pg-boss calls it —
 * so an expression that passes here is one the queue can run, and one that does not stops the
 * start with the variable's name instead of crashing it later inside `boss.schedule`.
 */
import { CronExpressionParser } from "cron-parser";

/** Minute, hour, day of month, month, day of week — and optionally seconds first. */
const FIELD_COUNTS = [5, 6];

/** Why `expression` is not a cron expression the queue can run (UTC), or undefined when it is. */
export function cronProblem(expression: string): string | undefined {
  const text = expression.trim();
  const fields = text.split(/\s+/).length;
  // cron-parser reads a missing field as `*`: "0 6 * *" would run every minute of a day,
  // which nobody means. Aliases (@daily, @hourly…) are one word.
  if (!text.startsWith("@") && !FIELD_COUNTS.includes(fields)) {
    return `it has ${fields} field${fields === 1 ? "" : "s"}; a cron expression has 5 (minute hour day-of-month month day-of-week)`;
  }
  try {
    CronExpressionParser.parse(text, { tz: "UTC", strict: false });
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/\.$/, "");
  }
}
