/**
 * A 429 is asked once more after its Retry-After (or RATE_LIMIT_DEFAULT_WAIT_MS without one),
 * when that wait fits the report: at most RATE_LIMIT_MAX_WAIT_MS, and at most
 * RATE_LIMIT_RETRIES retries per analysis, so a site that answers 429 to everything costs a
 * bounded number of requests and seconds. A 429 that persists is the answer: the probes that
 * met it say "not checked" (extract/obstacles.ts).
 */
export const RATE_LIMIT_MAX_WAIT_MS = 5_000;
export const RATE_LIMIT_DEFAULT_WAIT_MS = 1_000;
export const RATE_LIMIT_RETRIES = 12;
