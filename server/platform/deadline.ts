/**
 * A step of a shutdown that may not hang it. pg-boss waits for its fetch loops when it stops,
 * and after the database dropped every connection (a failover, a connection-termination storm)
 * one of them can wait forever: the process then never exits on SIGTERM and is killed at the
 * end of its grace period. Each such step gets a deadline; past it the shutdown goes on (the
 * queue's heartbeats lapse and another process takes the jobs).
 */
import type { Logger } from "./logger.ts";

/** Waits for `work` at most `ms`; true when it finished, false (and a warning) when it did not. */
export async function withinDeadline(
  work: Promise<unknown>,
  ms: number,
  what: string,
  logger: Logger,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  try {
    const outcome = await Promise.race([work.then(() => "done" as const), late]);
    if (outcome === "late") logger.warn(`${what} did not finish in time; shutting down without it`, { ms });
    return outcome === "done";
  } finally {
    clearTimeout(timer);
  }
}
