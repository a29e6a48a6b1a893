/**
 * Imports into the intel tables on both backends: the Wordfence sample, our INTEL_FILE
 * format, idempotence, refusal of truncated and empty feeds (the served data stays), one
 * import at a time, and — on PostgreSQL — an import killed midway leaving the old data served.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { IntelDataError, intelQuery } from "../../../server/analyzer/intel/index.ts";
import type { IntelQuery } from "../../../server/analyzer/intel/query.ts";
import {
  IntelImportError,
  importIntelFile,
  importWordfenceFeed,
  importWordfenceFile,
} from "../../../server/intel/importer.ts";
import { IntelService } from "../../../server/intel/intel.service.ts";
import { ImportBusyError, IntelStore } from "../../../server/intel/intel.store.ts";
import { LatestVersions } from "../../../server/intel/latest-versions.ts";
import { silentLogger } from "../../../server/platform/logger.ts";
import { BACKENDS, createPostgresDatabase, createTestDatabase, type TestDatabase } from "../../helpers/databases.ts";
import { HAS_POSTGRES } from "../../helpers/env.ts";
import { ROOT } from "../../helpers/processes.ts";
import { SAMPLE_AKISMET_ID, SAMPLE_FEED_FILE, SAMPLE_FEED_TEXT, syntheticFeed } from "./feed-builder.ts";

const TEST_INTEL_FILE = path.join(import.meta.dir, "intel.json");
const QUERY: IntelQuery = { wordpress: true, plugins: ["akismet", "xrds-simple"], themes: ["twentytwentyone"] };
const bytes = (text: string) =>
  (async function* () {
    yield new TextEncoder().encode(text);
  })();

async function rowCount(db: TestDatabase, source: string): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from intel_advisories where source = ${source}`;
  return row?.n ?? 0;
}

describe.each(BACKENDS)("intel imports on %s", (backend) => {
  let db: TestDatabase;
  let store: IntelStore;
  let service: IntelService;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    store = new IntelStore(db.sql);
    service = new IntelService(store, new LatestVersions(store, null, silentLogger), 100);
  }, 60_000);
  afterAll(() => db.destroy());

  test("the Wordfence sample: one row per affected component, informational records skipped, attribution kept", async () => {
    const result = await importWordfenceFile(store, SAMPLE_FEED_FILE);
    expect(result).toMatchObject({ source: "wordfence", imported: true, records: 4, rows: 3, skipped: 1 });
    const source = await store.source("wordfence");
    expect(source).toMatchObject({ record_count: 3, last_error: null, importing: false });
    expect(source?.as_of?.toISOString()).toBe("2026-11-12T10:00:00.000Z");
    expect(source?.attribution).toContain("Copyright 2012-2026 Defiant Inc.");
    expect(source?.attribution).toContain("Copyright 1999-2026 The MITRE Corporation");
    expect(source?.attribution).toContain("https://www.cve.org/Legal/TermsOfUse");

    const intel = await service.lookup(QUERY);
    expect(intel.vulnerabilityData).toBe(true);
    const akismet = intel.plugins.get("akismet")?.vulnerabilities ?? [];
    expect(akismet).toEqual([
      {
        id: SAMPLE_AKISMET_ID,
        title: "Akismet <= 5.0.2 - Test Record: Authenticated Stored Cross-Site Scripting",
        severity: "medium",
        cvss: 6.4,
        cvss_rating: "Medium",
        cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N",
        cve: ["CVE-2099-10001"],
        affected: [{ from: null, from_inclusive: true, to: "5.0.2", to_inclusive: true }],
        patched: ["5.0.3"],
        references: [
          "https://www.wordfence.com/threat-intel/vulnerabilities/id/0b1c6a1e-5d3f-4c2e-9a57-3f0d8c1e2a01?source=api-prod",
        ],
        source: "wordfence",
        sources: ["wordfence"],
      },
    ]);
    expect(intel.wordpress?.vulnerabilities.map((entry) => [entry.severity, entry.patched])).toEqual([
      ["critical", ["6.1.10", "6.2.9"]],
    ]);
    expect(intel.sources.map((entry) => entry.id)).toEqual(["wordfence"]);
  });

  test("importing the same feed again serves the same data, with one generation's rows", async () => {
    const before = await service.lookup(QUERY);
    const rows = await rowCount(db, "wordfence");
    const generation = (await store.source("wordfence"))?.generation;
    await importWordfenceFile(store, SAMPLE_FEED_FILE);
    const after = await service.lookup(QUERY);
    expect(after.plugins).toEqual(before.plugins);
    expect(after.wordpress).toEqual(before.wordpress);
    expect(await rowCount(db, "wordfence")).toBe(rows);
    expect((await store.source("wordfence"))?.generation).not.toBe(generation);
  });

  test("our INTEL_FILE format: imported once, a second import of the same bytes changes nothing", async () => {
    const first = await importIntelFile(store, TEST_INTEL_FILE);
    expect(first.imported).toBe(true);
    const second = await importIntelFile(store, TEST_INTEL_FILE);
    expect(second.imported).toBe(false);
    const intel = await service.lookup(QUERY);
    expect(intel.plugins.get("akismet")?.latest_version).toBe("5.3.5");
    // Both sources' advisories (matching them to the installed version is applyIntel's job).
    expect(
      intel.plugins
        .get("akismet")
        ?.vulnerabilities.map((entry) => entry.source)
        .sort(),
    ).toEqual(["file", "file", "wordfence"]);
    expect(intel.sources.map((entry) => entry.id).sort()).toEqual(["file", "wordfence"]);
  });

  test("a bad INTEL_FILE is refused before anything is written", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "wpreport-intel-"));
    const bad = path.join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ format: 1, wordpress: { latest_version: "6.8", vulnerabilities: [{}] } }));
    const served = await store.source("file");
    await expect(importIntelFile(store, bad)).rejects.toThrow("wordpress.vulnerabilities[0].severity: must be one of");
    expect((await store.source("file"))?.generation).toBe(served?.generation ?? null);
    // Unreadable, not JSON, a bad value: one reader (readIntelFile), one error class, at start-up and in the CLI alike.
    const notJson = path.join(dir, "not-json.json");
    writeFileSync(notJson, "{ format: 1");
    for (const [file, message] of [
      [bad, "wordpress.vulnerabilities[0].severity"],
      [notJson, `intel data ${notJson}: not valid JSON`],
      [path.join(dir, "missing.json"), "cannot be read"],
    ] as const) {
      const attempt = importIntelFile(store, file);
      await expect(attempt, file).rejects.toBeInstanceOf(IntelDataError);
      await expect(importIntelFile(store, file), file).rejects.toThrow(message);
    }
    expect((await store.source("file"))?.generation).toBe(served?.generation ?? null);
  });

  test("a truncated, a corrupt and an empty feed are refused; the served data stays whole", async () => {
    const served = await store.source("wordfence");
    const before = await service.lookup(QUERY);
    const rows = await rowCount(db, "wordfence");
    const cases: [string, string][] = [
      ["truncated", SAMPLE_FEED_TEXT.slice(0, Math.floor(SAMPLE_FEED_TEXT.length * 0.6))],
      ["corrupt", SAMPLE_FEED_TEXT.replace('"software": [', '"software": [[')],
      ["not an object", "[1, 2, 3]"],
      ["empty", "{}"],
    ];
    for (const [name, text] of cases) {
      const attempt = importWordfenceFeed(store, bytes(text));
      await expect(attempt, name).rejects.toBeInstanceOf(IntelImportError);
      const now = await store.source("wordfence");
      expect(now?.generation, name).toBe(served?.generation as string);
      expect(now?.last_error, name).toBeTruthy();
      expect(now?.importing, name).toBe(false);
      expect(await rowCount(db, "wordfence"), name).toBe(rows);
      expect((await service.lookup(QUERY)).plugins, name).toEqual(before.plugins);
    }
    expect((await store.source("wordfence"))?.last_error).toContain("no usable vulnerability record");
  }, 30_000);

  test("one import of a source at a time", async () => {
    const session = await store.beginImport("wordfence");
    await expect(store.beginImport("wordfence")).rejects.toBeInstanceOf(ImportBusyError);
    await session.abort("test");
    const again = await store.beginImport("wordfence");
    await again.abort("test");
  });

  test("a lookup asks only about the detected components, and unknown slugs find nothing", async () => {
    const intel = await service.lookup({ wordpress: false, plugins: ["constructor", "no-such-plugin"], themes: [] });
    expect(intel.wordpress).toBeNull();
    expect(intel.plugins.get("constructor")).toEqual({
      latest_version: null,
      latest_version_reason: "no_data",
      vulnerabilities: [],
    });
    expect(
      intelQuery({
        wordpress: { detected: true },
        theme: null,
        installedThemes: [{ slug: "Astra" }],
        plugins: [{ slug: "Akismet" }, { slug: "akismet" }, { slug: "../etc" }],
      } as never),
    ).toEqual({ wordpress: true, wordpressVersion: null, plugins: ["akismet"], themes: ["astra"] });
    // A core version goes into WPVulnerability's URL only when it is a plain release number.
    for (const [version, asked] of [
      ["6.1.9", "6.1.9"],
      ["6.2", "6.2"],
      ["6.5-RC1", null],
      ["../../admin", null],
      ["6.1.9/../x", null],
      [null, null],
    ] as const) {
      expect(
        intelQuery({ wordpress: { detected: true, version }, theme: null, installedThemes: [], plugins: [] } as never)
          .wordpressVersion,
      ).toBe(asked);
    }
  });
});

describe.skipIf(!HAS_POSTGRES)("an import killed midway (PostgreSQL)", () => {
  let db: TestDatabase;
  afterAll(() => db?.destroy());

  test("the old data is still served, and the next import cleans up and succeeds", async () => {
    db = await createPostgresDatabase();
    const store = new IntelStore(db.sql);
    await importWordfenceFile(store, SAMPLE_FEED_FILE);
    const served = await store.source("wordfence");
    const service = new IntelService(store, new LatestVersions(store, null, silentLogger), 100);
    const before = await service.lookup(QUERY);

    const dir = mkdtempSync(path.join(tmpdir(), "wpreport-feed-"));
    const big = path.join(dir, "feed.json");
    writeFileSync(big, syntheticFeed(20_000));
    const child = Bun.spawn(["bun", path.join(import.meta.dir, "import-child.ts"), big, db.url as string, "1000"], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    // Wait until the child has written rows of its new generation, then kill it hard.
    const deadline = Date.now() + 20_000;
    let written = 0;
    while (Date.now() < deadline) {
      const [row] = await db.sql<{ n: number }[]>`
        select count(*)::int as n from intel_advisories a join intel_sources s on s.id = a.source
        where a.source = 'wordfence' and a.generation = s.importing_generation`;
      written = row?.n ?? 0;
      if (written >= 1000) break;
      await Bun.sleep(50);
    }
    expect(written).toBeGreaterThanOrEqual(1000);
    child.kill("SIGKILL");
    await child.exited;

    // Half an import sits in the table, but nobody reads it.
    expect(await store.source("wordfence")).toMatchObject({ generation: served?.generation, record_count: 3 });
    const during = await service.lookup({ ...QUERY, plugins: [...QUERY.plugins, "plugin-1", "plugin-2"] });
    expect(during.plugins.get("akismet")).toEqual(before.plugins.get("akismet"));
    expect(during.plugins.get("plugin-1")?.vulnerabilities).toEqual([]);

    // After the dead import's lease runs out, the next import removes its rows and completes.
    await Bun.sleep(1_100);
    const next = new IntelStore(db.sql, 1000);
    await importWordfenceFeed(next, bytes(syntheticFeed(50)));
    expect(await rowCount(db, "wordfence")).toBe(50);
    expect((await store.source("wordfence"))?.record_count).toBe(50);
  }, 60_000);
});
