/**
 * `intel import --source names --file …`: a names index from a file (air-gapped installs,
 * or a dump fed by hand), in the directory API's own page format or the line format
 * (entries.ts). Each type the file holds becomes a new generation, swapped in only when the
 * whole file has been read; anything wrong in it leaves the served index as it was.
 */
import type { DirectoryType } from "../../analyzer/detect/finders/directory.ts";
import type { DirectoryImport, DirectoryStore } from "./directory.store.ts";
import { type DirectoryEntry, DirectoryFormatError, readDirectoryFile } from "./entries.ts";

/** Entries per INSERT (a name gives one row and two or three keys). */
export const DIRECTORY_BATCH = 500;

export interface DirectoryImportResult {
  /** Entries now served, by type the file held. */
  plugin?: number;
  theme?: number;
}

/** Writes a stream of entries as new generations of their types; commits all or none. */
export async function importDirectoryEntries(
  store: DirectoryStore,
  entries: AsyncIterable<DirectoryEntry>,
  origin: "wordpress.org" | "file",
  /** Collect garbage after each batch (the embedded PGlite: see server/intel/importer.ts). */
  collectAfterBatch = false,
): Promise<DirectoryImportResult> {
  const sessions = new Map<DirectoryType, DirectoryImport>();
  const batches = new Map<DirectoryType, DirectoryEntry[]>();
  const flush = async (type: DirectoryType) => {
    const batch = batches.get(type) ?? [];
    batches.set(type, []);
    await sessions.get(type)?.add(batch);
    if (collectAfterBatch) Bun.gc(true);
  };
  try {
    for await (const entry of entries) {
      if (!sessions.has(entry.type)) sessions.set(entry.type, await store.beginImport(entry.type));
      const batch = batches.get(entry.type) ?? [];
      batch.push(entry);
      batches.set(entry.type, batch);
      if (batch.length >= DIRECTORY_BATCH) await flush(entry.type);
    }
    if (sessions.size === 0) throw new DirectoryFormatError("the file holds no entry");
    for (const type of sessions.keys()) await flush(type);
    const result: DirectoryImportResult = {};
    for (const [type, session] of sessions) result[type] = await session.commit({ origin, full: true });
    return result;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    for (const session of sessions.values()) await session.abort(reason).catch(() => {});
    throw error;
  }
}

export function importDirectoryFile(
  store: DirectoryStore,
  file: string,
  type: DirectoryType = "plugin",
  collectAfterBatch = false,
): Promise<DirectoryImportResult> {
  return importDirectoryEntries(store, readDirectoryFile(file, type), "file", collectAfterBatch);
}
