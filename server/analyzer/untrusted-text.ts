/**
 * Text taken from an analysed site is untrusted (docs/report.md): it is cleaned of control
 * characters and capped in length before it enters a report. Escaping for HTML, shells
 * or workflow commands is the job of whoever renders it; this only bounds and normalises.
 */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

export const MAX_SITE_TEXT = 300;

export function siteText(value: string | null | undefined, max = MAX_SITE_TEXT): string {
  if (!value) return "";
  const cleaned = value.replace(CONTROL, "").replace(/\s+/g, " ").trim();
  return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned;
}

/** URLs from the site: same cleaning, a longer cap. */
export function siteUrl(value: string | null | undefined): string {
  return siteText(value, 2048);
}
