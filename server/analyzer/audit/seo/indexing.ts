/** May the homepage be indexed, and under which URL: robots directives and the canonical link. */
import { resolveUrl } from "../../artifacts.ts";
import { linksWithRel } from "../../parse/page.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/** Host without a leading "www.": example.com and www.example.com are the same site. */
const bareHost = (url: URL) => url.hostname.replace(/^www\./, "");
/** Path without a trailing slash, so "/" and "" or "/blog" and "/blog/" compare equal. */
const barePath = (url: URL) => url.pathname.replace(/\/+$/, "");

export const auditIndexing: Audit = ({ seo, homepage }) => {
  const checks = [];

  const directives = [
    seo.robots_meta !== null ? `meta robots: ${seo.robots_meta}` : null,
    seo.x_robots_tag !== null ? `x-robots-tag: ${seo.x_robots_tag}` : null,
  ].filter((line): line is string => line !== null);
  checks.push(
    seo.noindex
      ? makeCheck(
          "seo.noindex",
          "fail",
          "The homepage tells search engines not to index it (noindex), so it will not appear in search results.",
          directives,
        )
      : makeCheck("seo.noindex", "pass", "The homepage does not ask to be left out of search results.", directives),
  );

  if (seo.canonical === null) {
    checks.push(
      makeCheck(
        "seo.canonical",
        "warn",
        'The homepage has no <link rel="canonical">, so search engines pick the URL to index among its variants themselves (with tracking parameters, with or without www).',
      ),
    );
    checks.push(makeCheck("seo.canonical_target", "skip", "The homepage declares no canonical URL."));
    return checks;
  }
  checks.push(
    makeCheck("seo.canonical", "pass", "The homepage declares a canonical URL.", [`canonical: ${seo.canonical}`]),
  );

  // Search engines ignore canonicals in <body> and all canonicals when several disagree
  // (Lighthouse: "multiple conflicting URLs"); the facts keep only the first one.
  const declared = new Set(
    linksWithRel(homepage.page, "canonical")
      .filter((link) => link.inHead)
      .flatMap((link) => {
        const url = resolveUrl(link.attrs.href, homepage.url);
        return url ? [siteUrl(url.toString())] : [];
      }),
  );
  if (declared.size > 1) {
    checks.push(
      makeCheck(
        "seo.canonical_target",
        "fail",
        `The homepage declares ${declared.size} different canonical URLs; search engines ignore conflicting canonicals.`,
        [...declared],
      ),
    );
    return checks;
  }

  if (declared.size === 0) {
    checks.push(
      makeCheck(
        "seo.canonical_target",
        "warn",
        "The canonical link is in the page body (or after content that ends <head>), where search engines ignore it.",
        [`canonical: ${seo.canonical}`],
      ),
    );
    return checks;
  }

  const canonical = resolveUrl(seo.canonical, homepage.url);
  const page = new URL(homepage.url);
  if (!canonical) {
    checks.push(
      makeCheck("seo.canonical_target", "fail", "The canonical URL is not a usable http(s) URL.", [
        `canonical: ${seo.canonical}`,
      ]),
    );
    return checks;
  }
  const evidence = [`canonical: ${seo.canonical}`, `homepage: ${siteUrl(homepage.url)}`];
  if (bareHost(canonical) !== bareHost(page)) {
    checks.push(
      makeCheck(
        "seo.canonical_target",
        "fail",
        `The canonical URL points to another site (${canonical.hostname}): search engines are asked to index that site instead of this homepage.`,
        evidence,
      ),
    );
  } else if (barePath(canonical) !== barePath(page)) {
    checks.push(
      makeCheck(
        "seo.canonical_target",
        "fail",
        `The canonical URL points to another page (${canonical.pathname}): search engines are asked to index that page instead of the homepage.`,
        evidence,
      ),
    );
  } else if (canonical.origin !== page.origin) {
    checks.push(
      makeCheck(
        "seo.canonical_target",
        "warn",
        `The canonical URL names another variant of the homepage (${canonical.origin} instead of ${page.origin}); the canonical should be the URL visitors end up on.`,
        evidence,
      ),
    );
  } else {
    checks.push(makeCheck("seo.canonical_target", "pass", "The canonical URL is the homepage itself.", evidence));
  }
  return checks;
};
