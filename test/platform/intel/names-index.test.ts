/**
 * The names index on both backends: imports from the directory API's own page format
 * (one page, pages one after another, an array of pages; every field present, as a dump
 * would have them) and from the line format; lookups by whole and short names and by slug;
 * bad files refused with the served index left whole; one import at a time; the CLI; and
 * the refresh from a local stub speaking the API's format — a full listing, an unchanged
 * incremental one (one request), an incremental one with a renamed and a new plugin, a
 * conditional first page (304), a failing page, a listing that shrank, lookups turned off;
 * and the pg-boss job filling an empty index at start-up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCommand } from "../../../server/cli/commands.ts";
import { DirectoryBusyError, DirectoryStore } from "../../../server/intel/directory/directory.store.ts";
import { importDirectoryFile } from "../../../server/intel/directory/directory-import.ts";
import { DirectoryRefresher } from "../../../server/intel/directory/directory-refresh.ts";
import { DirectoryFormatError } from "../../../server/intel/directory/entries.ts";
import { silentLogger } from "../../../server/platform/logger.ts";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../../helpers/databases.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import {
  type DirectoryEntryFixture,
  type DirectoryStub,
  directoryFixture,
  listingPage,
  startDirectoryStub,
} from "../../helpers/wporg-directory.ts";

const dir = mkdtempSync(path.join(tmpdir(), "wpreport-names-"));
function file(name: string, text: string): string {
  const target = path.join(dir, name);
  writeFileSync(target, text);
  return target;
}
const fixture = directoryFixture();
/** The plugin listing as pages of `perPage`, the API's format. */
const pages = (entries: readonly DirectoryEntryFixture[], perPage: number, type: "plugin" | "theme" = "plugin") =>
  Array.from({ length: Math.ceil(entries.length / perPage) }, (_, index) =>
    listingPage(type, entries, index + 1, perPage),
  );

async function rows(db: TestDatabase, type: string): Promise<number> {
  const [row] = await db.sql<
    { n: number }[]
  >`select count(*)::int as n from directory_names where component_type = ${type}`;
  return row?.n ?? 0;
}

