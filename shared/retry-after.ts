/** Retry-After, read one way by the API client (shared/client.ts) and the analyzer (fetch/safe-client.ts). */

/**
 * Milliseconds to wait from a Retry-After header (RFC 9110 §10.2.3): delay-seconds, or an
 * HTTP-date (IMF-fixdate, and the obsolete RFC 850 and asctime forms Date.parse reads too),
 * measured against `now`; a date in the past is 0. Undefined when absent or unreadable, so the
 * caller falls back to its own backoff.
 */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP-date names a weekday or month; anything else (a negative or fractional number) is not one.
  if (!/[A-Za-z]/.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
