/** How the homepage HTML is delivered: compression and time to first byte. */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/** Below this size compression hardly matters, so it is not held against the site. */
const COMPRESSION_MIN_BYTES = 1024;
/** TTFB thresholds in ms: ≤ good passes, ≤ poor warns, above fails (web.dev guidance). */
const TTFB_GOOD_MS = 800;
const TTFB_POOR_MS = 1800;

export const auditHtmlDelivery: Audit = ({ homepage }) => {
  const checks = [];
  if (homepage.bodyBytes < COMPRESSION_MIN_BYTES) {
    checks.push(
      makeCheck("performance.html_compression", "skip", "The homepage is too small for compression to matter."),
    );
  } else if (homepage.encoding && homepage.encoding !== "identity") {
    checks.push(
      makeCheck("performance.html_compression", "pass", `The homepage is compressed with ${homepage.encoding}.`, [
        `content-encoding: ${homepage.encoding}`,
      ]),
    );
  } else {
    checks.push(
      makeCheck(
        "performance.html_compression",
        "fail",
        `The homepage (${homepage.bodyBytes} bytes) is sent uncompressed although the request accepted gzip and Brotli.`,
      ),
    );
  }
  const ttfb = homepage.ttfbMs;
  const evidence = [`ttfb_ms: ${ttfb}`];
  if (ttfb <= TTFB_GOOD_MS) {
    checks.push(makeCheck("performance.ttfb", "pass", `The first byte arrived after ${ttfb} ms.`, evidence));
  } else if (ttfb <= TTFB_POOR_MS) {
    checks.push(
      makeCheck(
        "performance.ttfb",
        "warn",
        `The first byte arrived after ${ttfb} ms (over ${TTFB_GOOD_MS} ms).`,
        evidence,
      ),
    );
  } else {
    checks.push(
      makeCheck(
        "performance.ttfb",
        "fail",
        `The first byte arrived after ${ttfb} ms (over ${TTFB_POOR_MS} ms).`,
        evidence,
      ),
    );
  }
  return checks;
};
