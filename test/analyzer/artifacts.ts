/** Loads saved artifacts (test/analyzer/artifacts/*.json) and makes variants of them for tests. */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Artifacts, HttpArtifact } from "../../server/analyzer/artifacts.ts";
import type { ProbeKey } from "../../server/analyzer/probe-keys.ts";

export function loadArtifacts(name: string): Artifacts {
  return JSON.parse(readFileSync(path.join(import.meta.dir, "artifacts", `${name}.json`), "utf8")) as Artifacts;
}

/**
 * The real WordPress 6.1.9 fixture site (Debian package) as the CI environment's setup
 * installs it by default: theme twentytwentyone, plugins akismet and xrds-simple.
 */
export const WP_FIXTURE = "wp-6.1.9-twentytwentyone";
/** The same site set up with WP_THEME=twentytwentythree, plugins xrds-simple and shibboleth. */
export const WP_FIXTURE_TT3 = "wp-6.1.9-twentytwentythree";

export interface Change {
  body?: string;
  headers?: Record<string, string>;
  url?: string;
  encoding?: string | null;
  ttfb?: number;
  setCookies?: string[];
  /** Probes to replace (an HttpArtifact) or remove (null). */
  probes?: Partial<Record<ProbeKey, HttpArtifact | null>>;
}

/** A deep copy with the homepage and probes changed. */
export function variant(base: Artifacts, change: Change): Artifacts {
  const copy = structuredClone(base);
  if (change.body !== undefined) {
    copy.homepage.body = change.body;
    copy.homepage.body_bytes = Buffer.byteLength(change.body);
  }
  if (change.headers) copy.homepage.headers = change.headers;
  if (change.url) copy.homepage.url = change.url;
  if (change.encoding !== undefined) copy.homepage.encoding = change.encoding;
  if (change.ttfb !== undefined) copy.homepage.ttfb_ms = change.ttfb;
  if (change.setCookies) copy.homepage.set_cookies = change.setCookies;
  for (const [key, value] of Object.entries(change.probes ?? {}) as [ProbeKey, HttpArtifact | null | undefined][]) {
    if (value === null) delete copy.probes[key];
    else copy.probes[key] = value;
  }
  return copy;
}

/** A minimal artifact for a probe answer. */
export function answer(url: string, status: number, body: string, headers: Record<string, string> = {}): HttpArtifact {
  return { url, status, headers, set_cookies: [], body, truncated: false };
}

/** Artifacts of a site that is only a homepage (every probe failed). */
export function homepageOnly(
  url: string,
  body: string,
  headers: Record<string, string> = { "content-type": "text/html" },
): Artifacts {
  return {
    requested_url: url,
    homepage: {
      url,
      status: 200,
      headers,
      set_cookies: [],
      body,
      truncated: false,
      redirects: [],
      ttfb_ms: 100,
      ttfb_samples_ms: [100],
      download_ms: 120,
      transfer_bytes: null,
      body_bytes: Buffer.byteLength(body),
      encoding: null,
      http_version: "1.1",
    },
    probes: {},
    assets: [],
    requests: [],
    errors: [],
  };
}
