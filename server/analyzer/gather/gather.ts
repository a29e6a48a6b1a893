/**
 * Gather: the network stage. The homepage first (it decides whether there is a report
 * at all), then the probes it points to. A failed probe becomes an entry in errors[],
 * never a failed analysis.
 */
import { parseHTML } from "linkedom";
import type { ReportError } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { SiteUnreachableError, TargetNotAllowedError } from "../errors.ts";
import { FetchFailure, type FetchResult, type SafeClient } from "../fetch/safe-client.ts";
import { decodeBody, headersToRecord } from "./decode.ts";

/** Probes read less than the homepage: a feed or a robots.txt is never megabytes. */
const PROBE_MAX_BYTES = 512 * 1024;

function toArtifact(result: FetchResult): HttpArtifact {
  return {
    url: result.url,
    status: result.status,
    headers: headersToRecord(result.headers),
    set_cookies: result.setCookies,
    body: decodeBody(result.body, result.headers.get("content-type")),
    truncated: result.truncated,
  };
}

function failureEntry(stage: string, url: string, error: unknown): ReportError {
  if (error instanceof FetchFailure) return { stage, url, kind: error.kind, message: error.message };
  return { stage, url, kind: "error", message: "unexpected failure" };
}

/** The site's main feed: the first advertised RSS/Atom link on the site, else /feed/. */
export function feedUrl(homepage: HttpArtifact): string {
  const base = new URL(homepage.url);
  try {
    const { document } = parseHTML(homepage.body);
    for (const link of document.querySelectorAll('link[rel~="alternate"][href]')) {
      const type = (link.getAttribute("type") ?? "").toLowerCase();
      if (type !== "application/rss+xml" && type !== "application/atom+xml") continue;
      const href = new URL(link.getAttribute("href") ?? "", base);
      // Only the site's own origin is probed; comment feeds carry no generator we need.
      if (href.origin === base.origin && !/comments/i.test(href.pathname)) return href.toString();
    }
  } catch {
    // unparseable page or href: fall back to the conventional location
  }
  return new URL("feed/", base.origin + base.pathname.replace(/[^/]*$/, "")).toString();
}

export async function gather(url: string, client: SafeClient): Promise<Artifacts> {
  const errors: ReportError[] = [];
  let result: FetchResult;
  try {
    result = await client.fetch(url);
  } catch (error) {
    if (error instanceof FetchFailure) {
      if (error.kind === "blocked") throw new TargetNotAllowedError(error.message);
      throw new SiteUnreachableError(error.kind, `The site did not answer: ${error.message}.`);
    }
    throw error;
  }
  const homepage = {
    ...toArtifact(result),
    redirects: result.redirects,
    ttfb_ms: Math.round(result.ttfbMs * 10) / 10,
    download_ms: Math.round(result.totalMs * 10) / 10,
    transfer_bytes: result.headers.has("content-length") ? Number(result.headers.get("content-length")) : null,
    body_bytes: result.body.byteLength,
    encoding: result.encoding,
  };
  if (result.truncated) {
    errors.push({
      stage: "homepage",
      url: result.url,
      kind: "too_large",
      message: "the homepage was cut at the size limit",
    });
  }

  let feed: HttpArtifact | null = null;
  const feedLocation = feedUrl(homepage);
  try {
    const response = await client.fetch(feedLocation, { maxBodyBytes: PROBE_MAX_BYTES });
    if (response.status === 200) feed = toArtifact(response);
  } catch (error) {
    errors.push(failureEntry("feed", feedLocation, error));
  }

  return { requested_url: url, homepage, feed, requests: client.timings, errors };
}