describe.each(BACKENDS)("the names index on %s", (backend) => {
  let db: TestDatabase;
  let store: DirectoryStore;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    store = new DirectoryStore(db.sql);
  }, 60_000);
  afterAll(() => db.destroy());

  test("API pages one after another: every plugin, names decoded, found by whole and short names", async () => {
    const text = pages(fixture.plugins, 10)
      .map((page) => JSON.stringify(page))
      .join("\n");
    const result = await importDirectoryFile(store, file("plugins.jsonl", text));
    expect(result).toEqual({ plugin: fixture.plugins.length });
    expect(await store.source("plugin")).toMatchObject({
      record_count: fixture.plugins.length,
      origin: "file",
      last_error: null,
    });
    const answer = await store.lookup({
      names: ["yoast seo", "rank math seo", "rank math", "monsterinsights", "smart slider", "nothing like it"],
      slugs: ["adrotate", "no-such-plugin"],
    });
    expect(answer.available).toBe(true);
    expect(answer.names["yoast seo"]).toEqual([
      { type: "plugin", slug: "wordpress-seo", kind: "full", installs: 10_000_000 },
    ]);
    expect(answer.names["rank math seo"]?.[0]).toMatchObject({ slug: "seo-by-rank-math", kind: "short" });
    expect(answer.names["rank math"]?.[0]).toMatchObject({ slug: "seo-by-rank-math", kind: "short" });
    expect(answer.names.monsterinsights?.[0]?.slug).toBe("google-analytics-for-wordpress");
    expect(answer.names["smart slider"]?.map((hit) => hit.slug)).toEqual([
      "smart-slider-lite",
      "smart-slider-pro-addon",
    ]);
    expect(answer.names["nothing like it"]).toBeUndefined();
    expect(answer.slugs["plugin:adrotate"]?.name).toBe(
      "AdRotate Banner Manager \u2013 The only ad manager you\u2019ll need",
    );
    expect(answer.slugs["plugin:seo-by-rank-math"]?.name).toBe(
      "Rank Math SEO \u2013 AI SEO Tools to Dominate SEO Rankings",
    );
    expect(answer.slugs["plugin:no-such-plugin"]).toBeUndefined();
  });

  test("an array of theme pages adds the themes and leaves the plugins as they were", async () => {
    const plugins = await store.source("plugin");
    await importDirectoryFile(store, file("themes.json", JSON.stringify(pages(fixture.themes, 2, "theme"))));
    expect((await store.source("theme"))?.record_count).toBe(fixture.themes.length);
    expect((await store.source("plugin"))?.generation).toBe(plugins?.generation ?? null);
    const answer = await store.lookup({ names: ["astra"], slugs: ["flavorite"] });
    expect(answer.names.astra).toEqual([{ type: "theme", slug: "astra", kind: "full", installs: 1_000_000 }]);
    expect(answer.slugs["theme:flavorite"]?.name).toBe("Flavorite");
  });

  test("the line format: a new generation replaces the served one whole (a renamed plugin's old name is gone)", async () => {
    const lines = [
      "# slug name",
      "wordpress-seo Yoast SEO Premium Edition",
      "",
      "contact-form-7   Contact Form 7",
      "tidy-tables Tidy Tables &amp; Charts",
    ].join("\n");
    expect(await importDirectoryFile(store, file("plugins.txt", lines))).toEqual({ plugin: 3 });
    expect(await rows(db, "plugin")).toBe(3);
    const answer = await store.lookup({
      names: ["yoast seo", "yoast seo premium edition", "tidy tables & charts"],
      slugs: ["adrotate"],
    });
    // "Yoast SEO" is now only the first words of the new name, no longer a whole name.
    expect(answer.names["yoast seo"]?.map((hit) => hit.kind)).toEqual(["prefix"]);
    expect(answer.names["yoast seo premium edition"]?.[0]).toEqual({
      type: "plugin",
      slug: "wordpress-seo",
      kind: "full",
      installs: null,
    });
    expect(answer.names["tidy tables & charts"]?.[0]?.slug).toBe("tidy-tables");
    expect(answer.slugs["plugin:adrotate"]).toBeUndefined();
  });

  test("bad files are refused with where the problem is; the served index stays whole", async () => {
    const served = await store.source("plugin");
    const cases: [string, string, string][] = [
      ["no list", JSON.stringify({ info: { page: 1 }, items: [] }), "no query_plugins or query_themes page"],
      ["truncated", JSON.stringify(pages(fixture.plugins, 50)[0]).slice(0, 900), "not valid JSON pages"],
      [
        "entry without slug",
        JSON.stringify({ info: {}, plugins: [{ name: "Foo", slug: "foo" }, { name: "Bar" }] }),
        "page 1, entry 2: slug null",
      ],
      ["line without name", "foo Foo\nbar\n", "line 2: expected"],
      ["bad slug", "Foo_Bar! Foo Bar\n", "line 1: slug"],
      ["empty", "# nothing here\n", "the file holds no entry"],
    ];
    for (const [name, text, message] of cases) {
      const attempt = importDirectoryFile(store, file(`bad-${name.replaceAll(" ", "-")}.txt`, text));
      await expect(attempt, name).rejects.toThrow(message);
      await expect(importDirectoryFile(store, file("again.txt", text)), name).rejects.toBeInstanceOf(
        DirectoryFormatError,
      );
      expect((await store.source("plugin"))?.generation, name).toBe(served?.generation ?? null);
      expect(await rows(db, "plugin"), name).toBe(served?.record_count ?? -1);
    }
    expect((await store.source("plugin"))?.importing).toBe(false);
  }, 60_000);

  test("one import of a type at a time", async () => {
    const first = await store.beginImport("plugin");
    await expect(store.beginImport("plugin")).rejects.toBeInstanceOf(DirectoryBusyError);
    const other = await store.beginImport("theme");
    await other.abort(null);
    await first.abort("test over");
    expect((await store.source("plugin"))?.last_error).toBe("test over");
    expect(await rows(db, "plugin")).toBe(3);
  });

  test("the admin CLI imports a dump and lists the index in intel status", async () => {
    const out: string[] = [];
    const io = { out: (line: string) => out.push(line), err: (line: string) => out.push(line) };
    const dump = file("dump.json", JSON.stringify(pages(fixture.plugins, 25)));
    await runCommand(db.sql, ["intel", "import", "--source", "names", "--file", dump], io);
    expect(out.join("\n")).toMatch(new RegExp(`Imported ${fixture.plugins.length} plugin names from .*dump\\.json`));
    await runCommand(
      db.sql,
      ["intel", "import", "--source", "names", "--type", "theme", "--file", file("t.txt", "astra Astra\n")],
      io,
    );
    await runCommand(db.sql, ["intel", "status"], io);
    expect(out.join("\n")).toMatch(new RegExp(`names:plugins\\s+${fixture.plugins.length} names\\s+from file`));
    expect(out.join("\n")).toMatch(/names:themes\s+1 names\s+from file/);
    await expect(
      runCommand(db.sql, ["intel", "import", "--source", "names", "--type", "widget", "--file", dump], io),
    ).rejects.toThrow("--type must be one of plugin, theme");
  });
});

