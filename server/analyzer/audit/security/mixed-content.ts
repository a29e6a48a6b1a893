/**
 * Mixed content: an HTTPS page that loads resources over plain HTTP. Browsers block active
 * mixed content (scripts, styles, frames, fonts) — the page breaks — and let passive content
 * (images) through, where it can be swapped in transit.
 *
 * Reads the homepage itself: only resources referenced by tag attributes (script src, link
 * href, img src/srcset, iframe src) count — URLs merely mentioned in inline text are not loaded.
 */
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

export const auditMixedContent: Audit = ({ homepage, security }) => {
  const id = "security.mixed_content";
  if (!security.https)
    return [makeCheck(id, "skip", "The site is not served over HTTPS, so there is no mixed content.")];
  const insecure = homepage.resources.filter((resource) => resource.url.protocol === "http:");
  if (insecure.length === 0) {
    return [makeCheck(id, "pass", "Every resource the homepage loads is requested over HTTPS.")];
  }
  const active = insecure.filter((resource) => resource.kind !== "image");
  const evidence = [...active, ...insecure.filter((resource) => resource.kind === "image")].map(
    (resource) => `${resource.kind}: ${siteUrl(resource.url.toString())}`,
  );
  if (active.length > 0) {
    return [
      makeCheck(
        id,
        "fail",
        `The HTTPS homepage loads ${active.length} script, style, font or frame URL(s) over plain HTTP; browsers block them, and without the block they could be replaced in transit.`,
        evidence,
      ),
    ];
  }
  return [
    makeCheck(
      id,
      "warn",
      `The HTTPS homepage loads ${insecure.length} image(s) over plain HTTP; browsers show the page as not fully secure.`,
      evidence,
    ),
  ];
};
