/** The homepage facts: the response without its body, the page model and what the page loads. */
import type { Detected, HomepageFacts } from "../facts.ts";
import { pageOf } from "../parse/page.ts";
import { pageResources } from "../parse/urls.ts";

export function extractHomepage({ artifacts }: Detected): HomepageFacts {
  const { homepage } = artifacts;
  const page = pageOf(homepage);
  return {
    url: homepage.url,
    status: homepage.status,
    redirects: homepage.redirects,
    headers: homepage.headers,
    truncated: homepage.truncated,
    bodyBytes: homepage.body_bytes,
    encoding: homepage.encoding,
    ttfbMs: homepage.ttfb_ms,
    page,
    // URLs merely mentioned in inline text are not loaded: only tag attributes count.
    resources: pageResources(page, homepage.body, homepage.url).filter((resource) => resource.from === "attribute"),
  };
}
