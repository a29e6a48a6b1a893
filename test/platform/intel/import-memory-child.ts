/**
 * A separate process that imports one Wordfence feed file into DATABASE_URL and prints, as
 * one JSON line, the import's result (or its error) and the process's peak resident memory
 * (VmHWM): the memory test measures a process that did nothing but that import.
 */
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { importWordfenceFile } from "../../../server/intel/importer.ts";
import { IntelStore } from "../../../server/intel/intel.store.ts";

const [file, url] = process.argv.slice(2) as [string, string];
const sql = postgres(url, { max: 2, onnotice: () => {} });
const store = new IntelStore(sql);
const peakBytes = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) * 1024;
let outcome: Record<string, unknown>;
try {
  outcome = { result: await importWordfenceFile(store, file) };
} catch (error) {
  outcome = { error: (error as Error).message.slice(0, 300) };
}
process.stdout.write(`${JSON.stringify({ ...outcome, peak_rss: peakBytes() })}\n`);
await sql.end();
