/**
 * The page model: everything detectors and audits need from an HTML document, collected
 * in one streaming pass with htmlparser2 — no DOM is built.
 *
 * Why not a DOM: a 2 MB page parses into a DOM in ~50 ms and hostile pages (50 000 nested
 * elements) make deep trees; a single SAX pass is ~2× faster, needs a fraction of the
 * memory and has no recursion. Every list is capped, and every string taken from the page
 * is length-capped, because the page is untrusted input.
 */
import { Parser } from "htmlparser2";

export interface PageTag {
  /** Attributes with lower-case names; values as written (entities decoded). */
  attrs: Record<string, string>;
  /** True when the element appeared inside <head>. */
  inHead: boolean;
}

export interface PageScript extends PageTag {
  src: string | null;
  /** Inline script text (capped at MAX_INLINE per script), empty for external scripts. */
  text: string;
}

export interface PageImage extends PageTag {
  src: string | null;
}

export interface PageModel {
  lang: string | null;
  title: string | null;
  /** <meta> tags in document order. */
  metas: PageTag[];
  links: PageTag[];
  scripts: PageScript[];
  styles: { inHead: boolean; length: number }[];
  images: PageImage[];
  iframes: PageTag[];
  headings: { h1: string[]; h2: number; h3: number };
  /** HTML comments (capped), e.g. page-cache and plugin signatures. */
  comments: string[];
  /** `<input type="hidden">` tags (capped): forms of plugins carry their version in some. */
  hiddenInputs: PageTag[];
  /**
   * Elements with a `data-*` attribute whose name speaks of a version (`data-version`,
   * `data-foo-ver`), with only their id, class and those attributes (capped).
   */
  versionAttributes: PageTag[];
  bodyClass: string;
  /** schema.org microdata itemtype values. */
  itemTypes: string[];
  /** Number of elements seen (a size signal; counting stops at the cap). */
  elementCount: number;
  /** True when a cap was hit and the model is partial. */
  capped: boolean;
}

const MAX_ITEMS = 2_000;
const MAX_INLINE = 100_000;
const MAX_COMMENTS = 200;
export const MAX_COMMENT_LENGTH = 2_000;
const MAX_TEXT = 500;
/** Hidden inputs and version-bearing elements kept: real pages have a handful. */
const MAX_MARKED = 200;
const VERSION_ATTRIBUTE = /^data-(?:[a-z0-9_-]*[_-])?ver(?:sion)?$/;

const HEAD_ONLY_END = new Set(["body"]);

