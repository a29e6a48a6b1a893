/** How the homepage document is built for search engines: H1, language, mobile viewport, image alt text. */
import { resolveUrl } from "../../artifacts.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";
import { langProblem } from "./language.ts";

/**
 * A usable viewport sets the layout width or the initial scale (Lighthouse's viewport
 * audit: "Has a <meta name=viewport> tag with width or initial-scale").
 */
const USABLE_VIEWPORT = /\b(?:width|initial-scale)\s*=/i;

export const auditPageStructure: Audit = ({ seo, performance, homepage }) => {
  const checks = [];

  const h1 = seo.headings.h1;
  const headings = h1.map((text) => `h1: ${text || "(no text)"}`);
  if (h1.length === 0) {
    checks.push(makeCheck("seo.h1", "fail", "The homepage has no <h1> heading."));
  } else if (h1.length > 1) {
    checks.push(
      makeCheck(
        "seo.h1",
        "warn",
        `The homepage has ${h1.length} <h1> headings; one that names the page's topic is clearer.`,
        headings,
      ),
    );
  } else if (!h1[0]) {
    checks.push(
      makeCheck(
        "seo.h1",
        "warn",
        "The homepage's <h1> has no text (an image without alt text, or an empty element).",
        headings,
      ),
    );
  } else {
    checks.push(makeCheck("seo.h1", "pass", "The homepage has one <h1> heading.", headings));
  }

  if (!seo.lang) {
    checks.push(makeCheck("seo.lang", "fail", "The <html> element has no lang attribute."));
  } else {
    const problem = langProblem(seo.lang);
    checks.push(
      problem
        ? makeCheck("seo.lang", "fail", `The page language "${seo.lang}" ${problem}.`, [`lang: ${seo.lang}`])
        : makeCheck("seo.lang", "pass", `The page declares its language (${seo.lang}).`, [`lang: ${seo.lang}`]),
    );
  }

  if (seo.viewport === null) {
    checks.push(
      makeCheck(
        "seo.viewport",
        "fail",
        'The homepage has no <meta name="viewport">: phones render it as a shrunken desktop page.',
      ),
    );
  } else if (!USABLE_VIEWPORT.test(seo.viewport)) {
    checks.push(
      makeCheck(
        "seo.viewport",
        "fail",
        "The viewport meta tag sets neither width nor initial-scale, so it does not make the page mobile-friendly.",
        [`viewport: ${seo.viewport}`],
      ),
    );
  } else {
    checks.push(
      makeCheck("seo.viewport", "pass", "The homepage has a mobile viewport.", [`viewport: ${seo.viewport}`]),
    );
  }

  const total = performance.images.total;
  const missing = seo.images_without_alt;
  if (total === 0) {
    checks.push(makeCheck("seo.image_alt", "skip", "The homepage has no <img> elements."));
  } else if (missing === 0) {
    const all = total === 1 ? "The image on the homepage has" : `All ${total} images on the homepage have`;
    checks.push(makeCheck("seo.image_alt", "pass", `${all} an alt attribute.`));
  } else {
    // The images themselves, for evidence (same rule as the facts: no alt attribute at all).
    const evidence = homepage.page.images
      .filter((image) => !image.inHead && !("alt" in image.attrs))
      .map((image) => {
        const url = resolveUrl(image.src, homepage.url) ?? resolveUrl(image.attrs["data-src"], homepage.url);
        return url ? siteUrl(url.toString()) : "(an inline or src-less image)";
      });
    checks.push(
      makeCheck(
        "seo.image_alt",
        "warn",
        `${missing} of the ${total} images on the homepage ${missing === 1 ? "has" : "have"} no alt attribute; search engines and screen readers can't tell what ${missing === 1 ? "it shows" : "they show"}.`,
        evidence,
      ),
    );
  }
  return checks;
};
