/**
 * Versions from files on the real WordPress fixture (http://127.0.0.1:8088/): akismet keeps
 * the version its readme states (its changelog.txt, an archive of older entries, is never
 * needed passively), and xrds-simple — seen only in its headers, with no readme or other file
 * (Debian's package) — costs exactly four requests and gets no invented version, in passive and
 * in aggressive mode.
 */
import { describe, expect, test } from "bun:test";
import { type AnalysisResult, analyze } from "../../server/analyzer/analyze.ts";
import { enumerationPlan } from "../../server/analyzer/enumeration/plan.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";

async function run(aggressive: boolean): Promise<AnalysisResult> {
  const policy = new TargetPolicy(["127.0.0.1", "localhost"]);
  const agent = createSafeAgent(policy);
  try {
    const enumerate = aggressive
      ? enumerationPlan({ plugins: [], themes: [] }, { maxRequests: 30, timeBudgetMs: 10_000 })
      : undefined;
    return await analyze(
      WORDPRESS_URL,
      { agent, policy, userAgent: "wpreport-test", enumerate },
      AbortSignal.timeout(30_000),
    );
  } finally {
    await agent.close();
  }
}

const pluginFiles = (result: AnalysisResult, slug: string) =>
  (result.performance?.requests ?? [])
    .map((row) => new URL(row.url).pathname)
    .filter((path) => path.startsWith(`/wp-content/plugins/${slug}/`))
    .sort();

describe.skipIf(!HAS_WORDPRESS)("version files on the real fixture", () => {
  test("passive: akismet from its readme; xrds-simple asks four files and gets no version", async () => {
    const result = await run(false);
    const versions = Object.fromEntries(result.plugins.map((plugin) => [plugin.slug, plugin.version]));
    expect(versions).toEqual({ akismet: "5.0.2", "xrds-simple": null });
    expect(pluginFiles(result, "akismet")).toEqual(["/wp-content/plugins/akismet/readme.txt"]);
    expect(pluginFiles(result, "xrds-simple")).toEqual(
      [
        "/wp-content/plugins/xrds-simple/readme.txt",
        "/wp-content/plugins/xrds-simple/languages/xrds-simple.pot",
        "/wp-content/plugins/xrds-simple/changelog.txt",
        "/wp-content/plugins/xrds-simple/CHANGELOG.md",
      ].sort(),
    );
  });

  test("aggressive: akismet's readme settles it (Stable tag and changelog); xrds-simple's build files are asked, nothing invented", async () => {
    const result = await run(true);
    const akismet = result.plugins.find((plugin) => plugin.slug === "akismet");
    expect(akismet?.version).toBe("5.0.2");
    expect(pluginFiles(result, "akismet")).toEqual(["/wp-content/plugins/akismet/readme.txt"]);
    expect(result.plugins.find((plugin) => plugin.slug === "xrds-simple")?.version).toBeNull();
    expect(pluginFiles(result, "xrds-simple")).toContain("/wp-content/plugins/xrds-simple/package.json");
  });
});
