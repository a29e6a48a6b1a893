/** The SEO facts of a report, from the homepage, robots.txt and the sitemaps. */
import robotsParser from "robots-parser";
import type { SeoInfo } from "../../../shared/report.ts";
import { resolveUrl } from "../artifacts.ts";
import type { Detected } from "../facts.ts";
import { linksWithRel, metaContent, type PageModel, pageOf } from "../parse/page.ts";
import { probeValues } from "../probe-keys.ts";
import { siteText, siteUrl } from "../untrusted-text.ts";
import { isHtml } from "./soft-404.ts";

const MAX_TYPES = 50;

/** schema.org @type values in JSON-LD blocks (including @graph) and microdata. */
export function structuredDataTypes(page: PageModel): string[] {
  const types = new Set<string>();
  const visit = (node: unknown, depth: number) => {
    if (depth > 20 || types.size >= MAX_TYPES || !node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node.slice(0, 200)) visit(item, depth + 1);
      return;
    }
    const record = node as Record<string, unknown>;
    const type = record["@type"];
    for (const value of Array.isArray(type) ? type : [type]) {
      if (typeof value === "string" && types.size < MAX_TYPES)
        types.add(siteText(value.replace(/^https?:\/\/schema\.org\//, ""), 60));
    }
    for (const value of Object.values(record)) if (value && typeof value === "object") visit(value, depth + 1);
  };
  for (const script of page.scripts) {
    if ((script.attrs.type ?? "").toLowerCase() !== "application/ld+json" || !script.text) continue;
    try {
      visit(JSON.parse(script.text), 0);
    } catch {
      // invalid JSON-LD: an audit can report it; no types from it
    }
  }
  for (const itemType of page.itemTypes) {
    for (const value of itemType.split(/\s+/)) {
      const name = /schema\.org\/([A-Za-z]+)/.exec(value)?.[1];
      if (name && types.size < MAX_TYPES) types.add(name);
    }
  }
  return [...types];
}

function prefixedMetas(page: PageModel, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const meta of page.metas) {
    const key = (meta.attrs.property ?? meta.attrs.name ?? "").toLowerCase();
    if (!key.startsWith(prefix) || key in out || Object.keys(out).length >= 30) continue;
    out[siteText(key, 60)] = siteText(meta.attrs.content ?? "", 300);
  }
  return out;
}

export function extractSeo({ artifacts, plugins }: Detected): SeoInfo {
  const { homepage } = artifacts;
  const page = pageOf(homepage);
  const title = page.title ? siteText(page.title, 300) : null;
  const description = metaContent(page, "description");
  const robotsMeta = metaContent(page, "robots");
  const xRobots = homepage.headers["x-robots-tag"] ?? null;
  const canonicalHref = linksWithRel(page, "canonical")[0]?.attrs.href;
  const canonical = resolveUrl(canonicalHref, homepage.url);

  const robotsAnswer = artifacts.probes.robots;
  const robotsPresent = robotsAnswer?.status === 200 && !isHtml(robotsAnswer);
  let disallowsAll = false;
  let robotsSitemaps: string[] = [];
  if (robotsPresent && robotsAnswer) {
    const robots = robotsParser(robotsAnswer.url, robotsAnswer.body.slice(0, 500_000));
    disallowsAll =
      robots.isDisallowed(new URL("/", homepage.url).toString(), "*") === true &&
      robots.isDisallowed(homepage.url, "Googlebot") === true;
    robotsSitemaps = robots
      .getSitemaps()
      .slice(0, 20)
      .map((url: string) => siteUrl(url));
  }

  const sitemaps = probeValues(artifacts.probes, "sitemap").map(([url, answer]) => {
    const head = answer.body.slice(0, 5_000);
    const valid = answer.status === 200 && /<(urlset|sitemapindex)\b/i.test(head);
    return {
      url: siteUrl(url),
      status: answer.status,
      valid,
      entries: valid ? Math.min((answer.body.match(/<loc>/gi) ?? []).length, 1_000_000) : 0,
    };
  });

  const seoPlugin = plugins.find((plugin) => plugin.category === "seo" && plugin.slug !== "redirection")?.name ?? null;
  const images = page.images.filter((image) => !image.inHead);
  const charset =
    page.metas.find((meta) => meta.attrs.charset)?.attrs.charset ??
    /charset\s*=\s*"?([\w-]+)/i.exec(metaContent(page, "content-type") ?? "")?.[1] ??
    /charset\s*=\s*"?([\w-]+)/i.exec(homepage.headers["content-type"] ?? "")?.[1] ??
    null;
  return {
    title,
    title_length: title?.length ?? 0,
    meta_description: description === null ? null : siteText(description, 500),
    meta_description_length: description === null ? 0 : siteText(description, 10_000).length,
    canonical: canonical ? siteUrl(canonical.toString()) : null,
    robots_meta: robotsMeta === null ? null : siteText(robotsMeta, 200),
    x_robots_tag: xRobots === null ? null : siteText(xRobots, 200),
    // `none` is shorthand for "noindex, nofollow" (Google's robots meta specification).
    noindex: /\b(?:noindex|none)\b/i.test(robotsMeta ?? "") || /\b(?:noindex|none)\b/i.test(xRobots ?? ""),
    robots_txt: { present: robotsPresent, disallows_all: disallowsAll, sitemaps: robotsSitemaps },
    sitemaps,
    headings: {
      h1: page.headings.h1.slice(0, 10).map((text) => siteText(text, 200)),
      h2: page.headings.h2,
      h3: page.headings.h3,
    },
    lang: page.lang ? siteText(page.lang, 35) : null,
    viewport: (() => {
      const viewport = metaContent(page, "viewport");
      return viewport === null ? null : siteText(viewport, 200);
    })(),
    charset: charset ? siteText(charset, 40).toLowerCase() : null,
    open_graph: prefixedMetas(page, "og:"),
    twitter_card: prefixedMetas(page, "twitter:"),
    structured_data_types: structuredDataTypes(page),
    hreflang: page.links
      .filter((link) => link.attrs.hreflang && (link.attrs.rel ?? "").toLowerCase().includes("alternate"))
      .slice(0, 100)
      .map((link) => ({
        lang: siteText(link.attrs.hreflang, 35),
        url: siteUrl(resolveUrl(link.attrs.href, homepage.url)?.toString() ?? ""),
      })),
    images_without_alt: images.filter((image) => !("alt" in image.attrs)).length,
    seo_plugin: seoPlugin,
  };
}
