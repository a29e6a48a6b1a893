/**
 * Plugins that credit themselves by display name — in generator tags, HTML comments and
 * credit headers:
 *
 *   <meta name="generator" content="Elementor 3.18.3; features: …">
 *   <meta name="generator" content="Powered by Slider Revolution 6.6.12 - …">
 *   <!-- This site is optimized with the Yoast SEO plugin v22.4 - https://yoast.com/… -->
 *   <!-- Powered by Foo Gallery v2.1 -->   <!-- Foo Gallery 2.1 -->   <!-- Begin Cookie Notice plugin v2.4.12 -->
 *   <!-- Optimized with WP Meteor v3.4.0 - https://wordpress.org/plugins/wp-meteor/ -->
 *   X-Powered-By: W3 Total Cache/2.7   X-Redirect-By: Yoast SEO
 *
 * Each becomes an observation of the words after the credit; resolve.ts finds which name
 * they start with (signature table, this site's readmes, the WordPress.org names index) and
 * the version written right after it. Work per page is bounded by the page model's caps
 * (200 comments of 2 000 characters, capped metas) and a few credits per comment.
 */
import type { HttpArtifact } from "../../artifacts.ts";
import { metaContents, type PageModel } from "../../parse/page.ts";
import { siteText, siteUrl } from "../../untrusted-text.ts";
import { bare, hostMarked, longerNameBefore, WORKS_WITH } from "./credit-grammar.ts";
import { slugify, strictVersion } from "./name-keys.ts";
import type { Observation } from "./observation.ts";

/** Words that introduce a credit: the context itself says software is named. Fixed words: linear, no nested quantifiers. */
const CREDIT =
  /\b(?:powered|optimi[sz]ed|generated|cached|created|served|built|minified|compressed|added|delivered|accelerated|protected|secured|managed|made|inserted|tracking|tracked|provided|rendered|enhanced)\s+(?:by|with|using)\s+(?:the\s+)?/gi;
/** "This site uses the …", "… using …": a credit, unless the comment's start already named the plugin (then a library). */
const USING = /\b(?:uses|using)\s+(?:the\s+)?/gi;
/** Any other "… by" / "…ed with": a credit only when a version follows the name ("Designed by Foo" is a theme's). */
const LOOSE_CREDIT = /\b[a-z]{2,20}\s+by\s+(?:the\s+)?|\b[a-z]{2,20}(?:ed|ing)\s+with\s+(?:the\s+)?/gi;
/** "… by" that credits people, agencies and hosts, not software: "Designed by Studio Pixel", "Made with love by …". */
const PEOPLE =
  /^(?:designed|design|designer|developed|development|developer|crafted|handcrafted|coded|written|maintained|hosted|hosting|love|site|website|theme|copyright)\s/i;
