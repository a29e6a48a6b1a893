/** Reading caching headers: how long may a response be cached? */

/** Seconds from s-maxage/max-age, else Expires − Date; null when not cacheable or unknown. */
export function maxAgeOf(headers: Record<string, string>): number | null {
  const cacheControl = (headers["cache-control"] ?? "").toLowerCase();
  if (/\b(no-store|no-cache|private)\b/.test(cacheControl)) return null;
  const directive = /\bs-maxage\s*=\s*(\d+)/.exec(cacheControl) ?? /\bmax-age\s*=\s*(\d+)/.exec(cacheControl);
  if (directive?.[1]) {
    const seconds = Number(directive[1]);
    return seconds > 0 ? seconds : null;
  }
  const expires = Date.parse(headers.expires ?? "");
  if (Number.isFinite(expires)) {
    const date = Date.parse(headers.date ?? "");
    const seconds = Math.round((expires - (Number.isFinite(date) ? date : Date.now())) / 1000);
    return seconds > 0 ? seconds : null;
  }
  return null;
}
