/** hreflang annotations (only when the homepage uses them): valid codes, absolute URLs, a self-reference. */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";
import { hreflangProblem } from "./language.ts";

/** URL compared loosely: no fragment, no trailing slash on the path. */
function comparable(url: string): string | null {
  try {
    const parsed = new URL(url);
    parsed.hash = "";
    parsed.pathname = parsed.pathname.replace(/\/+$/, "") || "/";
    return parsed.toString();
  } catch {
    return null;
  }
}

export const auditHreflang: Audit = ({ seo, homepage }) => {
  const links = seo.hreflang;
  if (links.length === 0) {
    return [makeCheck("seo.hreflang", "skip", "The homepage has no hreflang annotations.")];
  }
  const problems: string[] = [];
  for (const link of links) {
    const problem = hreflangProblem(link.lang);
    if (problem) problems.push(`hreflang="${link.lang}": ${problem}`);
    if (!link.url) problems.push(`hreflang="${link.lang}": the href is missing or not an http(s) URL`);
  }
  const all = links.map((link) => `${link.lang}: ${link.url || "(no URL)"}`);
  if (problems.length > 0) {
    return [
      makeCheck(
        "seo.hreflang",
        "fail",
        `${problems.length === 1 ? "One hreflang annotation is" : `${problems.length} hreflang annotations are`} invalid; search engines ignore invalid ones.`,
        problems,
      ),
    ];
  }
  // Google: "each language version must list itself as well as all other language versions".
  const self = comparable(homepage.url);
  if (!links.some((link) => comparable(link.url) === self)) {
    return [
      makeCheck(
        "seo.hreflang",
        "warn",
        "The hreflang annotations don't list the homepage itself; each language version must name itself as well as the others.",
        all,
      ),
    ];
  }
  return [
    makeCheck(
      "seo.hreflang",
      "pass",
      `The homepage names ${links.length === 1 ? "1 language version" : `${links.length} language versions`}, itself included, with valid codes.`,
      all,
    ),
  ];
};
