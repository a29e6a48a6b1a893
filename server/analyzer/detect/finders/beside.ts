/**
 * Comments printed right beside a plugin's own files: a plugin that credits itself prints
 * its comment next to the `<script>` or `<link>` it enqueues (`<!-- Simple Events Calendar
 * 1.3.5 by … -->` then `…/plugins/simple-events-cal/…`), so a credit there is that plugin's,
 * whatever other plugin its words could be read as (resolve.ts). "Beside" is strict: only
 * whitespace between the comment and the tag, and the tag(s) on either side load files of
 * one plugin folder only.
 */
import { MAX_COMMENT_LENGTH } from "../../parse/page.ts";

/** Comments looked at, and how far around each one the adjacent tag is looked for. */
const MAX_COMMENTS = 200;
const LOOK_AROUND = 1_000;
const TAG_AFTER = /^\s*<(?:script|link)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']{1,2000})["']/i;
const TAG_BEFORE = /<(?:script|link)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']{1,2000})["'][^>]*>(?:\s*<\/script>)?\s*$/i;

/**
 * Comment text (as the page model keeps it) → the plugin folder whose file is loaded right
 * beside it. `assets` are the plugin folders the page loads files from, with their URLs.
 */
export function commentsBesideAssets(
  html: string,
  baseUrl: string,
  assets: ReadonlyMap<string, readonly string[]>,
): Map<string, string> {
  const owner = new Map<string, string>();
  for (const [slug, urls] of assets) for (const url of urls) owner.set(url, slug);
  const slugOf = (raw: string | undefined): string | undefined => {
    if (!raw) return undefined;
    try {
      return owner.get(new URL(raw.replace(/&amp;/g, "&"), baseUrl).toString());
    } catch {
      return undefined;
    }
  };
  const beside = new Map<string, string>();
  const ambiguous = new Set<string>();
  // indexOf, not a regular expression: a hostile page of unclosed "<!--" stays linear.
  let from = 0;
  for (let seen = 0; seen < MAX_COMMENTS; seen++) {
    const start = html.indexOf("<!--", from);
    if (start < 0) break;
    const close = html.indexOf("-->", start + 4);
    if (close < 0) break;
    const end = close + 3;
    from = end;
    const after = slugOf(TAG_AFTER.exec(html.slice(end, end + LOOK_AROUND))?.[1]);
    const before = slugOf(TAG_BEFORE.exec(html.slice(Math.max(0, start - LOOK_AROUND), start))?.[1]);
    const slugs = new Set([after, before].filter((slug): slug is string => slug !== undefined));
    const text = html.slice(start + 4, Math.min(close, start + 4 + MAX_COMMENT_LENGTH));
    if (slugs.size !== 1 || ambiguous.has(text)) continue;
    const slug = [...slugs][0] as string;
    // The same text beside two plugins' files says nothing of which it is.
    if (beside.has(text) && beside.get(text) !== slug) {
      beside.delete(text);
      ambiguous.add(text);
    } else beside.set(text, slug);
  }
  return beside;
}
