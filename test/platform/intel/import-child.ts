/**
 * A separate process that imports a Wordfence feed file into DATABASE_URL, for the test that
 * kills an import midway. Its lease is short (IMPORT_LEASE_MS) so that the next import need
 * not wait long after the kill. Prints "rows" once it has written some.
 */

import { createReadStream } from "node:fs";
import postgres from "postgres";
import { importWordfenceFeed } from "../../../server/intel/importer.ts";
import { IntelStore } from "../../../server/intel/intel.store.ts";

const [file, url, lease] = process.argv.slice(2) as [string, string, string];
const sql = postgres(url, { max: 2, onnotice: () => {} });
const store = new IntelStore(sql, Number(lease));
let announced = false;
// Slow the import down after the first batches so the test can kill it midway.
async function* slowly() {
  let chunks = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) {
    if (++chunks > 8) {
      if (!announced) {
        announced = true;
        process.stdout.write("rows\n");
      }
      await Bun.sleep(50);
    }
    yield chunk as Uint8Array;
  }
}
await importWordfenceFeed(store, slowly());
process.stdout.write("done\n");
await sql.end();
