/**
 * The last line of defence of `npm start`: an error that no code path caught is logged and
 * the process keeps serving. It is not how faults are handled — every known way a database,
 * Redis or socket error could reach here is handled where it starts (the patched postgres.js
 * driver, platform/db/transient.ts, the rate limiter's fallback) — but one unknown path must not take
 * the API and every analysis in flight down with it: the service keeps its state in the
 * database, so nothing in memory is left half-written that a restart would repair.
 *
 * Errors that keep coming are different: more than BURST within WINDOW_MS means the process is
 * broken for good, so it exits (1) for its supervisor (Docker's restart policy, systemd) to
 * start a fresh one.
 */
import type { Logger } from "./logger.ts";

const BURST = 20;
const WINDOW_MS = 60_000;

export function installProcessGuard(logger: Logger, exit: (code: number) => void = (code) => process.exit(code)) {
  const recent: number[] = [];
  const noted = (kind: string, error: unknown) => {
    const now = Date.now();
    recent.push(now);
    while (recent.length > 0 && (recent[0] as number) < now - WINDOW_MS) recent.shift();
    logger.error(`${kind}: kept serving`, {
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
      // postgres.js names the statement of a failed query (its text, not its parameters).
      query: (error as { query?: unknown } | null)?.query,
      in_last_minute: recent.length,
    });
    if (recent.length > BURST) {
      logger.error("too many uncaught errors in a minute: exiting for a fresh process", { limit: BURST });
      exit(1);
    }
  };
  const onException = (error: unknown) => noted("uncaught exception", error);
  const onRejection = (reason: unknown) => noted("unhandled rejection", reason);
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return () => {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
  };
}
