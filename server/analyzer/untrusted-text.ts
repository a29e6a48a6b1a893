/**
 * Text taken from an analyzed site is untrusted (docs/report.md): it is cleaned of control
 * characters and capped in length before it enters a report. Escaping for HTML, shells
 * or workflow commands is the job of whoever renders it; this only bounds and normalises.
 */
import { foldedText } from "../../shared/untrusted-text.ts";

export const MAX_SITE_TEXT = 300;

export function siteText(value: string | null | undefined, max = MAX_SITE_TEXT): string {
  return value ? foldedText(value, max) : "";
}

/** URLs from the site: same cleaning, a longer cap. */
export function siteUrl(value: string | null | undefined): string {
  return siteText(value, 2048);
}
