/**
 * The Wordfence Intelligence vulnerability data feed (v3, production): one JSON object of
 * about 160 MB whose properties are records keyed by UUID. It is stream-parsed (stream-json's
 * tokens, one record assembled at a time within fixed caps: capped-records.ts) and each record
 * is turned into one AdvisoryRow per affected component.
 *
 * Record shape (Wordfence's documented data format; fields we do not use are ignored):
 *   { id, title, software: [{ type: plugin|theme|core, name, slug,
 *       affected_versions: { "<label>": { from_version, from_inclusive, to_version, to_inclusive } },
 *       patched, patched_versions: [..], remediation }],
 *     informational, description, references: [..], cwe: { id, name, description } | null,
 *     cvss: { vector, score, rating } | null, cve: "CVE-…" | null, cve_link, researchers,
 *     published, updated, copyrights: { message, <holder>: { notice, license, license_url } } }
 * A version bound of "*" is open. Dates come as "2024-01-02 03:04:05" (UTC) or ISO 8601.
 *
 * The feed comes from Wordfence over an authenticated HTTPS connection (or a file an
 * operator imports): trusted input, which is what stream-json is built for. Values are still
 * checked and capped, because a record we misread would tell sites the wrong thing.
 */
import { severityFromCvss } from "../analyzer/intel/cvss.ts";
import { SLUG } from "../analyzer/intel/query.ts";
import type { VersionRange } from "../analyzer/intel/versions.ts";
import { RECORD_CAPS, type RecordCaps, readCappedRecords } from "./capped-records.ts";
import type { AdvisoryRow, ComponentType } from "./intel.store.ts";
import { WORDFENCE_SOURCE_NAME, WORDFENCE_TERMS_URL } from "./source-ids.ts";

/** A copyright notice a record carries, to be reproduced with the data. */
export interface CopyrightNotice {
  holder: string;
  notice: string;
  license: string | null;
  license_url: string | null;
}

export interface NormalizedRecord {
  rows: AdvisoryRow[];
  notices: CopyrightNotice[];
  updated: Date | null;
  /** Why the record gave no rows (informational, nothing we can match), for the import summary. */
  skipped: string | null;
}

type Json = Record<string, unknown>;

const TYPES: Record<string, ComponentType> = { plugin: "plugin", theme: "theme", core: "wordpress" };
const CVE = /^CVE-\d{4}-\d{4,}$/;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown, max: number): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, max) : null;

/** "2024-01-02 03:04:05" (UTC, Wordfence's usual form) or ISO 8601; null when neither. */
export function feedDate(value: unknown): Date | null {
  const raw = text(value, 40);
  if (!raw) return null;
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/.test(raw) ? `${raw.replace(" ", "T")}Z` : raw;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A bound: "*" or absent is open (null); otherwise the version text, capped. */
function bound(value: unknown): string | null {
  const raw = text(value, 50);
  return raw === null || raw === "*" ? null : raw;
}

function ranges(value: unknown): VersionRange[] {
  if (!isObject(value)) return [];
  const result: VersionRange[] = [];
  for (const entry of Object.values(value)) {
    if (!isObject(entry)) continue;
    result.push({
      from: bound(entry.from_version),
      from_inclusive: entry.from_inclusive !== false,
      to: bound(entry.to_version),
      to_inclusive: entry.to_inclusive !== false,
    });
  }
  return result;
}

function notices(value: unknown): CopyrightNotice[] {
  if (!isObject(value)) return [];
  const found: CopyrightNotice[] = [];
  for (const [holder, entry] of Object.entries(value)) {
    if (!isObject(entry)) continue; // "message" is the record-level preamble, not a holder
    const notice = text(entry.notice, 500);
    if (!notice) continue;
    found.push({
      holder: holder.slice(0, 50),
      notice,
      license: text(entry.license, 2000),
      license_url: text(entry.license_url, 500),
    });
  }
  return found;
}

/** One feed record → its advisory rows (one per affected plugin, theme or core). */
export function normalizeRecord(key: string, value: unknown): NormalizedRecord {
  const none = (skipped: string): NormalizedRecord => ({ rows: [], notices: [], updated: null, skipped });
  if (!isObject(value)) return none("not an object");
  if (value.informational === true) return none("informational");
  const id = text(value.id, 100) ?? text(key, 100);
  const title = text(value.title, 300);
  if (!id || !title) return none("no id or title");
  const cvss = isObject(value.cvss) ? value.cvss : {};
  const score = typeof cvss.score === "number" && cvss.score >= 0 && cvss.score <= 10 ? cvss.score : null;
  const rating = text(cvss.rating, 20);
  const cve = text(value.cve, 30);
  const references = Array.isArray(value.references)
    ? value.references
        .map((reference) => text(reference, 2048))
        .filter((reference): reference is string => reference !== null && /^https?:\/\//i.test(reference))
        .slice(0, 20)
    : [];
  const updated = feedDate(value.updated);
  const rows: AdvisoryRow[] = [];
  for (const software of Array.isArray(value.software) ? value.software : []) {
    if (!isObject(software)) continue;
    const type = TYPES[String(software.type)];
    const slug = type === "wordpress" ? "wordpress" : text(software.slug, 100)?.toLowerCase();
    if (!type || !slug || !SLUG.test(slug)) continue;
    const affected = ranges(software.affected_versions);
    if (affected.length === 0) continue;
    rows.push({
      component_type: type,
      slug,
      id,
      title,
      severity: severityFromCvss(rating, score),
      cvss_score: score,
      cvss_rating: rating,
      cvss_vector: text(cvss.vector, 200),
      cve: cve && CVE.test(cve) ? [cve] : [],
      affected,
      patched: Array.isArray(software.patched_versions)
        ? software.patched_versions.map((version) => text(version, 50)).filter((v): v is string => v !== null)
        : [],
      refs: references,
      published_at: feedDate(value.published),
      updated_at: updated,
    });
  }
  return {
    rows,
    notices: notices(value.copyrights),
    updated,
    skipped: rows.length === 0 ? "no plugin, theme or core with version ranges" : null,
  };
}

/**
 * The feed's records, one at a time, from a byte stream, each within RECORD_CAPS (memory
 * bounded whatever a record's shape; `capped` when something was dropped). Throws when the
 * bytes are not one complete JSON object (a truncated download ends in a parse error, never a
 * silent stop).
 */
export function readFeed(
  bytes: AsyncIterable<Uint8Array>,
  caps: RecordCaps = RECORD_CAPS,
): AsyncGenerator<{ key: string; value: unknown; capped: boolean }> {
  return readCappedRecords(bytes, caps);
}

/** The notices collected during an import, deduplicated, as the text a report shows. */
export function attributionText(collected: Iterable<CopyrightNotice>): string {
  const lines = [`Vulnerability data: ${WORDFENCE_SOURCE_NAME} (terms: ${WORDFENCE_TERMS_URL}).`];
  for (const notice of collected) {
    const license = [notice.license, notice.license_url ? `(${notice.license_url})` : null].filter(Boolean).join(" ");
    lines.push(license ? `${notice.notice} ${license}` : notice.notice);
  }
  return lines.join("\n");
}
