/**
 * The names question an analysis asks (detect/finders/names-question.ts, threads/): once the
 * homepage is in, then only about what the probes added; its answers used by detection and
 * by gather's version-file reads — in-process and on an
 * analysis thread, which asks the main thread — and a lookup that fails or hangs leaves a
 * report named from built-in signatures, saying why.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { analyze } from "../../server/analyzer/analyze.ts";
import type { NameLookup, NameQuery } from "../../server/analyzer/detect/finders/directory.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { DEFAULT_CLIENT_LIMITS } from "../../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { AnalysisThreads } from "../../server/analyzer/threads/analysis-threads.ts";
import type { PluginInfo } from "../../shared/report.ts";
import { directoryFixture, memoryNameLookup } from "../helpers/wporg-directory.ts";
import { type StaticSite, startStaticSite } from "./sites/static-site.ts";

const UA = "wpreport-test";
const slugs = (plugins: PluginInfo[]) => plugins.map((plugin) => plugin.slug).sort();

describe("the names question", () => {
  let site: StaticSite;
  let policy: TargetPolicy;
  beforeAll(() => {
    site = startStaticSite("self-naming");
    policy = new TargetPolicy([`127.0.0.1:${new URL(site.url).port}`]);
  });
  afterAll(() => site?.stop());

  const run = async (names: NameLookup) => {
    const agent = createSafeAgent(policy);
    try {
      return await analyze(site.url, { agent, policy, userAgent: UA, names }, AbortSignal.timeout(20_000));
    } finally {
      await agent.close();
    }
  };

  test("asked once the homepage is in, then only about what the probes added; the answers name the plugins", async () => {
    const asked: NameQuery[] = [];
    const index = memoryNameLookup(directoryFixture());
    const report = await run((query) => {
      asked.push(query);
      return index(query);
    });
    expect(asked).toHaveLength(2);
    expect(asked[0]?.names).toContain("redis object cache");
    expect(asked[0]?.slugs).toContain("tidy-tables");
    // The REST index's namespaces came with the probes; nothing is asked twice.
    expect(asked[1]?.names).toEqual([]);
    expect(asked[1]?.slugs).toEqual(expect.arrayContaining(["quick-faq", "mystery-tool"]));
    expect(asked[1]?.slugs.filter((slug) => asked[0]?.slugs.includes(slug))).toEqual([]);
    expect(slugs(report.plugins)).toEqual(expect.arrayContaining(["tidy-tables", "quick-faq"]));
    expect(report.errors.filter((error) => error.stage === "names")).toEqual([]);
  }, 30_000);

  test("a plugin only the names index names, without a version, gets its readme read like any other", async () => {
    const report = await run(memoryNameLookup(directoryFixture()));
    const redis = report.plugins.find((plugin) => plugin.slug === "redis-cache");
    expect(redis?.version).toBe("2.5.3");
    expect(redis?.evidence.map((item) => item.source)).toEqual(
      expect.arrayContaining(["html_comment", "readme_stable_tag"]),
    );
  }, 30_000);

  test("a lookup that fails: the report stands on the signatures and the page's own files, and says why", async () => {
    const report = await run(async () => {
      throw new Error("database unavailable");
    });
    expect(report.errors).toContainEqual({
      stage: "names",
      kind: "names_unavailable",
      message:
        "The WordPress.org names index could not be asked, so plugins were named from built-in signatures only: database unavailable",
    });
    expect(slugs(report.plugins)).toContain("contact-form-7");
    expect(slugs(report.plugins)).not.toContain("tidy-tables");
  }, 30_000);

  test("on an analysis thread the question goes to the main thread, and its answer comes back", async () => {
    const asked: NameQuery[] = [];
    const index = memoryNameLookup(directoryFixture());
    const threads = new AnalysisThreads(
      {
        allowlist: [`127.0.0.1:${new URL(site.url).port}`],
        dnsServers: [],
        userAgent: UA,
        limits: DEFAULT_CLIENT_LIMITS,
      },
      { threads: 1, perThread: 1 },
      undefined,
      5_000,
      (query) => {
        asked.push(query);
        return index(query);
      },
    );
    try {
      const report = await threads.analyze(site.url, AbortSignal.timeout(20_000));
      expect(asked).toHaveLength(2);
      expect(slugs(report.plugins)).toEqual(expect.arrayContaining(["tidy-tables", "flavor-slider", "adrotate"]));
    } finally {
      await threads.close();
    }
  }, 30_000);
});