/** Parses an HTML document into the page model. Never throws on bad input. */
export function parsePage(html: string): PageModel {
  const page: PageModel = {
    lang: null,
    title: null,
    metas: [],
    links: [],
    scripts: [],
    styles: [],
    images: [],
    iframes: [],
    headings: { h1: [], h2: 0, h3: 0 },
    comments: [],
    hiddenInputs: [],
    versionAttributes: [],
    bodyClass: "",
    itemTypes: [],
    elementCount: 0,
    capped: false,
  };
  let inHead = true;
  let inTitle = false;
  let title = "";
  let currentScript: PageScript | null = null;
  let currentStyle: { inHead: boolean; length: number } | null = null;
  let h1Depth = 0;
  let h1Text = "";

  const push = <T>(list: T[], item: T) => {
    if (list.length < MAX_ITEMS) list.push(item);
    else page.capped = true;
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        page.elementCount += 1;
        const attrs = attributes as Record<string, string>;
        if (page.versionAttributes.length < MAX_MARKED) markVersionAttributes(page, attrs, inHead);
        if (attrs.itemtype && page.itemTypes.length < 50) page.itemTypes.push(attrs.itemtype.slice(0, 200));
        switch (name) {
          case "html":
            if (attrs.lang && page.lang === null) page.lang = attrs.lang.slice(0, 35);
            break;
          case "head":
            inHead = true;
            break;
          case "body":
            inHead = false;
            if (!page.bodyClass && attrs.class) page.bodyClass = attrs.class.slice(0, 2_000);
            break;
          case "title":
            if (page.title === null) inTitle = true;
            break;
          case "meta":
            push(page.metas, { attrs, inHead });
            break;
          case "link":
            push(page.links, { attrs, inHead });
            break;
          case "script":
            currentScript = { attrs, inHead, src: attrs.src ?? null, text: "" };
            push(page.scripts, currentScript);
            break;
          case "style":
            currentStyle = { inHead, length: 0 };
            push(page.styles, currentStyle);
            break;
          case "img":
            push(page.images, { attrs, inHead, src: attrs.src ?? attrs["data-src"] ?? null });
            break;
          case "iframe":
            push(page.iframes, { attrs, inHead });
            break;
          case "input":
            if ((attrs.type ?? "").toLowerCase() === "hidden" && page.hiddenInputs.length < MAX_MARKED)
              page.hiddenInputs.push({ attrs, inHead });
            break;
          case "h1":
            h1Depth += 1;
            break;
          case "h2":
            page.headings.h2 += 1;
            break;
          case "h3":
            page.headings.h3 += 1;
            break;
          default:
            // Content elements before <body> mean the parser left <head> (HTML's implicit body).
            if (inHead && !["base", "noscript", "template", "object"].includes(name)) inHead = false;
        }
      },
      ontext(text) {
        if (inTitle) {
          if (title.length < MAX_TEXT * 2) title += text;
        } else if (currentScript) {
          if (currentScript.text.length < MAX_INLINE)
            currentScript.text += text.slice(0, MAX_INLINE - currentScript.text.length);
        } else if (currentStyle) {
          currentStyle.length += text.length;
        } else if (h1Depth > 0 && h1Text.length < MAX_TEXT) {
          h1Text += text;
        }
      },
      onclosetag(name) {
        if (name === "title" && inTitle) {
          inTitle = false;
          page.title = title.replace(/\s+/g, " ").trim().slice(0, MAX_TEXT);
        } else if (name === "script") {
          currentScript = null;
        } else if (name === "style") {
          currentStyle = null;
        } else if (name === "h1" && h1Depth > 0) {
          h1Depth -= 1;
          if (h1Depth === 0) {
            push(page.headings.h1, h1Text.replace(/\s+/g, " ").trim().slice(0, MAX_TEXT));
            h1Text = "";
          }
        } else if (HEAD_ONLY_END.has(name)) {
          inHead = false;
        } else if (name === "head") {
          inHead = false;
        }
      },
      oncomment(data) {
        if (page.comments.length < MAX_COMMENTS) page.comments.push(data.slice(0, MAX_COMMENT_LENGTH));
        else page.capped = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  try {
    parser.write(html);
    parser.end();
  } catch {
    page.capped = true; // htmlparser2 is lenient; this only guards against the unexpected
  }
  if (inTitle && page.title === null) page.title = title.replace(/\s+/g, " ").trim().slice(0, MAX_TEXT);
  return page;
}

/** Keeps an element's id, class and version-naming data attributes, when it has any of the latter. */
function markVersionAttributes(page: PageModel, attrs: Record<string, string>, inHead: boolean): void {
  let kept: Record<string, string> | undefined;
  for (const name in attrs) {
    if (name.length > 60 || !name.startsWith("data-") || !VERSION_ATTRIBUTE.test(name)) continue;
    kept ??= {};
    kept[name] = (attrs[name] ?? "").slice(0, 100);
  }
  if (!kept) return;
  if (attrs.id) kept.id = attrs.id.slice(0, 200);
  if (attrs.class) kept.class = attrs.class.slice(0, 500);
  page.versionAttributes.push({ attrs: kept, inHead });
}

/** Content of the first <meta> whose name/property/http-equiv matches (case-insensitive). */
export function metaContent(page: PageModel, key: string): string | null {
  const wanted = key.toLowerCase();
  for (const meta of page.metas) {
    const name = (meta.attrs.name ?? meta.attrs.property ?? meta.attrs["http-equiv"] ?? "").toLowerCase();
    if (name === wanted) return meta.attrs.content ?? "";
  }
  return null;
}

/** All <meta> contents whose name/property matches. */
export function metaContents(page: PageModel, key: string): string[] {
  const wanted = key.toLowerCase();
  return page.metas
    .filter(
      (meta) => (meta.attrs.name ?? meta.attrs.property ?? meta.attrs["http-equiv"] ?? "").toLowerCase() === wanted,
    )
    .map((meta) => meta.attrs.content ?? "");
}

/** <link> tags whose rel list contains `rel` (case-insensitive). */
export function linksWithRel(page: PageModel, rel: string): PageTag[] {
  const wanted = rel.toLowerCase();
  return page.links.filter((link) => (link.attrs.rel ?? "").toLowerCase().split(/\s+/).includes(wanted));
}

const cache = new WeakMap<object, PageModel>();

/**
 * The page model of an artifact, parsed once however many detectors and audits ask.
 * Keyed by the artifact object, so it is freed with it.
 */
export function pageOf(artifact: { body: string }): PageModel {
  let page = cache.get(artifact);
  if (!page) {
    page = parsePage(artifact.body);
    cache.set(artifact, page);
  }
  return page;
}
