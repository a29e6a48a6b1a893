/**
 * Imports into the intel tables: the Wordfence feed (streamed, in batches) and our own
 * INTEL_FILE format (docs/intel.md). Each import is one generation, swapped in only when it
 * is complete (IntelStore); any failure keeps the served data whole.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { FILE_SOURCE_ID, type IntelComponent, readIntelFile } from "../analyzer/intel/data.ts";
import type { AdvisoryRow, ComponentType, IntelStore, LatestVersionRow } from "./intel.store.ts";
import { WORDFENCE_SOURCE_ID } from "./source-ids.ts";
import { attributionText, type CopyrightNotice, normalizeRecord, readFeed } from "./wordfence.ts";

export interface ImportResult {
  source: string;
  /** False when the content was already served (same bytes): nothing was written. */
  imported: boolean;
  records: number;
  rows: number;
  skipped: number;
  /** Records larger than a cap (capped-records.ts): imported with what fitted. */
  capped: number;
  as_of: Date | null;
}

export class IntelImportError extends Error {
  override name = "IntelImportError";
}

/**
 * Rows per INSERT: big enough to be fast, small enough to interleave with API queries and
 * to keep the garbage of each batch small (bench:intel: 500 rows peaked at 132–164 MB on
 * PostgreSQL, 250 at ~125 MB, for 2 s more on a 200 MB feed).
 */
const BATCH = 250;
/** Distinct copyright notices kept for the attribution (the feed has two or three). */
const MAX_NOTICES = 10;

export interface WordfenceImportOptions {
  etag?: string | null;
  lastModified?: string | null;
  /** Refuse the result if it has fewer records than this (a suspiciously small feed). */
  minRecords?: number;
}

/** Wraps a byte stream to hash it on the way through. */
function hashing(bytes: AsyncIterable<Uint8Array>, hash: ReturnType<typeof createHash>): AsyncIterable<Uint8Array> {
  return (async function* () {
    for await (const chunk of bytes) {
      hash.update(chunk);
      yield chunk;
    }
  })();
}

export async function importWordfenceFeed(
  store: IntelStore,
  bytes: AsyncIterable<Uint8Array>,
  options: WordfenceImportOptions = {},
): Promise<ImportResult> {
  const session = await store.beginImport(WORDFENCE_SOURCE_ID);
  const hash = createHash("sha256");
  let records = 0;
  let rowCount = 0;
  let skipped = 0;
  let capped = 0;
  let newest: Date | null = null;
  const notices = new Map<string, CopyrightNotice>();
  let batch: AdvisoryRow[] = [];
  try {
    for await (const { key, value, capped: overCap } of readFeed(hashing(bytes, hash))) {
      records++;
      if (overCap) capped++;
      const record = normalizeRecord(key, value);
      if (record.skipped) skipped++;
      if (record.updated && (!newest || record.updated > newest)) newest = record.updated;
      for (const notice of record.notices) {
        const id = `${notice.holder}\u0000${notice.notice}`;
        if (!notices.has(id) && notices.size < MAX_NOTICES) notices.set(id, notice);
      }
      // One row at a time, and every BATCH rows to the database: a record naming thousands of
      // components is split over several INSERTs (one INSERT of 300k rows broke the protocol's
      // 65535-parameter limit).
      for (const row of record.rows) {
        batch.push(row);
        if (batch.length < BATCH) continue;
        rowCount += batch.length;
        await session.addAdvisories(batch);
        batch = [];
        // On PGlite the engine's WASM memory makes Bun's collector wait far too long (an
        // import peaked at 600 MB); collecting after each batch holds it near 220 MB.
        if (store.collectAfterBatch) Bun.gc(true);
      }
    }
    rowCount += batch.length;
    await session.addAdvisories(batch);
    const usable = records - skipped;
    if (usable === 0) throw new IntelImportError("the feed holds no usable vulnerability record");
    if (options.minRecords && usable < options.minRecords) {
      throw new IntelImportError(
        `the feed holds ${usable} usable records, fewer than half of the ${options.minRecords * 2} served now; kept the served data (import it with the CLI to force it)`,
      );
    }
    const lastModified = options.lastModified ? new Date(options.lastModified) : null;
    const asOf = lastModified && !Number.isNaN(lastModified.getTime()) ? lastModified : newest;
    await session.commit({
      as_of: asOf,
      record_count: usable,
      attribution: attributionText(notices.values()),
      etag: options.etag ?? null,
      last_modified: options.lastModified ?? null,
      content_sha256: hash.digest("hex"),
    });
    return { source: WORDFENCE_SOURCE_ID, imported: true, records, rows: rowCount, skipped, capped, as_of: asOf };
  } catch (error) {
    await session.abort(describeFailure(error)).catch(() => {});
    throw error instanceof IntelImportError ? error : new IntelImportError(describeFailure(error));
  }
}

