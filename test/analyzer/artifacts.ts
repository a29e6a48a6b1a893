/** Loads saved artifacts (test/artifacts/*.json) and makes variants of them for tests. */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";

export function loadArtifacts(name: string): Artifacts {
  return JSON.parse(readFileSync(path.join(import.meta.dir, "..", "artifacts", `${name}.json`), "utf8")) as Artifacts;
}

/** The real WordPress 6.1.9 fixture site (Debian package, twentytwentyone, akismet, xrds-simple). */
export const WP_FIXTURE = "wp-6.1.9-twentytwentyone";

/** A deep copy with the homepage (and optionally the feed) changed. */
export function variant(
  base: Artifacts,
  change: {
    body?: string;
    headers?: Record<string, string>;
    url?: string;
    feed?: Artifacts["feed"];
    encoding?: string | null;
    ttfb?: number;
  },
): Artifacts {
  const copy = structuredClone(base);
  if (change.body !== undefined) {
    copy.homepage.body = change.body;
    copy.homepage.body_bytes = Buffer.byteLength(change.body);
  }
  if (change.headers) copy.homepage.headers = change.headers;
  if (change.url) copy.homepage.url = change.url;
  if (change.feed !== undefined) copy.feed = change.feed;
  if (change.encoding !== undefined) copy.homepage.encoding = change.encoding;
  if (change.ttfb !== undefined) copy.homepage.ttfb_ms = change.ttfb;
  return copy;
}
