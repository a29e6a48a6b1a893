/**
 * Custom `<meta>` tags plugins print about themselves:
 *
 *   <meta name="foo-bar-version" content="1.2.3">     a version meta named after the plugin
 *   <meta property="foo-bar:version" content="1.2.3">  …or in the plugin's namespace
 *   <meta name="foo-bar" content="1.2.3">             a slug-shaped name whose content is a version
 *   <meta name="framework" content="Redux 4.4.1">     a name and a version as content
 *
 * Standard and social metas (viewport, robots, og:*, twitter:*, verification tokens…) are
 * never read; the generator tag has its own finder (credits.ts).
 */
import type { PageModel } from "../../parse/page.ts";
import { siteText } from "../../untrusted-text.ts";
import { wordsOf } from "./credits.ts";
import { versionStem } from "./identifiers.ts";
import { strictVersion } from "./name-keys.ts";
import type { Observation } from "./observation.ts";

/** Names of metas that describe the page or the site, never a component. */
const STANDARD =
  /^(?:generator|viewport|description|keywords|robots|googlebot|bingbot|author|copyright|publisher|theme-color|color-scheme|referrer|format-detection|application-name|apple-[\w-]+|msapplication-[\w-]+|mobile-web-app-capable|handheldfriendly|mobileoptimized|google|google-site-verification|msvalidate\.01|yandex-verification|p:domain_verify|[\w-]+-site-verification|[\w-]+-domain-verification|(?:twitter|og|fb|article|profile|book|music|video|al|product|place|business):[\w:.-]+|dc\.[\w.]+|dcterms\.[\w.]+|geo\.[\w.]+|icbm|rating|revisit-after|language|content-language|content-type|x-ua-compatible|csrf-[\w-]+|version|build|release|date|last-modified|tec-api-version|tec-api-origin)$/i;
const IDENTIFIER = /^[A-Za-z][\w.:-]{1,80}$/;
/** Metas read per page. */
const MAX_METAS = 300;

export function metaTagObservations(page: PageModel): Observation[] {
  const found: Observation[] = [];
  for (const meta of page.metas.slice(0, MAX_METAS)) {
    const name = meta.attrs.name ?? meta.attrs.property ?? "";
    const content = (meta.attrs.content ?? "").trim();
    if (!name || !content || content.length > 200 || !IDENTIFIER.test(name) || STANDARD.test(name)) continue;
    const value = siteText(`<meta name="${name}" content="${content}">`, 200);
    const seen = `meta:${name}`;
    const version = strictVersion(content);
    // `shareaholic:wp_version`, `foo-bar:version`: the version of whoever owns the namespace.
    const namespace = /^([A-Za-z][\w.-]{1,60}):(?:(?:wp|plugin)[_-]?)?(?:version|ver)$/i.exec(name)?.[1];
    const stem = namespace ?? versionStem(name);
    if (version && stem) {
      found.push({
        source: "meta_tag",
        value,
        seen,
        version,
        subject: { kind: "identifier", candidates: [stem], mayInfer: true, stems: false },
      });
    } else if (version && !name.includes(":")) {
      found.push({
        source: "meta_tag",
        value,
        seen,
        version,
        subject: { kind: "identifier", candidates: [name], mayInfer: true, stems: false },
      });
    } else if (/\d/.test(content)) {
      // "Redux 4.4.1": a name, then its version.
      found.push({
        source: "meta_tag",
        value,
        seen,
        subject: { kind: "name", words: wordsOf(content), needs: "version" },
      });
    }
  }
  return found;
}
