/**
 * Database errors that pass: the connection dropped (a restart, a failover, a terminated
 * backend), the server is starting or shutting down, a lock or a statement waited past
 * `lock_timeout` / `statement_timeout`, or a serialisation conflict. Retrying the same work a
 * moment later is right for all of them; the API answers them `503 unavailable` with
 * Retry-After (platform/http/errors.plugin.ts), never with a closed connection.
 */

/** postgres.js connection failures and the SQLSTATEs of a database that is briefly away or busy. */
const TRANSIENT_CODES = new Set([
  // postgres.js
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  // sockets
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EPIPE",
  "ETIMEDOUT",
  // SQLSTATE
  "08000", // connection_exception
  "08003", // connection_does_not_exist
  "08006", // connection_failure
  "57P01", // admin_shutdown (pg_terminate_backend)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up)
  "53300", // too_many_connections
  "55P03", // lock_not_available (lock_timeout)
  "57014", // query_canceled (statement_timeout)
  "40001", // serialization_failure
  "40P01", // deadlock_detected
]);

export function isTransientDbError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && TRANSIENT_CODES.has(code);
}

/** The longest pause between two tries of retryTransient. */
const MAX_PAUSE_MS = 1_000;

/**
 * Runs `work` until it succeeds, retrying transient database errors with a growing pause
 * (100 ms doubling to 1 s) until `deadline` (epoch ms) or `signal`; any other error, and the
 * last transient one, is thrown.
 */
export async function retryTransient<T>(
  work: () => Promise<T>,
  options: { deadline: number; signal?: AbortSignal },
): Promise<T> {
  let pause = 100;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!isTransientDbError(error) || options.signal?.aborted) throw error;
      if (Date.now() + pause > options.deadline) throw error;
      await Bun.sleep(pause);
      pause = Math.min(pause * 2, MAX_PAUSE_MS);
    }
  }
}