/** Words a comment may open with before the name: "Begin Cookie Notice plugin v2.4.12", "/ Yoast SEO plugin.", "End of …". */
const OPENING_MARKER = /^\s*(?:(?:start|begin|beginning|end|ende)(?:\s+of)?\b\s*[:-]?\s*|\/\s*|-+\s*|\[\s*)?/i;
/** Credits read per comment; real footers have one or two. */
const MAX_CREDITS_PER_COMMENT = 4;
/** Versions per comment whose preceding words are read as a name, and how many words back. */
const MAX_VERSIONS_PER_COMMENT = 3;
const MAX_NAME_SPAN = 6;
/** Words between a name and its version ("Foo Bar plugin v1.2", "Foo | v 1.2", "Foo WordPress plugin v. 1.2"). */
const SPAN_FILLERS = new Set([
  "plugin",
  "wordpress",
  // The directory's own edition: "PixelYourSite Free version 9.5.5" names PixelYourSite.
  "free",
  "lite",
  "version",
  "version:",
  "ver",
  "ver.",
  "ver:",
  "v",
  "v.",
  "|",
  "-",
  "\u2013",
  "\u2014",
  ":",
]);
/** A link to a plugin's page in the WordPress.org directory. */
const DIRECTORY_LINK = /\bwordpress\.org\/(?:extend\/)?plugins\/([a-z0-9][a-z0-9._-]{0,99})(?=[/?#"'\s)]|$)/gi;
/** Response headers that credit software by name ("Name/1.2", "Name 1.2"). */
export const CREDIT_HEADERS = ["x-powered-by", "x-redirect-by", "x-generator", "x-optimized-by", "x-cached-by"];
/** Comma-separated parts of a credit header read ("PHP/8.2, W3 Total Cache/2.7"). */
const MAX_HEADER_PARTS = 8;

/** Words of a text, at most `max` of them, each of at most 60 characters. */
export function wordsOf(text: string, max = 16): string[] {
  return (
    text
      .slice(0, 400)
      // "Blubrry PowerPress/11.7.1", "Name/v2.0": a name and its version, as credit headers write them.
      .replace(/([A-Za-z][\w.-]{0,60})\/(?=v?\d)/g, "$1 ")
      .split(/\s+/)
      .filter((word) => word.length > 0 && word.length <= 60)
      .slice(0, max)
  );
}

/** Generators that may name a plugin: "Elementor 3.18.3; …", "Powered by Slider Revolution 6.6.12 - …". */
export function generatorObservations(page: PageModel): Observation[] {
  return metaContents(page, "generator")
    .slice(0, 50)
    .map((content) => ({
      source: "meta_generator" as const,
      value: siteText(content, 200),
      seen: `generator:${content}`,
      subject: {
        kind: "name" as const,
        words: wordsOf(content.replace(/^\s*powered\s+by\s+/i, "")),
        needs: "nothing" as const,
      },
    }));
}

/** The one version a comment states with a "v"/"version" in front, if it states exactly one. */
function markedVersion(comment: string): string | undefined {
  const found = new Set<string>();
  for (const match of comment.slice(0, 2_000).matchAll(/\b(?:v|ver\.?|version)\s?:?\s?(\d[\w.-]{0,30})/gi)) {
    const version = strictVersion(match[1]);
    if (version) found.add(version);
    if (found.size > 1) return undefined;
  }
  return [...found][0];
}

/** Words of a slug or a name that say nothing of which plugin it is ("mailchimp-for-wp" is Mailchimp). */
const NOISE_TOKENS = new Set([
  "wp",
  "wordpress",
  "for",
  "the",
  "and",
  "plugin",
  "by",
  "of",
  "a",
  "lite",
  "pro",
  "free",
]);
const tokenOf = (token: string) => (token === "wordpress" ? "wp" : token);
function slugTokens(slug: string): string[] {
  const tokens = slug.split(/[-_.]+/).filter((token) => token && !NOISE_TOKENS.has(token));
  return tokens.length > 0 ? tokens : [slug];
}

/** A loose "…ed with" that does not credit what follows: "tested with", "integrated with" (what it works with). */
function hostCredit(phrase: string): boolean {
  const [verb = "", link = ""] = phrase.trim().split(/\s+/);
  return link.toLowerCase() === "with" && WORKS_WITH.has(bare(verb));
}

/** Comments that may credit a plugin: after a credit phrase, as "Name v1.2" at the start, or by a directory link. */
export function commentObservations(
  page: PageModel,
  /** Comment text → the plugin folder whose file the page loads right beside it (beside.ts). */
  besideAssets: ReadonlyMap<string, string> = new Map(),
): Observation[] {
  const found: Observation[] = [];
  for (const [n, comment] of page.comments.entries()) {
    if (comment.startsWith("[if") || comment.startsWith("<![endif]")) continue; // conditional comments: markup
    const value = siteText(comment, 200);
    const seen = `comment:${n}`;
    const first = found.length;
    const name = (
      words: string[],
      needs: "version" | "version-or-plugin" | "nothing",
      phrase: Observation["phrase"],
    ) => {
      if (words.length > 0)
        found.push({ source: "html_comment", value, seen, phrase, subject: { kind: "name", words, needs } });
    };
    // "Foo Gallery 2.1" / "Yoast SEO plugin": a name alone could be any text, so a version or "plugin" must follow.
    name(wordsOf(comment.replace(OPENING_MARKER, "")), "version-or-plugin", "opening");
    let credits = 0;
    const read = new Set<number>();
    const follow = (pattern: RegExp, needs: "version" | "nothing", phrase: Observation["phrase"]) => {
      for (const credit of comment.matchAll(pattern)) {
        const start = credit.index + credit[0].length;
        if (phrase === "loose" && (PEOPLE.test(credit[0]) || hostCredit(credit[0]))) continue;
        if (read.has(start)) continue; // "powered by" is a credit and also a loose "… by"
        read.add(start);
        if (++credits > MAX_CREDITS_PER_COMMENT) break;
        name(wordsOf(comment.slice(start, start + 200)), needs, phrase);
      }
    };
    follow(CREDIT, "nothing", "credit");
    follow(USING, "nothing", "using");
    follow(LOOSE_CREDIT, "version", "loose");
    found.push(...versionSpans(comment, value, seen));
    const slugs = new Set<string>();
    // What the comment says, its links aside: a link names a plugin only when the comment's own words do too.
    const said = new Set(
      slugify(comment.slice(0, 2_000).replace(/\S*(?:https?:\/\/|www\.)\S*/gi, " "))
        .split("-")
        .map(tokenOf),
    );
    for (const link of comment.matchAll(DIRECTORY_LINK)) {
      const slug = (link[1] ?? "").toLowerCase().replace(/[._-]+$/, "");
      if (!slug || slugs.has(slug) || slugs.size >= 3) continue;
      slugs.add(slug);
      found.push({
        source: "html_comment",
        value,
        seen,
        subject: { kind: "slug", slug },
        version: markedVersion(comment),
        linkNamed: slugTokens(slug).every((token) => said.has(token)),
      });
    }
    const beside = besideAssets.get(comment);
    if (beside) for (const observation of found.slice(first)) observation.beside = beside;
  }
  return found;
}

/** The words before `start` that belong to the same name (at most four), if any. */
function wordsOfNameBefore(words: readonly string[], start: number): string[] | undefined {
  let first = start;
  while (first > 0 && start - first < 4 && longerNameBefore(words, first)) first--;
  return first < start ? words.slice(first, start) : undefined;
}

/**
 * "Name X.Y" anywhere in a comment: for each version (strict), the last one to six words
 * before it (fillers skipped) as exact names. Only names an index knows count (resolve.ts).
 */
export function versionSpans(
  comment: string,
  value: string,
  seen: string,
  source: "html_comment" | "inline_script" = "html_comment",
  /** The first word a name may start at (in a comment, the first word is the opening's case, read already). */
  from = 1,
): Observation[] {
  const words = wordsOf(comment, 60);
  const found: Observation[] = [];
  let versions = 0;
  for (let index = from + 1; index < words.length && versions < MAX_VERSIONS_PER_COMMENT; index++) {
    const version = strictVersion(words[index]);
    if (!version) continue;
    versions++;
    let end = index;
    while (end > 0 && SPAN_FILLERS.has((words[end - 1] ?? "").toLowerCase())) end--;
    for (let start = Math.max(from, end - MAX_NAME_SPAN); start < end; start++) {
      // "Designed by Studio Pixel 2.0": a name after a credit to people is not software.
      if (start >= 2 && (words[start - 1] ?? "").toLowerCase() === "by" && PEOPLE.test(`${words[start - 2]} `))
        continue;
      // "… for WooCommerce 2.3.1", "requires WPML 4.6.9": what the plugin is made for is not credited.
      if (hostMarked(words, start)) continue;
      found.push({
        source,
        value,
        seen,
        version,
        phrase: "anywhere",
        // "Simple Events Calendar 1.3.5": "Events Calendar" is only the end of a longer name.
        nameBefore: wordsOfNameBefore(words, start),
        subject: { kind: "name", words: words.slice(start, end), needs: "version" },
      });
    }
  }
  return found;
}

/**
 * Credit headers of the homepage and of redirects (plugins that redirect name themselves
 * in X-Redirect-By): "W3 Total Cache/2.7" → the words "W3 Total Cache 2.7".
 */
export function creditHeaderObservations(responses: readonly HttpArtifact[]): Observation[] {
  const found: Observation[] = [];
  for (const response of responses) {
    for (const header of CREDIT_HEADERS) {
      const value = response.headers[header];
      if (!value) continue;
      for (const part of value.slice(0, 1_000).split(",").slice(0, MAX_HEADER_PARTS)) {
        // "Name/1.2" → "Name 1.2"; a slash inside a name stays.
        const words = wordsOf(part.replace(/\/(?=v?\d)/, " "));
        if (words.length === 0) continue;
        found.push({
          source: "header",
          value: siteText(`${header}: ${part.trim()}`, 200),
          url: siteUrl(response.url),
          seen: `header:${header}`,
          subject: { kind: "name", words, needs: "nothing" },
        });
      }
    }
  }
  return found;
}
