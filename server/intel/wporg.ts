/**
 * WordPress.org's public APIs, for the latest release of core, plugins and themes:
 *   core:    GET /core/version-check/1.7/                      → { offers: [{ version, … }] }
 *   plugins: GET /plugins/info/1.2/?action=plugin_information&request[slug]=…  → { slug, version, … }
 *   themes:  GET /themes/info/1.2/?action=theme_information&request[slug]=…    → { slug, version, … }
 * A slug the directory does not know answers 404 `{ "error": "Plugin not found." }`; a closed
 * plugin answers `{ "error": "closed", "closed": true, "reason": … }` (with 200 or 404).
 */
import type { LatestVersionReason } from "../../shared/report.ts";
import { isDataVersion } from "../analyzer/intel/versions.ts";
import type { ComponentType } from "./intel.store.ts";
import { readCappedText } from "./read-capped.ts";
import { WPORG_SOURCE_NAME } from "./source-ids.ts";
import { atSentenceStart } from "./source-names.ts";

export interface LatestAnswer {
  latest_version: string | null;
  reason: LatestVersionReason | null;
}

/** The directory's answers are small once the long fields are turned off; anything bigger is wrong. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;
/** Fields a plugin/theme answer would otherwise carry in full (readme sections, reviews…). */
const LEAN_FIELDS = [
  "sections",
  "description",
  "reviews",
  "banners",
  "icons",
  "screenshots",
  "versions",
  "tags",
  "contributors",
  "ratings",
]
  .map((field) => `request%5Bfields%5D%5B${field}%5D=0`)
  .join("&");

export class WporgError extends Error {
  override name = "WporgError";
}

export class WporgClient {
  constructor(
    private readonly baseUrl: string,
    private readonly userAgent: string,
    private readonly timeoutMs = 10_000,
    /** As notices name it: "WordPress.org", or "mirror of WordPress.org at <host>" (source-names.ts). */
    readonly name = WPORG_SOURCE_NAME,
  ) {}

  url(type: ComponentType, slug: string): string {
    const base = this.baseUrl.replace(/\/+$/, "");
    if (type === "wordpress") return `${base}/core/version-check/1.7/`;
    const kind = type === "plugin" ? "plugins" : "themes";
    const action = type === "plugin" ? "plugin_information" : "theme_information";
    return `${base}/${kind}/info/1.2/?action=${action}&request%5Bslug%5D=${encodeURIComponent(slug)}&${LEAN_FIELDS}`;
  }

  /** The latest release, or why there is none; throws WporgError when WordPress.org did not answer usefully. */
  async latest(type: ComponentType, slug: string, signal?: AbortSignal): Promise<LatestAnswer> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await fetch(this.url(type, slug), {
        headers: { "user-agent": this.userAgent, accept: "application/json" },
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        redirect: "follow",
      });
    } catch (error) {
      throw new WporgError(`${atSentenceStart(this.name)} did not answer: ${(error as Error).message}`);
    }
    const body = await readCappedText(response, MAX_ANSWER_BYTES, {
      tooLarge: () => new WporgError(`${atSentenceStart(this.name)}'s answer is too large`),
    });
    let data: unknown = null;
    try {
      data = JSON.parse(body);
    } catch {
      // handled below: a 404 without JSON still means "not in the directory"
    }
    const record = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
    if (record.closed === true || record.error === "closed") return { latest_version: null, reason: "closed" };
    if (response.status === 404 || (typeof record.error === "string" && /not found/i.test(record.error))) {
      return { latest_version: null, reason: "not_in_directory" };
    }
    if (!response.ok) throw new WporgError(`${atSentenceStart(this.name)} answered ${response.status}`);
    const version = type === "wordpress" ? newestOffer(record.offers) : record.version;
    if (typeof version !== "string" || !isDataVersion(version.trim())) {
      throw new WporgError(`${atSentenceStart(this.name)}'s answer holds no version`);
    }
    return { latest_version: version.trim(), reason: null };
  }
}

function newestOffer(offers: unknown): string | null {
  if (!Array.isArray(offers)) return null;
  const first = offers.find(
    (offer) => typeof offer === "object" && offer !== null && typeof offer.version === "string",
  );
  // The first offer is the newest release (the others are older branches' updates).
  return first ? (first.version as string) : null;
}
