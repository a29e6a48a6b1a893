/** How big the homepage document is: bytes of HTML and number of elements. */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";
import { size } from "./format.ts";

/**
 * HTML size thresholds (decoded bytes). The median homepage's HTML is ~18 KB (HTTP Archive
 * Web Almanac 2024, Page Weight). Past 150 KB (8× the median) there is nearly always inlined
 * CSS/JS/SVG or plugin data in the page; past 500 KB parsing it is a cost on every visit,
 * cached or not. Our bounds: no standard one exists for HTML alone.
 */
const HTML_WARN_BYTES = 150 * 1024;
const HTML_FAIL_BYTES = 500 * 1024;

/**
 * DOM size thresholds: Lighthouse's dom-size audit scores 818 elements as good (p10) and
 * 1,400 as the median of its curve (below that the score is poor). Lighthouse counts body
 * elements after scripts ran; we count the elements in the served HTML, head included.
 */
const DOM_WARN_ELEMENTS = 818;
const DOM_FAIL_ELEMENTS = 1400;

export const auditPageSize: Audit = ({ performance, homepage }) => {
  const checks = [];
  const bytes = performance.html_bytes;
  const truncated = homepage.truncated ? " (the download was cut at the analyzer's size limit)" : "";
  if (bytes === null) {
    checks.push(makeCheck("performance.html_size", "skip", "The size of the homepage is unknown."));
  } else {
    const evidence = [`html_bytes: ${bytes}`];
    if (performance.html_transfer_bytes !== null) evidence.push(`transfer_bytes: ${performance.html_transfer_bytes}`);
    if (bytes > HTML_FAIL_BYTES) {
      checks.push(
        makeCheck(
          "performance.html_size",
          "fail",
          `The homepage HTML is ${size(bytes)}${truncated}, over ${size(HTML_FAIL_BYTES)}.`,
          evidence,
        ),
      );
    } else if (bytes > HTML_WARN_BYTES) {
      checks.push(
        makeCheck(
          "performance.html_size",
          "warn",
          `The homepage HTML is ${size(bytes)}, over ${size(HTML_WARN_BYTES)}.`,
          evidence,
        ),
      );
    } else {
      checks.push(makeCheck("performance.html_size", "pass", `The homepage HTML is ${size(bytes)}.`, evidence));
    }
  }

  // Not in the report's facts: the element count is a property of the parsed page, read from the page model.
  const elements = homepage.page.elementCount;
  const evidence = [`elements: ${elements}`];
  if (elements > DOM_FAIL_ELEMENTS) {
    checks.push(
      makeCheck(
        "performance.dom_size",
        "fail",
        `The homepage HTML has ${elements} elements${truncated}, over ${DOM_FAIL_ELEMENTS}: style calculation, layout and every interaction get slower.`,
        evidence,
      ),
    );
  } else if (elements > DOM_WARN_ELEMENTS) {
    checks.push(
      makeCheck(
        "performance.dom_size",
        "warn",
        `The homepage HTML has ${elements} elements, over ${DOM_WARN_ELEMENTS}.`,
        evidence,
      ),
    );
  } else {
    checks.push(makeCheck("performance.dom_size", "pass", `The homepage HTML has ${elements} elements.`, evidence));
  }
  return checks;
};
