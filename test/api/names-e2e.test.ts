/**
 * End to end through the API: the service refreshes its names index from a local stub of
 * WordPress.org's directory API (its real page format), then reports on two local sites —
 * one whose plugins name themselves in comments, metas, inline scripts, markup and headers
 * (test/analyzer/sites/self-naming), one with none of these signals (no-signal). The
 * analysis runs on an analysis thread, which asks the main thread for the names once.
 * Then the air-gapped way: lookups off, the same index imported from a file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { importDirectoryFile } from "../../server/intel/directory/directory-import.ts";
import type { PluginInfo, Report } from "../../shared/report.ts";
import { type StaticSite, startStaticSite } from "../analyzer/sites/static-site.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { expectValidReport } from "../helpers/report-schema.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type DirectoryStub, directoryFixture, listingPage, startDirectoryStub } from "../helpers/wporg-directory.ts";

const EXPECTED: Record<string, string | null> = {
  "acme-toolkit": "2.4.1",
  adrotate: "5.12.4",
  "breeze-forms": "1.2.0",
  "contact-form-7": "5.8.5",
  "cookie-notice": "2.4.12",
  elementor: "3.18.3",
  "flavor-slider": "3.1.4",
  "google-analytics-for-wordpress": "8.23.1",
  "google-site-kit": "1.118.0",
  "litespeed-cache": "6.0.0.1",
  "quick-faq": null,
  "reading-time-wp": "2.0.16",
  // Named by a comment only, without a version: its readme was read (gather's version files).
  "redis-cache": "2.5.3",
  "redux-framework": "4.4.11",
  "simple-share-buttons-adder": "8.4.11",
  "sitepress-multilingual-cms": "4.6.8",
  "tidy-tables": "1.7.2",
  "w3-total-cache": "2.7.0",
  woocommerce: "8.4.0",
  "wordpress-seo": "22.4",
  "wp-meteor": "3.4.0",
};
const versions = (plugins: PluginInfo[]) =>
  Object.fromEntries(
    plugins.map((plugin) => [plugin.slug, plugin.version]).sort(([a], [b]) => String(a).localeCompare(String(b))),
  );

let selfNaming: StaticSite;
let noSignal: StaticSite;
beforeAll(() => {
  selfNaming = startStaticSite("self-naming");
  noSignal = startStaticSite("no-signal");
});
afterAll(() => {
  selfNaming?.stop();
  noSignal?.stop();
});

async function report(service: TestService, token: string, url: string): Promise<Report> {
  const created = await service.call<Report>("POST", "/api/generate-report", { token, body: { url } });
  expect(created.status).toBe(201);
  expectValidReport(created.body);
  return created.body;
}

describe.each(BACKENDS)("plugins named through the WordPress.org names index, through the API, on %s", (backend) => {
  let stub: DirectoryStub;
  let service: TestService;
  let token: string;
  beforeAll(async () => {
    const fixture = directoryFixture();
    stub = startDirectoryStub(fixture.plugins, fixture.themes);
    service = await startTestService({ backend, env: { WPORG_API_URL: stub.url, INTEL_LOOKUP_BUDGET_MS: "3000" } });
    ({ token } = await service.token());
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    stub?.stop();
  });

  test("the refresh job's work fills the index from the directory API", async () => {
    const outcomes = await service.running.services.intelRefresher.refreshAll();
    expect(outcomes.filter((outcome) => outcome.source.startsWith("names:"))).toEqual([
      { source: "names:plugins", result: "updated", records: stub.plugins.length, changed: stub.plugins.length },
      { source: "names:themes", result: "updated", records: stub.themes.length, changed: stub.themes.length },
    ]);
  }, 60_000);

  test("a site whose plugins name themselves: every one found, at its version, with why", async () => {
    const found = await report(service, token, selfNaming.url);
    expect(versions(found.plugins)).toEqual(EXPECTED);
    const byslug = new Map(found.plugins.map((plugin) => [plugin.slug, plugin]));
    expect(byslug.get("tidy-tables")).toMatchObject({ name: "Tidy Tables", confidence: 64 });
    expect(byslug.get("acme-toolkit")?.evidence.map((item) => item.source)).toEqual([
      "header",
      "inline_script",
      "inferred_slug",
    ]);
    expect(found.theme?.slug).toBe("flavorite");
    expect(found.errors.filter((error) => error.stage === "names")).toEqual([]);
  }, 60_000);

  test("a site with none of these signals: no plugin", async () => {
    const found = await report(service, token, noSignal.url);
    expect(found.wordpress?.detected).toBe(true);
    expect(found.plugins).toEqual([]);
  }, 60_000);
});

describe("air-gapped: WPORG_API_URL=off and the index imported from a dump file", () => {
  let service: TestService;
  let token: string;
  beforeAll(async () => {
    service = await startTestService({ backend: "pglite", env: { WPORG_API_URL: "off" } });
    ({ token } = await service.token());
  }, 60_000);
  afterAll(() => service?.stop());

  test("without an index, only the built-in signatures and the page's own files name plugins", async () => {
    const found = await report(service, token, selfNaming.url);
    expect(Object.hasOwn(versions(found.plugins), "tidy-tables")).toBe(false);
    expect(versions(found.plugins)["contact-form-7"]).toBe("5.8.5");
  }, 60_000);

  test("after importing the directory's pages from a file, the same report as with the live index", async () => {
    const fixture = directoryFixture();
    const dir = mkdtempSync(path.join(tmpdir(), "wpreport-names-e2e-"));
    const dump = path.join(dir, "plugins.json");
    writeFileSync(
      dump,
      JSON.stringify([listingPage("plugin", fixture.plugins, 1, 250), listingPage("theme", fixture.themes, 1, 250)]),
    );
    expect(await importDirectoryFile(service.running.services.names, dump)).toEqual({
      plugin: fixture.plugins.length,
      theme: fixture.themes.length,
    });
    const found = await report(service, token, selfNaming.url);
    expect(versions(found.plugins)).toEqual(EXPECTED);
  }, 60_000);
});