function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /parse|expected|unexpected|Top-level/i.test(message)
    ? `the feed is not one complete JSON object (truncated or corrupt): ${message}`
    : message;
}

/** A feed file on disk (air-gapped operation: `intel import --source wordfence --file`). */
export function importWordfenceFile(store: IntelStore, file: string): Promise<ImportResult> {
  return importWordfenceFeed(store, createReadStream(file));
}

/**
 * Our own format (INTEL_FILE, `intel import --source file`). Read and validated whole first by
 * the one reader of data files (readIntelFile: the files are small and hand-made), so a typo is
 * refused with an IntelDataError before anything is written; a file already served is not
 * re-imported.
 */
export async function importIntelFile(store: IntelStore, file: string): Promise<ImportResult> {
  const { intel, sha256: sha } = readIntelFile(file);
  const served = await store.source(FILE_SOURCE_ID);
  const asOf = intel.updated ? new Date(`${intel.updated}T00:00:00Z`) : null;
  const entries: [ComponentType, string, IntelComponent][] = [
    ...(intel.wordpress
      ? [["wordpress", "wordpress", intel.wordpress] as [ComponentType, string, IntelComponent]]
      : []),
    ...[...intel.plugins].map(([slug, entry]) => ["plugin", slug, entry] as [ComponentType, string, IntelComponent]),
    ...[...intel.themes].map(([slug, entry]) => ["theme", slug, entry] as [ComponentType, string, IntelComponent]),
  ];
  const advisories: AdvisoryRow[] = entries.flatMap(([type, slug, entry]) =>
    entry.vulnerabilities.map((vulnerability) => ({
      component_type: type,
      slug,
      id: vulnerability.id,
      title: vulnerability.title,
      severity: vulnerability.severity,
      cvss_score: vulnerability.cvss,
      cvss_rating: vulnerability.cvss_rating,
      cvss_vector: vulnerability.cvss_vector,
      cve: vulnerability.cve,
      affected: vulnerability.affected,
      patched: vulnerability.patched,
      refs: vulnerability.references,
      published_at: null,
      updated_at: null,
    })),
  );
  const records = advisories.length;
  if (served?.generation && served.content_sha256 === sha) {
    return {
      source: FILE_SOURCE_ID,
      imported: false,
      records,
      rows: records,
      skipped: 0,
      capped: 0,
      as_of: served.as_of,
    };
  }
  const latest: LatestVersionRow[] = entries.flatMap(([type, slug, entry]) =>
    entry.latest_version ? [{ component_type: type, slug, latest_version: entry.latest_version }] : [],
  );
  const session = await store.beginImport(FILE_SOURCE_ID);
  try {
    for (let i = 0; i < advisories.length; i += BATCH) await session.addAdvisories(advisories.slice(i, i + BATCH));
    for (let i = 0; i < latest.length; i += BATCH) await session.addLatestVersions(latest.slice(i, i + BATCH));
    await session.commit({
      as_of: asOf,
      record_count: entries.length,
      attribution: intel.sources[0]?.name ?? null,
      content_sha256: sha,
    });
  } catch (error) {
    await session.abort((error as Error).message).catch(() => {});
    throw error;
  }
  return { source: FILE_SOURCE_ID, imported: true, records, rows: records, skipped: 0, capped: 0, as_of: asOf };
}
