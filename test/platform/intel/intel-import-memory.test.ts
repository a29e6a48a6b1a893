/**
 * Issue 21, row 9: a feed's records are read within caps, so an import's memory is bounded
 * by the caps and the batch, whatever a record's shape. A hostile 40 MB feed — one record
 * naming 100,000 plugins, one with a 16 MB description and 50,000 version ranges, one nested
 * 10,000 deep, and 500 ordinary records — is imported by a process of its own on PostgreSQL:
 * - the import succeeds (it used to abort with MAX_PARAMETERS_EXCEEDED after a 1.46 GB peak);
 * - the oversized records are imported in part, up to the caps, and counted as capped;
 * - the process's peak RSS stays under 400 MB (the 1.46 GB before is the figure to beat;
 *   bench:intel prints the figures of ordinary feeds).
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { RECORD_CAPS } from "../../../server/intel/capped-records.ts";
import { createPostgresDatabase, type TestDatabase } from "../../helpers/databases.ts";
import { HAS_POSTGRES } from "../../helpers/env.ts";
import { ROOT } from "../../helpers/processes.ts";
import { syntheticRecord } from "./feed-builder.ts";

setDefaultTimeout(180_000);

const PEAK_LIMIT = 400 * 1024 * 1024;
const MANY = 100_000;

/** `{…fields, "last":` — an object whose last member's value the caller writes (then `}`). */
function openEnded(fields: Record<string, unknown>, last: string): string {
  return `${JSON.stringify(fields).slice(0, -1)},${JSON.stringify(last)}:`;
}

/** Writes the hostile feed piece by piece (the test itself must not hold it whole). */
async function writeHostileFeed(file: string): Promise<void> {
  const out = createWriteStream(file);
  const write = (text: string) =>
    new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once("drain", () => resolve())));
  await write("{");
  for (let n = 1; n <= 500; n++) {
    const record = syntheticRecord(n);
    await write(`${JSON.stringify(record.id)}:${JSON.stringify(record)},`);
  }
  // One record naming 100,000 plugins.
  const wide = syntheticRecord(900_001);
  const software = (wide.software as Record<string, unknown>[])[0] as Record<string, unknown>;
  await write(`"wide":${openEnded({ ...wide, software: undefined }, "software")}[`);
  for (let i = 0; i < MANY; i++) {
    await write(`${i > 0 ? "," : ""}${JSON.stringify({ ...software, slug: `wide-plugin-${i}`, name: `Wide ${i}` })}`);
  }
  await write("]},");
  // One record with a 16 MB description and 50,000 version ranges.
  const fat = syntheticRecord(900_002);
  await write(`"fat":${openEnded({ ...fat, description: undefined }, "description")}"`);
  const chunk = "d".repeat(1024 * 1024);
  for (let i = 0; i < 16; i++) await write(chunk);
  await write('","extra_ranges":{');
  for (let i = 0; i < 50_000; i++) {
    await write(`${i > 0 ? "," : ""}"r${i}":{"from_version":"${i}","to_version":"${i}.9"}`);
  }
  await write("}},");
  // One record nested 10,000 deep.
  await write(`"deep":${"[".repeat(10_000)}${"]".repeat(10_000)}`);
  await write("}");
  await new Promise<void>((resolve) => out.end(resolve));
}

describe.skipIf(!HAS_POSTGRES)("intel import memory, whatever a record's shape (PostgreSQL)", () => {
  let db: TestDatabase | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), "wpreport-hostile-feed-"));
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db?.destroy();
  });

  test("a record naming 100,000 plugins, a 16 MB string and a 10,000-deep value: imported within the caps, peak RSS bounded", async () => {
    db = await createPostgresDatabase();
    const file = path.join(dir, "feed.json");
    await writeHostileFeed(file);
    const child = Bun.spawn(
      [process.execPath, path.join(import.meta.dir, "import-memory-child.ts"), file, db.url as string],
      { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
    );
    const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    await child.exited;
    const line = out.trim().split("\n").at(-1) ?? "";
    expect({ line, err: err.slice(0, 500) }).toMatchObject({ line: expect.stringContaining("peak_rss") });
    const outcome = JSON.parse(line) as {
      result?: { records: number; rows: number; skipped: number; capped: number };
      error?: string;
      peak_rss: number;
    };
    console.log(
      `[intel import] hostile 40 MB feed: ${outcome.error ? `failed (${outcome.error})` : `${outcome.result?.rows} rows, ${outcome.result?.capped} records capped`}; peak RSS ${(outcome.peak_rss / 1024 / 1024).toFixed(0)} MB`,
    );
    expect(outcome.error).toBeUndefined();
    // 500 ordinary records and the fat one (its plugin; its string cut, its ranges dropped),
    // the wide one up to the cap; the deep one is no record at all.
    expect(outcome.result).toMatchObject({ records: 503, rows: 501 + RECORD_CAPS.maxItems, skipped: 1, capped: 3 });
    expect(outcome.peak_rss).toBeLessThan(PEAK_LIMIT);
  });
});
