/**
 * The refresh of the intel sources against a local stub of Wordfence's feed and
 * WordPress.org's APIs (their real formats): conditional requests, a refused key, a 500, a
 * truncated body and a stalled download all keep the served data whole; WordPress.org's
 * answers are cached and a report waits for them at most its budget. Then the same through
 * the service: the scheduled job's first refresh on a new database.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { IntelService } from "../../../server/intel/intel.service.ts";
import { IntelStore } from "../../../server/intel/intel.store.ts";
import { LatestVersions } from "../../../server/intel/latest-versions.ts";
import { IntelRefresher } from "../../../server/intel/refresh.ts";
import type { IntelConfig } from "../../../server/intel/settings.ts";
import { WporgClient } from "../../../server/intel/wporg.ts";
import { silentLogger } from "../../../server/platform/logger.ts";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../../helpers/databases.ts";
import { startTestService } from "../../helpers/service.ts";
import { syntheticFeed } from "./feed-builder.ts";
import { type IntelStub, STUB_API_KEY, startIntelStub } from "./wporg-stub.ts";

let stub: IntelStub;
beforeAll(() => {
  stub = startIntelStub();
});
afterAll(() => stub.stop());

const intelConfig = (change: Partial<IntelConfig> = {}): IntelConfig => ({
  wordfenceApiKey: STUB_API_KEY,
  wordfenceFeedUrl: stub.feedUrl,
  wporgApiUrl: stub.url,
  wpvulnerabilityApiUrl: undefined,
  refreshCron: undefined,
  lookupBudgetMs: 300,
  downloadTimeoutMs: 10_000,
  stallTimeoutMs: 400,
  ...change,
});

describe.each(BACKENDS)("refreshing the intel on %s", (backend) => {
  let db: TestDatabase;
  let store: IntelStore;
  let latest: LatestVersions;
  let refresher: IntelRefresher;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    store = new IntelStore(db.sql);
    latest = new LatestVersions(store, new WporgClient(stub.url, "wpreport-test"), silentLogger);
    refresher = new IntelRefresher(store, latest, intelConfig(), "wpreport-test", silentLogger);
  }, 60_000);
  afterAll(() => db.destroy());

  test("the first refresh imports the feed with its validators; the next one is a 304 that keeps it", async () => {
    stub.feedMode = "ok";
    expect(await refresher.refreshWordfence()).toEqual({ source: "wordfence", result: "updated", records: 3 });
    expect(stub.lastAuthorization).toBe(`Bearer ${STUB_API_KEY}`);
    const source = await store.source("wordfence");
    expect(source).toMatchObject({ etag: '"v1"', last_modified: "Sat, 21 Nov 2026 06:00:00 GMT", record_count: 3 });
    // The feed's Last-Modified is the data's as-of date.
    expect(source?.as_of?.toISOString()).toBe("2026-11-21T06:00:00.000Z");

    const feedHits = stub.hits.get("feed") ?? 0;
    expect(await refresher.refreshWordfence()).toEqual({ source: "wordfence", result: "not_modified" });
    expect(stub.hits.get("feed")).toBe(feedHits + 1);
    const after = await store.source("wordfence");
    expect(after?.generation).toBe(source?.generation as string);
    expect(after?.checked_at?.getTime()).toBeGreaterThan(source?.checked_at?.getTime() ?? 0);
  });

  test("a 500, a refused key, a truncated body, a stalled download and a shrunken feed keep the data whole", async () => {
    const served = await store.source("wordfence");
    stub.etag = '"v2"'; // the stub has "new" data, so no 304
    const cases: [string, () => IntelRefresher, string][] = [
      ["500", () => refresher, "the feed answered 500"],
      ["truncated", () => refresher, "not one complete JSON object"],
      ["stall", () => refresher, "stalled"],
      ["tiny", () => refresher, "no usable vulnerability record"],
      [
        "ok",
        () => new IntelRefresher(store, latest, intelConfig({ wordfenceApiKey: "wrong-key" }), "t", silentLogger),
        "the feed answered 401 (check WORDFENCE_API_KEY)",
      ],
    ];
    for (const [mode, make, message] of cases) {
      stub.feedMode = mode as IntelStub["feedMode"];
      const started = Date.now();
      const outcome = await make().refreshWordfence();
      expect(outcome.result, mode).toBe("failed");
      expect(outcome.result === "failed" ? outcome.error : "", mode).toContain(message);
      expect(Date.now() - started, mode).toBeLessThan(5_000);
      const now = await store.source("wordfence");
      expect(now?.generation, mode).toBe(served?.generation as string);
      expect(now?.last_error, mode).toContain(message);
      // The key never ends up in what is stored or shown.
      expect(JSON.stringify(now), mode).not.toContain(STUB_API_KEY);
    }
    stub.feedMode = "ok";
    stub.etag = '"v1"';
  }, 30_000);

  test("a feed less than half the size of the served one is refused by the refresh", async () => {
    stub.feedBody = syntheticFeed(40);
    stub.etag = '"big"';
    expect(await refresher.refreshWordfence()).toMatchObject({ result: "updated", records: 40 });
    stub.feedBody = syntheticFeed(10);
    stub.etag = '"small"';
    const outcome = await refresher.refreshWordfence();
    expect(outcome).toMatchObject({ result: "failed" });
    expect((await store.source("wordfence"))?.record_count).toBe(40);
    stub.feedBody = (await import("./feed-builder.ts")).SAMPLE_FEED_TEXT;
    stub.etag = '"v1"';
  });

  test("WordPress.org: latest versions, not in the directory, closed; cached, one request per component", async () => {
    const query = {
      wordpress: true,
      plugins: ["akismet", "no-such-plugin", "closed-plugin"],
      themes: ["twentytwentyone"],
    };
    const answers = await latest.forQuery(query, 2_000);
    const pick = (key: string) => {
      const answer = answers.get(key);
      return [answer?.latest_version ?? null, answer?.reason ?? null];
    };
    expect(pick("wordpress:wordpress")).toEqual(["6.8.3", null]);
    expect(pick("plugin:akismet")).toEqual(["5.3.5", null]);
    expect(pick("plugin:no-such-plugin")).toEqual([null, "not_in_directory"]);
    expect(pick("plugin:closed-plugin")).toEqual([null, "closed"]);
    expect(pick("theme:twentytwentyone")).toEqual(["2.6", null]);
    const hits = stub.hits.get("plugin:akismet");
    await latest.forQuery(query, 2_000);
    expect(stub.hits.get("plugin:akismet")).toBe(hits as number);
  });

  test("a report waits at most its budget; a late answer is cached for the next report", async () => {
    const service = new IntelService(store, latest, 150);
    const query = { wordpress: false, plugins: ["slow-plugin"], themes: [] };
    const started = Date.now();
    const [first, second] = await Promise.all([service.lookup(query), service.lookup(query)]);
    expect(Date.now() - started).toBeLessThan(700);
    for (const intel of [first, second]) {
      expect(intel.plugins.get("slow-plugin")).toMatchObject({
        latest_version: null,
        latest_version_reason: "lookup_failed",
      });
    }
    await Bun.sleep(1_000);
    expect(stub.hits.get("plugin:slow-plugin")).toBe(backend === BACKENDS[0] ? 1 : 2);
    const later = await service.lookup(query);
    expect(later.plugins.get("slow-plugin")?.latest_version).toBe("2.0.1");
    expect(later.sources.find((source) => source.id === "wordpress.org")).toMatchObject({ name: "WordPress.org" });
  });
});

describe("the scheduled refresh through the service", () => {
  test("a new database with a key configured gets its first refresh from the job queue", async () => {
    stub.feedMode = "ok";
    const service = await startTestService({
      backend: BACKENDS.at(-1),
      env: {
        WORDFENCE_API_KEY: STUB_API_KEY,
        WORDFENCE_FEED_URL: stub.feedUrl,
        WPORG_API_URL: stub.url,
        INTEL_REFRESH_CRON: "0 3 * * *",
      },
    });
    try {
      const store = service.running.services.intel.store;
      const deadline = Date.now() + 20_000;
      let source = await store.source("wordfence");
      while (!source?.generation && Date.now() < deadline) {
        await Bun.sleep(250);
        source = await store.source("wordfence");
      }
      expect(source).toMatchObject({ record_count: 3, last_error: null });
      const schedules = await service.running.services.queue.boss.getSchedules();
      expect(schedules.map((schedule) => [schedule.name, schedule.cron])).toContainEqual([
        "intel-refresh",
        "0 3 * * *",
      ]);
    } finally {
      await service.stop();
    }
  }, 60_000);
});
