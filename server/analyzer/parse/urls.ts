/**
 * Resource URLs a page refers to: attributes of link/script/img/iframe, srcset entries,
 * and URLs inside inline scripts and styles — including JSON-escaped (`https:\/\/…`) and
 * protocol-relative (`//cdn…`) forms, which is where WordPress puts many of them.
 */
import { resolveUrl } from "../artifacts.ts";
import type { PageModel } from "./page.ts";

export type ResourceKind = "script" | "style" | "image" | "font" | "other";

export interface PageResource {
  url: URL;
  kind: ResourceKind;
  /**
   * Where it was found: `attribute` (a tag that loads it), `inline` (text of a script/style/HTML),
   * or `link`: only as the target of a link (`href="…"` outside <link rel=stylesheet|preload>) —
   * a page may link to another site's files without loading them.
   */
  from: "attribute" | "inline" | "link";
}

const MAX_RESOURCES = 1_000;
// Absolute, protocol-relative or root-relative URLs that look like static files or WordPress paths.
const INLINE_URL = /(?:https?:)?\/\/[a-z0-9.-]+(?::\d+)?\/[^\s"'<>()\\]*|\/wp-(?:content|includes)\/[^\s"'<>()\\]*/gi;

function kindOf(url: URL, hint?: ResourceKind): ResourceKind {
  if (hint) return hint;
  const path = url.pathname.toLowerCase();
  if (/\.(m?js)$/.test(path)) return "script";
  if (/\.css$/.test(path)) return "style";
  if (/\.(png|jpe?g|gif|webp|avif|svg|ico|bmp)$/.test(path)) return "image";
  if (/\.(woff2?|ttf|otf|eot)$/.test(path)) return "font";
  return "other";
}

/**
 * Scanning a large page for URLs is the most expensive step of detection (a 2 MB page
 * takes ~5 ms) and a dozen detectors and audits ask for the same page's resources: the
 * result is computed once per page model and base URL. Callers must treat it as read-only.
 */
const cache = new WeakMap<PageModel, Map<string, readonly PageResource[]>>();

export function pageResources(page: PageModel, html: string, baseUrl: string): readonly PageResource[] {
  let byBase = cache.get(page);
  if (!byBase) {
    byBase = new Map();
    cache.set(page, byBase);
  }
  let resources = byBase.get(baseUrl);
  if (!resources) {
    resources = scanResources(page, html, baseUrl);
    byBase.set(baseUrl, resources);
  }
  return resources;
}

function scanResources(page: PageModel, html: string, baseUrl: string): PageResource[] {
  const out: PageResource[] = [];
  const seen = new Set<string>();
  const add = (raw: string | undefined, from: PageResource["from"], hint?: ResourceKind) => {
    if (!raw || out.length >= MAX_RESOURCES) return;
    const url = resolveUrl(raw.replaceAll("\\/", "/").replace(/&amp;/g, "&"), baseUrl);
    if (!url) return;
    url.hash = "";
    const key = url.toString();
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ url, kind: kindOf(url, hint), from });
  };

  for (const link of page.links) {
    const rel = (link.attrs.rel ?? "").toLowerCase();
    if (rel.includes("stylesheet")) add(link.attrs.href, "attribute", "style");
    else if (rel.includes("preload") || rel.includes("modulepreload")) {
      const as = (link.attrs.as ?? "").toLowerCase();
      add(
        link.attrs.href,
        "attribute",
        as === "font"
          ? "font"
          : as === "script"
            ? "script"
            : as === "style"
              ? "style"
              : as === "image"
                ? "image"
                : undefined,
      );
    } else if (rel.includes("icon")) add(link.attrs.href, "attribute", "image");
  }
  for (const script of page.scripts) add(script.src ?? undefined, "attribute", "script");
  for (const image of page.images) {
    add(image.src ?? undefined, "attribute", "image");
    for (const candidate of (image.attrs.srcset ?? "").split(",").slice(0, 10)) {
      add(candidate.trim().split(/\s+/)[0], "attribute", "image");
    }
  }
  for (const frame of page.iframes) add(frame.attrs.src, "attribute", "other");

  // URLs in inline code and anywhere else in the markup (JSON-escaped slashes undone first).
  const text = html.length > 4_000_000 ? html.slice(0, 4_000_000) : html;
  const unescaped = text.replaceAll("\\/", "/");
  for (const match of unescaped.matchAll(INLINE_URL)) {
    if (out.length >= MAX_RESOURCES) break;
    const raw = match[0];
    // Only keep things that look like files or WordPress paths, not every link in the page.
    if (
      !/\.(m?js|css|png|jpe?g|gif|webp|avif|svg|woff2?|ttf|otf|eot)(\?|$)/i.test(raw) &&
      !/\/wp-(content|includes)\//i.test(raw)
    ) {
      continue;
    }
    add(
      raw,
      /\bhref\s*=\s*["']?$/i.test(unescaped.slice(Math.max(0, match.index - 8), match.index)) ? "link" : "inline",
    );
  }
  return out;
}

/** A %-escaped path segment as text; a malformed escape is kept as written. */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