describe.each(BACKENDS)("refreshing the names index from WordPress.org (a local stub) on %s", (backend) => {
  let db: TestDatabase;
  let store: DirectoryStore;
  let stub: DirectoryStub;
  let refresher: DirectoryRefresher;
  const options = { perPage: 10, attempts: 2, retryDelayMs: 10 };
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    store = new DirectoryStore(db.sql);
    const data = directoryFixture();
    stub = startDirectoryStub(data.plugins, data.themes);
    refresher = new DirectoryRefresher(store, stub.url, "wpreport-test", silentLogger, options);
  }, 60_000);
  afterAll(async () => {
    stub?.stop();
    await db?.destroy();
  });

  test("the first refresh reads the whole listing, newest first, with the unused fields turned off", async () => {
    expect(await refresher.neverFetched()).toBe(true);
    const outcomes = await refresher.refreshAll();
    expect(outcomes).toEqual([
      { source: "names:plugins", result: "updated", records: stub.plugins.length, changed: stub.plugins.length },
      { source: "names:themes", result: "updated", records: stub.themes.length, changed: stub.themes.length },
    ]);
    const listing = stub.hits.filter((hit) => hit.includes("query_plugins"));
    // Every page of 10, then page 1 again for what moved up while they were read.
    const pageCount = Math.ceil(stub.plugins.length / 10);
    expect(listing.map((hit) => new URL(hit, stub.url).searchParams.get("request[page]"))).toEqual([
      ...Array.from({ length: pageCount }, (_, index) => String(index + 1)),
      "1",
    ]);
    const first = new URL(listing[0] ?? "", stub.url).searchParams;
    expect(first.get("request[browse]")).toBe("updated");
    expect(first.get("request[fields][description]")).toBe("0");
    expect(first.get("request[fields][active_installs]")).toBe("1");
    expect(await refresher.neverFetched()).toBe(false);
    const source = await store.source("plugin");
    expect(source).toMatchObject({ origin: "wordpress.org", record_count: stub.plugins.length, last_error: null });
    expect(source?.updated_through?.toISOString()).toBe("2026-11-20T00:53:00.000Z");
    const answer = await store.lookup({
      names: ["cookie notice & compliance for gdpr / ccpa"],
      slugs: ["reading-time-wp"],
    });
    expect(answer.names["cookie notice & compliance for gdpr / ccpa"]?.[0]?.slug).toBe("cookie-notice");
    expect(answer.slugs["plugin:reading-time-wp"]).toEqual({ name: "Reading Time WP", installs: 30_000 });
  });

  test("nothing changed: one request, nothing written", async () => {
    const generation = (await store.source("plugin"))?.generation;
    stub.hits.length = 0;
    expect(await refresher.refresh("plugin")).toEqual({ source: "names:plugins", result: "not_modified" });
    expect(stub.hits).toHaveLength(1);
    expect((await store.source("plugin"))?.generation).toBe(generation ?? null);
  });

  test("a renamed and a new plugin: only the changed entries are read, the rest carried over", async () => {
    const now = new Date("2026-11-21T08:00:00Z");
    const renamed = stub.plugins.find((entry) => entry.slug === "tidy-tables") as DirectoryEntryFixture;
    renamed.name = "Tidy Tables &#8211; Responsive Data Tables";
    renamed.updated = now;
    stub.plugins.push({
      slug: "fresh-plugin",
      name: "Fresh Plugin",
      installs: 10,
      updated: new Date(now.getTime() - 60_000),
    });
    stub.hits.length = 0;
    expect(await refresher.refresh("plugin")).toEqual({
      source: "names:plugins",
      result: "updated",
      records: stub.plugins.length,
      changed: 2,
    });
    expect(stub.hits).toHaveLength(1);
    expect(await rows(db, "plugin")).toBe(stub.plugins.length);
    const answer = await store.lookup({
      names: ["tidy tables", "tidy tables - responsive data tables", "fresh plugin", "yoast seo"],
      slugs: [],
    });
    expect(answer.names["tidy tables"]?.[0]).toMatchObject({ slug: "tidy-tables", kind: "short" });
    expect(answer.names["tidy tables - responsive data tables"]?.[0]).toMatchObject({
      slug: "tidy-tables",
      kind: "full",
    });
    expect(answer.names["fresh plugin"]?.[0]?.slug).toBe("fresh-plugin");
    expect(answer.names["yoast seo"]?.[0]?.slug).toBe("wordpress-seo");
    expect((await store.source("plugin"))?.updated_through?.toISOString()).toBe(now.toISOString());
  });

  test("a weekly full listing asks its first page conditionally: a 304 ends it", async () => {
    const always = new DirectoryRefresher(store, stub.url, "wpreport-test", silentLogger, {
      ...options,
      fullEveryMs: 0,
    });
    stub.etag = '"listing-1"';
    expect((await always.refresh("theme")).result).toBe("updated");
    expect((await store.source("theme"))?.etag).toBe('"listing-1"');
    stub.hits.length = 0;
    expect(await always.refresh("theme")).toEqual({ source: "names:themes", result: "not_modified" });
    expect(stub.hits).toHaveLength(1);
    stub.etag = null;
  });

  test("a page that keeps failing, or a listing that shrank to less than half, keeps the served index", async () => {
    const always = new DirectoryRefresher(store, stub.url, "wpreport-test", silentLogger, {
      ...options,
      fullEveryMs: 0,
    });
    const served = await store.source("plugin");
    stub.failPage = 2;
    const failed = await always.refresh("plugin");
    expect(failed).toEqual({
      source: "names:plugins",
      result: "failed",
      error: "query_plugins page 2: WordPress.org answered 502",
    });
    expect(await store.source("plugin")).toMatchObject({
      generation: served?.generation,
      record_count: served?.record_count,
      last_error: "query_plugins page 2: WordPress.org answered 502",
    });
    stub.failPage = null;
    const all = stub.plugins;
    stub.plugins = all.slice(0, 4);
    const shrunk = await always.refresh("plugin");
    expect(shrunk.result).toBe("failed");
    expect(shrunk.result === "failed" && shrunk.error).toContain("fewer than half");
    expect((await store.source("plugin"))?.generation).toBe(served?.generation ?? null);
    expect(await rows(db, "plugin")).toBe(served?.record_count ?? -1);
    stub.plugins = all;
  });

  test("WPORG_API_URL=off: no request, the refresh says why", async () => {
    const off = new DirectoryRefresher(store, null, "wpreport-test", silentLogger);
    expect(await off.refresh("plugin")).toEqual({
      source: "names:plugins",
      result: "skipped",
      reason: "WPORG_API_URL is off",
    });
    expect(await off.neverFetched()).toBe(false);
  });
});

describe("the refresh job fills an empty names index at start-up (pg-boss, the service's own queue)", () => {
  let stub: DirectoryStub;
  let service: TestService;
  beforeAll(async () => {
    const data = directoryFixture();
    stub = startDirectoryStub(data.plugins, data.themes);
    service = await startTestService({
      backend: "pglite",
      env: { WPORG_API_URL: stub.url, INTEL_REFRESH_CRON: "0 */6 * * *" },
    });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    stub?.stop();
  });

  test("with WordPress.org on and no index yet, the job runs at once and the index is served", async () => {
    const store = service.running.services.names;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !(await store.source("theme"))?.generation) await Bun.sleep(250);
    expect(await store.source("plugin")).toMatchObject({ origin: "wordpress.org", record_count: stub.plugins.length });
    expect(await store.source("theme")).toMatchObject({ origin: "wordpress.org", record_count: stub.themes.length });
    expect(stub.hits.some((hit) => hit.includes("action=query_plugins"))).toBe(true);
  }, 90_000);
});
