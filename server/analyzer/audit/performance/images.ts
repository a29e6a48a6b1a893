/** Images in the homepage HTML: lazy loading and reserved dimensions. */
import { resolveUrl } from "../../artifacts.ts";
import type { HomepageFacts } from "../../facts.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";
import { count } from "./format.ts";

/**
 * Lazy loading only matters once there are images below the fold. The first images are
 * usually above it and should load eagerly (web.dev, "Browser-level image lazy loading":
 * don't lazy-load the LCP image), so with fewer images than this the check does not apply.
 */
const LAZY_MIN_IMAGES = 4;

/** The unsized images themselves (same rule as the facts' without_dimensions), for evidence. */
function unsizedImages(homepage: HomepageFacts): string[] {
  return homepage.page.images
    .filter((image) => !image.inHead && (!image.attrs.width || !image.attrs.height))
    .map((image) => {
      // Lazy-load plugins put a data: placeholder in src and the real URL in data-src.
      const url = resolveUrl(image.src, homepage.url) ?? resolveUrl(image.attrs["data-src"], homepage.url);
      return url ? siteUrl(url.toString()) : "(an inline or src-less image)";
    });
}

export const auditImages: Audit = ({ performance, homepage }) => {
  const { total, lazy, without_dimensions: unsized } = performance.images;
  const images = count(total, "image");
  const checks = [];

  if (total === 0) {
    checks.push(makeCheck("performance.image_lazy_loading", "skip", "The homepage has no <img> elements."));
  } else if (total < LAZY_MIN_IMAGES) {
    checks.push(
      makeCheck(
        "performance.image_lazy_loading",
        "skip",
        `The homepage has ${images}; with fewer than ${LAZY_MIN_IMAGES} they are likely all near the top.`,
      ),
    );
  } else if (lazy === 0) {
    checks.push(
      makeCheck(
        "performance.image_lazy_loading",
        "warn",
        `None of the ${images} on the homepage is lazy-loaded: the browser downloads all of them before the page finishes loading, even those far below the fold.`,
        [`images: ${total}`, "lazy: 0"],
      ),
    );
  } else {
    checks.push(
      makeCheck(
        "performance.image_lazy_loading",
        "pass",
        `${lazy} of the ${images} on the homepage ${lazy === 1 ? "is" : "are"} lazy-loaded.`,
        [`images: ${total}`, `lazy: ${lazy}`],
      ),
    );
  }

  if (total === 0) {
    checks.push(makeCheck("performance.image_dimensions", "skip", "The homepage has no <img> elements."));
  } else if (unsized === 0) {
    checks.push(
      makeCheck(
        "performance.image_dimensions",
        "pass",
        `All ${images} on the homepage have width and height attributes.`,
        [`images: ${total}`],
      ),
    );
  } else {
    checks.push(
      makeCheck(
        "performance.image_dimensions",
        "warn",
        `${unsized} of the ${images} on the homepage ${unsized === 1 ? "lacks" : "lack"} a width or height attribute; unless CSS reserves their space, the layout shifts as they load.`,
        unsizedImages(homepage),
      ),
    );
  }
  return checks;
};
